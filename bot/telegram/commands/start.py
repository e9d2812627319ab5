"""/start, /help and /feeds: what the bot does and what it watches."""

from __future__ import annotations

from telegram import Update

from bot.core.schedule import format_duration
from bot.db import store
from bot.telegram import texts
from bot.telegram.commands import adding, subscriptions
from bot.telegram.context import Context, esc, example_feed
from bot.telegram.views import START_FEEDS, feed_keyboard


async def cmd_help(update: Update, context: Context) -> None:
    """/help: what the bot does and every command with an example."""
    await context.remember_chat()
    await context.reply(texts.help_text(await context.tr(), await example_feed(context)))


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
    """/feeds: the feeds this bot watches (operators also see who added each from a chat)."""
    _ = (await context.tr()).gettext
    rows = await context.svc.read(store.list_feeds)
    if not rows:
        await context.reply(_("No feeds are watched yet."))
        return
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
        line = f"<code>{esc(row.feed.slug)}</code> — {esc(row.feed.title)}{pace}{status}{owner}"
        lines.append(line)
    lines.append("\n" + _("Subscribe with /subscribe <i>feed name</i>"))
    await context.reply("\n".join(lines))
