"""/start, /help and /feeds: what the bot does and what it watches."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatType

from bot.core.lang import N_
from bot.core.messages.escape import esc
from bot.core.polls.schedule import format_duration
from bot.db import store
from bot.telegram import help_screen, texts
from bot.telegram.commands import adding, subscriptions
from bot.telegram.commands.common import edit, pressed
from bot.telegram.context import Context, example_feed
from bot.telegram.spec import Command
from bot.telegram.views import START_FEEDS, feed_keyboard, full_text_keyboard


async def cmd_help(update: Update, context: Context) -> None:
    """/help: what the bot does and the commands of this kind of chat; /help COMMAND: its
    usage with an example."""
    await context.remember_chat()
    tr = await context.tr()
    if context.args_text:
        detail = help_screen.command_help(
            tr, context.svc.commands, context.args_text, await example_feed(context)
        )
        if detail is not None:
            await context.reply(detail)
            return
    chat = update.effective_chat
    private = chat is not None and chat.type == ChatType.PRIVATE
    text = help_screen.help_text(
        tr,
        context.svc.commands,
        private=private,
        operator=context.is_operator,
        model=bool(context.svc.settings.model_api_url),
    )
    await context.reply(text)


async def on_other_text(update: Update, context: Context) -> None:
    """An unknown command in a private chat: one line on what works (not one meant for
    another bot, `/help@other_bot`)."""
    message = update.effective_message
    word = ((message.text or "") if message is not None else "").split(maxsplit=1)[:1]
    mention = word[0].partition("@")[2] if word else ""
    if mention and mention.lower() != (context.bot.username or "").lower():
        return
    await context.reply((await context.tr()).gettext(help_screen.UNKNOWN))


async def cmd_start(update: Update, context: Context) -> None:
    """/start, or /start FEED from a deep link (`t.me/<bot>?start=FEED`, `?startgroup=FEED`):
    one tap subscribes the chat, exactly as /subscribe FEED would. Alone: what the bot does in
    one line, a Subscribe button per watched feed, and where the reference is (/help); it fits
    on one phone screen."""
    if context.args_text:
        await subscriptions.cmd_subscribe(update, context)
        return
    await context.remember_chat()
    _ = (await context.tr()).gettext
    feeds = await context.svc.read(store.all_feeds)
    lines = [_(texts.START)]
    if feeds:
        lines.append(_(texts.START_PICK))
        if len(feeds) > START_FEEDS:
            lines.append(_(texts.START_MORE).format(count=len(feeds)))
    else:
        open_ = adding.may_add(context)
        lines.append(_(texts.START_EMPTY if open_ else texts.START_EMPTY_CLOSED))
    lines.append(_(texts.START_HELP))
    await context.reply("\n\n".join(lines), feed_keyboard(feeds))


async def cmd_feeds(update: Update, context: Context) -> None:
    """/feeds: the feeds this bot watches (operators also see who added each from a chat, and
    full-text switches for excerpt-only feeds)."""
    text, keyboard = await feeds_view(context)
    await context.reply(text, keyboard)


async def feeds_view(context: Context) -> tuple[str, InlineKeyboardMarkup | None]:
    tr = await context.tr()
    _ = tr.gettext
    rows = await context.svc.read(store.list_feeds)
    if not rows:
        return _("No feeds are watched yet."), None
    lines = [_("<b>Watched feeds</b>")]
    for row in rows:
        status = "" if row.feed.status == "ok" else f" ({esc(row.feed.status)})"
        pace = ""
        if row.feed.interval_seconds:
            every = format_duration(row.feed.interval_seconds)
            pace = " · " + _("every {interval}").format(interval=every)
        owner = ""
        if context.is_operator and row.feed.added_by is not None:  # who added it, for them
            owner = " · " + _("added by {user}").format(user=row.feed.added_by)
        if context.is_operator and row.feed.full_text:
            owner += " · " + _("full text")
        elif context.is_operator and row.feed.excerpt_only:
            owner += " · " + _("excerpts only")
        line = f"<code>{esc(row.feed.slug)}</code> — {esc(row.feed.title)}{pace}{status}{owner}"
        lines.append(line)
    lines.append("\n" + _("Subscribe with /subscribe <i>feed name</i>"))
    keyboard = None
    if context.is_operator:
        keyboard = full_text_keyboard([row.feed for row in rows], tr)
        if keyboard is not None:
            lines.append(_(texts.FULL_TEXT_ABOUT))
    return "\n".join(lines), keyboard


async def on_full_text(update: Update, context: Context) -> None:
    """An operator's full-text switch under /feeds: flip it and redraw the list."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    if not context.is_operator:
        await query.answer((await context.tr()).gettext(texts.FULL_TEXT_OPERATORS), show_alert=True)
        return
    await context.svc.catalog.toggle_full_text(button.feed_id)
    await edit(query, *await feeds_view(context))
    await query.answer()


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "start",
        cmd_start,
        about=N_("what this bot does"),
    ),
    Command(
        "help",
        cmd_help,
        about=N_("every command with an example"),
    ),
    Command(
        "feeds",
        cmd_feeds,
        about=N_("feeds this bot watches"),
    ),
)
