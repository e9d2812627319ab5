"""Withdrawal checks (`post_check`'s withdrawal columns): candidates, due checks, who was told."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.detection.withdrawal import Seen
from bot.core.polls.decide import FeedStatus
from bot.core.types import MessageKind
from bot.db.store.statements import columns
from bot.db.tables import Chat, Delivery, DeliveryStatus, Feed, Item, PostCheck

_TOLD = (MessageKind.NEW, MessageKind.EDITED)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A post whose withdrawal check is due."""

    item_id: int
    feed_id: int
    feed_url: str
    trusted: bool
    feed_ok: bool
    link: str | None
    title: str
    in_feed: bool
    gone_since: datetime
    misses: int
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Told:
    """A chat that got a message about a post (what a withdrawal notice replies to)."""

    chat_id: int
    thread_id: int | None
    language: str | None


def changed_feeds(session: Session, *, since: datetime) -> list[int]:
    """Feeds whose items were seen at or after `since` (a poll that changed them)."""
    rows = session.exec(
        select(Item.feed_id).where(col(Item.last_seen_at) >= since).distinct()
    ).all()
    return sorted(int(r) for r in rows)


def seen_items(session: Session, *, feed_id: int) -> list[Seen]:
    rows = session.exec(
        select(Item.id, Item.last_seen_at, Item.published_at, Item.first_seen_at).where(
            Item.feed_id == feed_id
        )
    ).all()
    return [Seen(int(i or 0), seen, published or first) for i, seen, published, first in rows]


def told_items(session: Session, *, item_ids: list[int]) -> set[int]:
    """Which of these posts some chat got a message about."""
    if not item_ids:
        return set()
    rows = session.exec(
        select(Delivery.item_id)
        .where(
            col(Delivery.item_id).in_(item_ids),
            Delivery.status == DeliveryStatus.SENT,
            col(Delivery.message_id).is_not(None),
            col(Delivery.kind).in_(_TOLD),
        )
        .distinct()
    ).all()
    return {int(r) for r in rows if r is not None}


def start_checks(session: Session, *, item_ids: list[int], now: datetime) -> list[int]:
    """Candidates found now get their first check (a post already being checked, or withdrawn,
    keeps its state). Returns the ids that started."""
    started = []
    for item_id in item_ids:
        check = session.get(PostCheck, item_id) or PostCheck(item_id=item_id)
        if check.gone_since is not None:
            continue
        check.gone_since, check.misses, check.check_at = now, 0, now
        session.add(check)
        started.append(item_id)
    return started


def due_checks(session: Session, *, now: datetime, limit: int = 50) -> list[Candidate]:
    latest = (
        select(func.max(Item.last_seen_at))
        .where(Item.feed_id == col(Feed.id))
        .correlate(Feed)
        .scalar_subquery()
    )
    rows = session.execute(
        sa_select(
            *columns(PostCheck, "item_id"),
            *columns(Item, "feed_id"),
            *columns(Feed, "url trusted status failing_since"),
            *columns(Item, "link title last_seen_at"),
            latest,
            *columns(PostCheck, "gone_since misses withdrawn"),
        )
        .join(Item, col(Item.id) == PostCheck.item_id)
        .join(Feed, col(Feed.id) == Item.feed_id)
        .where(col(PostCheck.check_at).is_not(None), col(PostCheck.check_at) <= now)
        .order_by(col(PostCheck.check_at))
        .limit(limit)
    ).all()
    found = []
    for (
        item_id,
        feed_id,
        url,
        trusted,
        status,
        failing,
        link,
        title,
        seen,
        top,
        since,
        misses,
        gone,
    ) in rows:
        ok = status == FeedStatus.OK and failing is None
        in_feed = top is not None and seen >= top
        found.append(
            Candidate(item_id, feed_id, url, trusted, ok, link, title, in_feed, since, misses, gone)
        )
    return found


def set_check(
    session: Session,
    *,
    item_id: int,
    check_at: datetime | None,
    misses: int = 0,
    withdrawn: bool | None = None,
    cleared: bool = False,
) -> None:
    check = session.get(PostCheck, item_id)
    if check is None:
        return
    check.check_at, check.misses = check_at, misses
    if withdrawn is not None:
        check.withdrawn = withdrawn
    if cleared:
        check.gone_since, check.check_at, check.withdrawn, check.misses = None, None, False, 0
    session.add(check)


def told_chats(session: Session, *, item_id: int) -> list[Told]:
    """Active chats that got a message about the post, each once."""
    rows = session.exec(
        select(Delivery.chat_id, Delivery.thread_id, Chat.language)
        .join(Chat, col(Chat.id) == Delivery.chat_id, isouter=True)
        .where(
            Delivery.item_id == item_id,
            Delivery.status == DeliveryStatus.SENT,
            col(Delivery.message_id).is_not(None),
            col(Delivery.kind).in_(_TOLD),
            col(Chat.active).is_not(False),
        )
        .order_by(col(Delivery.id))
    ).all()
    seen: dict[int, Told] = {}
    for chat_id, thread_id, language in rows:
        seen.setdefault(chat_id, Told(chat_id, thread_id, language))
    return list(seen.values())
