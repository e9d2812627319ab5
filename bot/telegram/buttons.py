"""Inline keyboards: the backlog choice after /subscribe, and the controls under /list.

Callback data is `action:feed_id[:n]`. Every press is checked like a command (group admins
only) and always answered, so the user's client never keeps spinning.
"""

from __future__ import annotations

import logging

from sqlmodel import Session
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.core.lang import Translator
from bot.core.model import Change, ChangeKind, FeedInfo, ParsedItem
from bot.core.paging import split_message
from bot.core.render import TELEGRAM_LIMIT, render_change
from bot.db import store
from bot.db.tables import Chat, Delivery, Feed, Item
from bot.i18n import parse_choice, translator
from bot.telegram import texts
from bot.telegram.callback_data import Button, decode, encode
from bot.telegram.handlers import (
    Context,
    chat_translator,
    is_chat_admin,
    list_view,
    set_language,
)
from bot.telegram.services import services

log = logging.getLogger(__name__)
BACKLOG = 3


def backlog_keyboard(feed_id: int, tr: Translator) -> InlineKeyboardMarkup:
    also = tr.ngettext("Also the latest {count}", "Also the latest {count}", BACKLOG)
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    tr.gettext("Only new posts"),
                    callback_data=encode(Button("backlog", feed_id, 0)),
                )
            ],
            [
                InlineKeyboardButton(
                    also.format(count=BACKLOG),
                    callback_data=encode(Button("backlog", feed_id, BACKLOG)),
                )
            ],
        ]
    )


async def on_button(update: Update, context: Context) -> None:
    """Route a button press; refuse non-admins in groups like the commands do. Forged or stale
    data gets a short "expired" answer; every press is answered."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    tr = await chat_translator(update, context)
    _ = tr.gettext
    button = decode(query.data)
    if button is None:
        log.info("button with unknown data %r ignored", (query.data or "")[:70])
        await query.answer(_(texts.BUTTON_EXPIRED))
        return
    if not await is_chat_admin(update, context):
        await query.answer(_(texts.ADMINS_ONLY), show_alert=True)
        return
    if button.action == "lang":
        language = parse_choice(button.language)
        if language is None:
            await query.answer(_(texts.BUTTON_EXPIRED))
            return
        await _edit(query, await set_language(update, context, language), None)
        await query.answer()
        return
    chat_id, feed_id = query.message.chat.id, button.feed_id
    svc = services(context)
    subscribed = await svc.read(
        lambda s: store.get_subscription(s, chat_id=chat_id, feed_id=feed_id) is not None
    )
    if not subscribed:  # unsubscribed since, or the feed is gone: the button is stale
        await query.answer(_(texts.BUTTON_EXPIRED))
        return
    note = ""
    if button.action == "backlog":
        count = min(button.count, BACKLOG)
        queued = await svc.write(
            lambda s: queue_backlog(s, chat_id=chat_id, feed_id=feed_id, count=count)
        )
        svc.wake.set()
        if queued:
            note = tr.ngettext(
                "Sending the latest {count} post.", "Sending the latest {count} posts.", queued
            ).format(count=queued)
        else:
            note = _("Only new posts, then.")
        before = query.message.text_html if isinstance(query.message, Message) else ""
        await _edit(query, f"{before}\n\n{note}".strip(), None)
        await query.answer()
        return
    if button.action == "unsub":
        await svc.write(lambda s: store.unsubscribe(s, chat_id=chat_id, feed_id=feed_id))
        note = _("Unsubscribed.")
    else:
        action = button.action

        def flip(session: Session) -> None:
            sub = store.get_subscription(session, chat_id=chat_id, feed_id=feed_id)
            if sub is not None:
                setattr(sub, action, not getattr(sub, action))
                session.add(sub)

        await svc.write(flip)
    text, keyboard = await list_view(context, chat_id, tr)
    await _edit(query, text, keyboard)
    await query.answer(note)


def queue_backlog(session: Session, *, chat_id: int, feed_id: int, count: int) -> int:
    """Queue the newest `count` posts (oldest of them first) that this chat has not had yet."""
    if count <= 0:
        return 0
    sub = store.get_subscription(session, chat_id=chat_id, feed_id=feed_id)
    feed = session.get(Feed, feed_id)
    if sub is None or feed is None:
        return 0
    items = [i for i in store.latest_items(session, feed_id=feed_id, limit=count) if i.id]
    had = store.delivered_item_ids(session, chat_id=chat_id, item_ids=[i.id or 0 for i in items])
    info = FeedInfo(slug=feed.slug, title=feed.title)
    chat = session.get(Chat, chat_id)
    tr = translator(chat.language if chat is not None else None)
    queued = 0
    for item in reversed(items):
        if item.id in had:
            continue
        session.add(
            Delivery(
                chat_id=chat_id,
                feed_id=feed_id,
                item_id=item.id or 0,
                kind=ChangeKind.NEW.value,
                text=render_change(Change(ChangeKind.NEW, as_parsed(item)), info, tr),
                preview=sub.preview,
                thread_id=sub.thread_id,
            )
        )
        queued += 1
    return queued


def as_parsed(item: Item) -> ParsedItem:
    return ParsedItem(
        key=item.key,
        title=item.title,
        link=item.link,
        author=item.author,
        published=item.published_at,
        categories=tuple(item.categories or ()),
        text=item.text,
        fingerprint=item.fingerprint,
        position=0,
    )


async def _edit(query: object, text: str, keyboard: InlineKeyboardMarkup | None) -> None:
    parts = split_message(text)
    if len(parts) > 1:  # an edited message cannot grow into two: keep what fits
        text = split_message(text, TELEGRAM_LIMIT - 2)[0] + "\n…"
    try:
        await query.edit_message_text(  # type: ignore[attr-defined]
            text, parse_mode=ParseMode.HTML, reply_markup=keyboard
        )
    except BadRequest as exc:  # "message is not modified" and the like: nothing to do
        log.debug("could not edit the message: %s", exc)
