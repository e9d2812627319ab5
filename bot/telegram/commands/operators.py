"""Operators (`BOT_ADMIN_IDS`) manage the watched feeds: /addfeed, /removefeed. `app.py` routes
only operators here (`filters.User`); everyone else gets `refuse`. Fetching runs in the
background so command handling never waits for it. (An OPML file is anyone's: `importing`;
`feed import` on the command line fills the watch list alone.)"""

from __future__ import annotations

import logging

from telegram import Update

from bot.core.lang import N_
from bot.core.messages.escape import esc
from bot.core.urls import shown_url
from bot.services.catalog import FeedAddError
from bot.telegram import background, texts
from bot.telegram.commands.adding import explain
from bot.telegram.context import Context
from bot.telegram.spec import Command, Who

log = logging.getLogger(__name__)


async def refuse(update: Update, context: Context) -> None:
    """An operator command from someone who is not one. While the bot has no operator at all,
    a private chat is told how to become one (its own user id and the setting)."""
    _ = (await context.tr()).gettext
    chat, user = update.effective_chat, update.effective_user
    if not context.svc.settings.bot_admin_ids and chat and chat.type == "private" and user:
        text = _(texts.NO_OPERATOR_YET).format(user_id=user.id)
        if context.svc.settings.feed_adding == "everyone":  # pasting links works: say so
            text += " " + _(texts.ANYONE_ADDS)
        await context.reply(text)
        return
    await context.reply(_(texts.OPERATORS_ONLY))


async def cmd_addfeed(update: Update, context: Context) -> None:
    """/addfeed URL [SLUG]"""
    message = update.effective_message
    if message is None:
        return
    tr = await context.tr()
    _ = tr.gettext
    parts = context.args_text.split()
    if not 1 <= len(parts) <= 2:
        await context.reply(await context.usage("addfeed"))
        return
    url, slug = parts[0], (parts[1].lower() if len(parts) == 2 else None)
    catalog = context.svc.catalog

    async def work(progress: background.Progress) -> str:
        try:
            outcome = await catalog.add_feed(url, slug=slug, trusted=False)
        except FeedAddError as exc:  # the chat's sentence; the technical line goes to the log
            log.info("/addfeed %s: %s", shown_url(url), exc)
            return _("Could not add the feed: {reason}").format(reason=explain(exc, context, tr))
        text = tr.ngettext(
            "Now watching <b>{title}</b> as <code>{slug}</code> ({items} item so far).",
            "Now watching <b>{title}</b> as <code>{slug}</code> ({items} items so far).",
            outcome.items,
        )
        return text.format(
            title=esc(outcome.feed_title), slug=esc(outcome.slug), items=outcome.items
        )

    waiting = _("Fetching {url}…").format(url=esc(shown_url(url, operator=True)))
    background.start(context.svc.jobs, message, waiting, work, _(texts.SOMETHING_WRONG))


async def cmd_removefeed(update: Update, context: Context) -> None:
    """/removefeed SLUG"""
    tr = await context.tr()
    slug = context.args_text.lower()
    if not slug or " " in slug:
        await context.reply(await context.usage("removefeed"))
        return
    if await context.svc.catalog.remove_feed(slug):
        await context.reply(
            tr.gettext("Stopped watching <code>{slug}</code>.").format(slug=esc(slug))
        )
    else:
        text = tr.gettext("There is no feed named <code>{slug}</code>.")
        await context.reply(text.format(slug=esc(slug[:64])))


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "addfeed",
        cmd_addfeed,
        about=N_("add a feed to this bot (operators)"),
        usage=N_(
            "/addfeed URL [<i>feed name</i>] — e.g. "
            "<code>/addfeed https://example.org/feed/ example</code>"
        ),
        who=Who.OPERATORS,
    ),
    Command(
        "removefeed",
        cmd_removefeed,
        about=N_("stop watching a feed (operators)"),
        usage=N_("/removefeed <i>feed name</i>"),
        who=Who.OPERATORS,
    ),
)
