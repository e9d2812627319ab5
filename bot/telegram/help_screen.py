"""/help as a phone screen: one line per command that works in this kind of chat, and
`/help COMMAND` for its usage line with an example.

The old /help was 2,269 characters of usage lines and told group members to paste links and use
/channel, which only work in a private chat.
"""

from __future__ import annotations

from bot.core.lang import N_, Translator
from bot.telegram.spec import CommandTable, Who

INTRO = N_(
    "<b>Feedwatch</b> watches blog feeds and posts here when a new article appears or an "
    "article's text really changes (markup-only changes are ignored). Each message has the "
    "title, link, categories and a short summary; edits show what changed."
)
DETAILS = N_("/help <i>command</i> for its details and an example, e.g. <code>/help filter</code>")
PASTE = N_("A link on its own sent here is offered as a feed to subscribe to.")
GROUP_ADMINS = N_("In groups, only administrators can change subscriptions and filters.")
OPERATORS = N_("Operators can also use {addfeed} and {removefeed}.")
UNKNOWN = N_(
    "I did not understand that. Send /help for the commands, or send a blog's address to follow it."
)
GROUP_HELLO = N_(
    "Hello! An administrator can start with <code>/subscribe</code> and a blog's address, or "
    "/feeds; /help lists the commands."
)


def help_text(
    tr: Translator,
    table: CommandTable,
    *,
    private: bool,
    operator: bool = False,
    model: bool = True,
) -> str:
    """The commands this chat can use, one line each, in the chat's language (`model`: the
    bot has a language model, so /summary and /translate work)."""
    _ = tr.gettext
    lines = [_(INTRO), "", _("<b>Commands</b>")]
    for command in table.menu(model=model):
        if command.who is Who.PRIVATE and not private:
            continue
        lines.append(f"/{command.name} — {_(command.about)}")
    lines.append("")
    lines.append(_(PASTE) if private else _(GROUP_ADMINS))
    if operator:
        lines.append(_(OPERATORS).format(addfeed="/addfeed", removefeed="/removefeed"))
    lines.append(_(DETAILS))
    return "\n".join(lines)


def command_help(tr: Translator, table: CommandTable, name: str, feed: str) -> str | None:
    """`/help filter`: the command's usage line with an example naming one of this bot's feeds
    (and what more there is to know, e.g. what keywords match); None for a command without
    one."""
    command = table.by_name.get(name.strip().lstrip("/").split("@", 1)[0].lower())
    if command is None or command.usage is None:
        return None
    line = table.usage(tr, command.name, feed)
    if command.more is not None:
        line += "\n" + tr.gettext(command.more)
    return line
