"""What several commands share: finding the feed a command names, the start of every
`/command FEED REST` that changes a subscription, subscribing, and checking a pressed button."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.core.lang import Translator
from bot.core.messages.escape import esc
from bot.core.messages.paging import split_message
from bot.core.messages.render import TELEGRAM_LIMIT
from bot.db import store
from bot.db.store import FeedView
from bot.services.subscribing import Subscribed
from bot.telegram import texts
from bot.telegram.buttons import ABOUT_A_SUBSCRIPTION, Button, decode
from bot.telegram.context import Context
from bot.telegram.views import backlog_keyboard, feed_names

log = logging.getLogger(__name__)


async def find_feed(context: Context, slug: str, command: str) -> FeedView | None:
    """The feed named `slug`, or the only feed when no slug is given and there is just one;
    otherwise a reply that says which feeds there are."""
    tr = await context.tr()
    _ = tr.gettext
    feeds = await context.svc.read(store.all_feeds)
    if not slug:
        if len(feeds) == 1:
            return feeds[0]
        if not feeds:
            await context.reply(_("No feeds are watched yet."))
        else:
            text = _("Which feed? Usage: {usage}\nFeeds: {feeds}")
            usage = context.svc.commands.usage(tr, command, feeds[0].slug)
            await context.reply(text.format(usage=usage, feeds=feed_names(feeds, tr)))
        return None
    for feed in feeds:
        if feed.slug == slug.lower():
            return feed
    text = _("There is no feed named <code>{slug}</code>. Feeds: {feeds}")
    await context.reply(text.format(slug=esc(slug[:64]), feeds=feed_names(feeds, tr)))
    return None


def topic_of(message: object) -> int | None:
    """The forum topic a message (a command, or the one under a button) belongs to."""
    if isinstance(message, Message) and message.is_topic_message:
        return message.message_thread_id
    return None


@dataclass(frozen=True, slots=True)
class SettingCommand:
    """A `/command SLUG REST` that passed the checks every subscription setting needs."""

    tr: Translator
    feed: FeedView
    rest: str


Shown = Callable[[Context, str], Awaitable[None]]


async def setting_command(
    context: Context,
    command: str,
    valid: Callable[[str], bool] = bool,
    current: Shown | None = None,
) -> SettingCommand | None:
    """Admin check, `SLUG REST` arguments (`valid(REST)`), the feed; replies to any mistake.
    Without a value (`/format` or `/format SLUG`), `current(context, SLUG)` answers instead:
    the setting as it is (anyone may look)."""
    tr = await context.tr()
    parts = context.args_text.split(maxsplit=1)
    if len(parts) < 2 and current is not None:
        await current(context, parts[0] if parts else "")
        return None
    if not await context.may_change():
        return None
    if len(parts) < 2 or not valid(parts[1]):
        await context.reply(await context.usage(command))
        return None
    feed = await find_feed(context, parts[0], command)
    if feed is None:
        return None
    return SettingCommand(tr, feed, parts[1])


def not_subscribed(feed: FeedView, tr: Translator) -> str:
    text = tr.gettext(
        "This chat is not subscribed to <b>{title}</b>: <code>/subscribe {slug}</code> first."
    )
    return text.format(title=esc(feed.title), slug=esc(feed.slug))


async def subscription_answer(
    context: Context, feed: FeedView, thread_id: int | None
) -> tuple[str, InlineKeyboardMarkup | None]:
    """Subscribe the chat; the answer, with the backlog buttons when it is a new subscription."""
    tr = await context.tr()
    _ = tr.gettext
    await context.remember_chat()
    limit = context.svc.settings.max_subscriptions_per_chat
    result = await context.svc.subscriptions.subscribe(context.chat_id, feed.id, thread_id)
    title, slug = esc(feed.title), esc(feed.slug)
    if result is Subscribed.LIMIT:
        text = _("This chat already has {limit} subscriptions, the most allowed.")
        return text.format(limit=limit), None
    if result is Subscribed.RESTORED:  # left within LEFT_SETTINGS_DAYS: its settings are back
        text = _(
            "Subscribed to <b>{title}</b> again, with the filters and settings this chat had "
            "for it (see /list)."
        )
        return text.format(title=title), backlog_keyboard(feed.id, tr)
    if result is Subscribed.HAD:
        text = _("This chat is already subscribed to <b>{title}</b>.")
        return text.format(title=title), None
    if context.channel is not None:  # managed from a private chat: posts go to the channel
        text = _(
            "Subscribed to <b>{title}</b>. New posts and real edits will appear in the "
            "channel <b>{channel}</b>.\n"
            "Narrow it down with <code>/filter {slug} CATEGORY</code> "
            "(see <code>/categories {slug}</code>)."
        )
        channel = esc(context.channel[1] or str(context.channel[0]))
        return text.format(title=title, slug=slug, channel=channel), backlog_keyboard(feed.id, tr)
    text = _(
        "Subscribed to <b>{title}</b>. New posts and real edits will appear here.\n"
        "Narrow it down with <code>/filter {slug} CATEGORY</code> "
        "(see <code>/categories {slug}</code>)."
    )
    return text.format(title=title, slug=slug), backlog_keyboard(feed.id, tr)


async def pressed(update: Update, context: Context) -> tuple[CallbackQuery, Button] | None:
    """The button, if it is one of ours, still current, and pressed by someone allowed; every
    other press is answered here (expired, or admins only)."""
    query = update.callback_query
    if query is None or query.message is None:
        return None
    tr = await context.tr()
    button = decode(query.data)
    if button is None:
        log.info("button with unknown data %r ignored", (query.data or "")[:70])
        await query.answer(tr.gettext(texts.BUTTON_EXPIRED))
        return None
    if not await context.is_admin():
        await query.answer(tr.gettext(texts.ADMINS_ONLY), show_alert=True)
        return None
    if button.action in ABOUT_A_SUBSCRIPTION:
        chat_id, feed_id = context.chat_id, button.feed_id
        reader = await context.svc.read(
            lambda s: store.get_subscription(s, chat_id=chat_id, feed_id=feed_id)
        )
        if reader is None:  # unsubscribed since, or the feed is gone: the button is stale
            await query.answer(tr.gettext(texts.BUTTON_EXPIRED))
            return None
    return query, button


async def edit(query: CallbackQuery, text: str, keyboard: InlineKeyboardMarkup | None) -> None:
    """Replace the message under the button; an edit cannot grow into two: keep what fits."""
    if len(split_message(text)) > 1:
        text = split_message(text, TELEGRAM_LIMIT - 2)[0] + "\n…"
    try:
        await query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard)
    except BadRequest as exc:  # "message is not modified" and the like: nothing to do
        log.debug("could not edit the message: %s", exc)
