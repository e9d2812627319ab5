"""Left subscriptions (core/rules/leaving.py): rows marked with `left_at` that keep a chat's
settings for a feed. Undo and subscribing again bring one back; housekeeping forgets them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from bot.core.rules.leaving import returning_topic
from bot.db.tables import Subscription


def rejoin(
    session: Session, *, chat_id: int, feed_id: int, thread_id: int | None, since: datetime
) -> bool:
    """The chat's subscription to the feed, left at or after `since`, is followed again with
    every setting it had (its topic: `returning_topic`); False when there is none."""
    row = session.exec(_left(chat_id, since).where(Subscription.feed_id == feed_id)).first()
    if row is None:
        return False
    row.left_at = None
    row.thread_id = returning_topic(row.thread_id, thread_id)
    session.add(row)
    session.flush()
    return True


def left_since(
    session: Session,
    *,
    chat_id: int,
    feed_id: int | None,
    since: datetime,
    until: datetime | None = None,
) -> list[int]:
    """Feeds (one, or any) the chat left in [since, until): what an Undo would restore."""
    return [row.feed_id for row in _rows(session, chat_id, feed_id, since, until)]


def restore(
    session: Session,
    *,
    chat_id: int,
    feed_id: int | None,
    since: datetime,
    until: datetime | None = None,
) -> int:
    """Undo: the subscriptions `left_since` finds are followed again, as they were."""
    rows = _rows(session, chat_id, feed_id, since, until)
    for row in rows:
        row.left_at = None
        session.add(row)
    session.flush()
    return len(rows)


def forget_left(session: Session, *, before: datetime) -> int:
    """Delete subscriptions left before `before` (their settings are not kept longer)."""
    doomed = col(Subscription.left_at) < before
    count = session.exec(select(func.count()).select_from(Subscription).where(doomed)).one()
    if count:
        session.exec(delete(Subscription).where(doomed))
    return int(count)


def _left(chat_id: int, since: datetime):  # type: ignore[no-untyped-def]
    return select(Subscription).where(
        Subscription.chat_id == chat_id,
        col(Subscription.left_at).is_not(None),
        col(Subscription.left_at) >= since,
    )


def _rows(
    session: Session,
    chat_id: int,
    feed_id: int | None,
    since: datetime,
    until: datetime | None,
) -> list[Subscription]:
    query = _left(chat_id, since)
    if feed_id is not None:
        query = query.where(Subscription.feed_id == feed_id)
    if until is not None:
        query = query.where(col(Subscription.left_at) < until)
    return list(session.exec(query).all())
