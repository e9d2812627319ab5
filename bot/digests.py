"""Turn held messages into digests when a subscription's period is over (run every poll tick).

Items for a digest subscription are held in the outbox (status `held`) in the same transaction
that stores them, like any delivery; when the period ends, one transaction marks them digested
and queues the digest message(s) as ordinary pending deliveries, so the delivery loop, its
order and its crash safety apply unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.core.digest import DigestEntry, is_due, render_digest
from bot.db.engine import transaction
from bot.db.tables import Chat, Delivery, DeliveryStatus, Feed, Item, Subscription
from bot.i18n import translator

log = logging.getLogger(__name__)


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def run_digests(engine: Engine, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> int:
    """Queue every digest that is due; return how many digest messages were queued."""
    now = clock()
    queued = 0
    with transaction(engine) as session:
        rows = session.exec(
            select(Subscription, Chat, Feed)
            .join(Chat, col(Chat.id) == col(Subscription.chat_id))
            .join(Feed, col(Feed.id) == col(Subscription.feed_id))
            .where(
                col(Subscription.digest).is_not(None),
                col(Chat.active).is_(True),
                col(Chat.paused).is_(False),  # a paused chat gets no digest either
            )
        ).all()
        for sub, chat, feed in rows:
            at = time.fromisoformat(sub.digest_at) if sub.digest_at else None
            last = sub.last_digest_at or sub.created_at
            if not is_due(sub.digest or "", at, zone(chat.timezone), last, now):
                continue
            sub.last_digest_at = now
            session.add(sub)
            queued += _queue_digest(session, sub, feed, chat.language)
    return queued


def _queue_digest(session: Session, sub: Subscription, feed: Feed, language: str | None) -> int:
    held = session.exec(
        select(Delivery, Item)
        .join(Item, col(Item.id) == col(Delivery.item_id))
        .where(
            Delivery.chat_id == sub.chat_id,
            Delivery.feed_id == sub.feed_id,
            Delivery.status == DeliveryStatus.HELD,
        )
        .order_by(col(Delivery.id))
    ).all()
    if not held:
        return 0
    entries = [
        DigestEntry(
            title=item.title,
            link=item.link,
            categories=tuple(item.categories or ()),
            updated=delivery.kind == "edited",
        )
        for delivery, item in held
    ]
    for delivery, _ in held:
        delivery.status = DeliveryStatus.DIGESTED
        session.add(delivery)
    messages = render_digest(feed.title, entries, translator(language))
    for text in messages:
        session.add(
            Delivery(
                chat_id=sub.chat_id,
                feed_id=sub.feed_id,
                item_id=held[-1][1].id or 0,
                kind="digest",
                text=text,
                preview=False,
                thread_id=sub.thread_id,
            )
        )
    log.info("chat %s: digest of %d posts from %s queued", sub.chat_id, len(entries), feed.slug)
    return len(messages)
