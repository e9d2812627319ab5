"""Leases: which process polls a feed or delivers to a chat right now.

PostgreSQL: `FOR UPDATE SKIP LOCKED` lets concurrent workers claim disjoint sets. SQLite has no
row locks (SQLAlchemy drops the clause) but write transactions are `BEGIN IMMEDIATE`, so each
compare-and-set on `lease_until` is serialized anyway.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import ColumnElement, func, or_, update
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from bot.core.polls.decide import FeedState, FeedStatus
from bot.db.store.feedstate import STATE_NAMES
from bot.db.store.statements import columns
from bot.db.tables import Chat, Delivery, DeliveryStatus, Feed

# `FeedState`'s columns of the models' table: the UPDATE below is built on it.
_STATE_COLUMNS = columns(Feed, STATE_NAMES)
_CLAIM_PAGES = 8  # pages of due messages read at most per claim (chats with many messages)


def claim_feeds(
    session: Session,
    *,
    now: datetime,
    owner: str,
    lease_until: datetime,
    due_only: bool = True,
    limit: int | None = 1000,
    due_by: datetime | None = None,
) -> list[FeedState]:
    """Lease feeds for polling so no other process fetches them meanwhile; the most overdue
    come first (the scheduler starts them in this order)."""
    free = or_(col(Feed.lease_until).is_(None), col(Feed.lease_until) < now)
    candidates = select(Feed.id).where(Feed.status != FeedStatus.GONE, free)
    if due_only:  # `due_by`: a little ahead of `now` (the scheduler filling a hole)
        candidates = candidates.where(Feed.next_check_at <= (due_by or now))
    candidates = candidates.order_by(col(Feed.next_check_at)).with_for_update(skip_locked=True)
    if limit is not None:
        candidates = candidates.limit(limit)
    claimed = session.exec(
        update(Feed)
        .where(col(Feed.id).in_(candidates.scalar_subquery()))
        .values(lease_until=lease_until, lease_owner=owner)
        .returning(*_STATE_COLUMNS)
    )
    states = [FeedState(*row) for row in claimed.all()]
    return sorted(states, key=lambda f: (f.due_at or now, f.id))  # the most overdue first


def pacing_counts(session: Session, *, now: datetime, horizon: datetime) -> tuple[int, int]:
    """Feeds due before `horizon` (overdue ones included), and how many workers hold leases
    now besides this one (at least one: the caller): what the scheduler's pace is made of."""
    due = session.exec(
        select(func.count())
        .select_from(Feed)
        .where(Feed.status != FeedStatus.GONE, col(Feed.next_check_at) < horizon)
    ).one()
    owners = session.exec(
        select(func.count(func.distinct(Feed.lease_owner))).where(
            col(Feed.lease_until).is_not(None), col(Feed.lease_until) > now
        )
    ).one()
    return int(due), max(int(owners), 1)


def release_leases(session: Session) -> None:
    """Drop every lease: only safe when this process is the database's only poller (SQLite)."""
    session.exec(update(Feed).values(lease_until=None, lease_owner=None))
    session.exec(update(Chat).values(lease_until=None, lease_owner=None))


def claim_chats(
    session: Session,
    *,
    now: datetime,
    owner: str,
    lease_until: datetime,
    limit: int,
    skip: Collection[int] = (),
) -> list[int]:
    """Lease chats that have a delivery due, those waiting longest first; a leased chat is
    served by one worker, in order. `skip`: chats the caller still holds in a batch of its own
    (their lease may have run out while they waited for a slot).

    Why a walk: ordering every candidate chat by its oldest message read the whole outbox at
    each claim, so a fan-out to N chats cost N²/limit lookups (105 ms a claim at 50,000 chats).
    Due messages are read in id order (`ix_delivery_queue`) until `limit` free chats are
    found, a page at a time; the lease itself is the compare-and-set of the `UPDATE`.
    """
    found: dict[int, None] = {}  # an ordered set: each chat once, in the order first met
    after = 0
    for _ in range(_CLAIM_PAGES):
        page = session.exec(claim_page(now=now, after=after, size=limit * 4)).all()
        for delivery_id, chat_id in page:
            after = delivery_id or 0
            if chat_id not in skip:
                found.setdefault(chat_id)
        if len(found) >= limit or len(page) < limit * 4:
            break
    chosen = list(found)[:limit]
    if not chosen:
        return []
    claimed = session.exec(
        update(Chat)
        .where(col(Chat.id).in_(chosen), _free_chat(now))
        .values(lease_until=lease_until, lease_owner=owner)
        .returning(col(Chat.id))
    )
    taken = {int(chat_id) for (chat_id,) in claimed.all()}
    return [chat_id for chat_id in chosen if chat_id in taken]


def claim_page(*, now: datetime, after: int, size: int) -> Select[int | None, int]:
    """Due messages after `after`, in id order, of chats that are neither paused nor leased."""
    return (
        select(col(Delivery.id), Delivery.chat_id)
        .join(Chat, col(Chat.id) == col(Delivery.chat_id))
        .where(
            Delivery.status == DeliveryStatus.PENDING,
            col(Delivery.id) > after,
            Delivery.next_attempt_at <= now,
            col(Chat.paused).is_(False),
            _free_chat(now),
        )
        .order_by(col(Delivery.id))
        .limit(size)
        .with_for_update(skip_locked=True, of=Chat)
    )


def _free_chat(now: datetime) -> ColumnElement[bool]:
    return or_(col(Chat.lease_until).is_(None), col(Chat.lease_until) < now)


def release_chats(session: Session, *, chat_ids: list[int], owner: str) -> None:
    session.exec(
        update(Chat)
        .where(col(Chat.id).in_(chat_ids), col(Chat.lease_owner) == owner)
        .values(lease_until=None, lease_owner=None)
    )


def renew_chat(session: Session, *, chat_id: int, owner: str, lease_until: datetime) -> bool:
    """Extend this worker's lease; False when it was lost (expired and taken by another)."""
    result = session.exec(
        update(Chat)
        .where(col(Chat.id) == chat_id, col(Chat.lease_owner) == owner)
        .values(lease_until=lease_until)
    )
    return bool(result.rowcount)


def renew_chats(
    session: Session, *, chat_ids: Collection[int], owner: str, lease_until: datetime
) -> set[int]:
    """Extend this worker's leases of `chat_ids` in one statement; the ones it still held."""
    if not chat_ids:
        return set()
    result = session.exec(
        update(Chat)
        .where(col(Chat.id).in_(list(chat_ids)), col(Chat.lease_owner) == owner)
        .values(lease_until=lease_until)
        .returning(col(Chat.id))
    )
    return {int(chat_id) for (chat_id,) in result.all()}
