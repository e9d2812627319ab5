"""The outbox: one row per (chat, event), written in the transaction that stores the item,
sent by the delivery loop, marked sent only after Telegram confirms it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.messages.article import Article as ArticleValue
from bot.core.types import MessageKind
from bot.db.direct import Direct
from bot.db.store.articles import articles_of
from bot.db.store.statements import columns, run, table
from bot.db.tables import Chat, Delivery, DeliveryStatus, Item, Subscription


@dataclass(frozen=True, slots=True)
class OutboxRow:
    """A message to queue, as the outbox planner describes it."""

    chat_id: int
    feed_id: int
    item_id: int | None  # None: an operator alert, or a post of the poll being written
    kind: MessageKind
    text: str
    preview: bool = False
    silent: bool = False
    image_url: str | None = None
    thread_id: int | None = None
    media: str | None = None  # an album or a playable file (core/messages/media.py)
    held: bool = False  # kept for the subscription's digest
    # A post of the poll being written, named by its key: `write_poll` gives it its id.
    item_key: str | None = None
    follow_label: str | None = None  # a new post's "Follow changes" button, translated


_DELIVERY = table(Delivery)
_CHAT = table(Chat)
_SUBSCRIPTION = table(Subscription)
_INSERT_DELIVERIES = insert(_DELIVERY)  # built once: every changed feed's poll runs it


def enqueue(session: Session, *, rows: Sequence[OutboxRow]) -> None:
    if not rows:
        return
    run(
        session,
        _INSERT_DELIVERIES,
        [
            {
                "chat_id": row.chat_id,
                "feed_id": row.feed_id,
                "item_id": row.item_id,
                "kind": row.kind,
                "text": row.text,
                "preview": row.preview,
                "silent": row.silent,
                "image_url": row.image_url,
                "media": row.media,
                "thread_id": row.thread_id,
                "follow_label": row.follow_label,
                "status": DeliveryStatus.HELD if row.held else DeliveryStatus.PENDING,
            }
            for row in rows
        ],
    )


def cancel_queued(session: Session, *, chat_id: int, feed_id: int | None = None) -> int:
    """Messages not yet sent (pending, or held for a digest) will never be: the chat paused or
    unsubscribed. Returns how many were cancelled."""
    query = update(Delivery).where(
        col(Delivery.chat_id) == chat_id,
        col(Delivery.status).in_((DeliveryStatus.PENDING, DeliveryStatus.HELD)),
    )
    if feed_id is not None:
        query = query.where(col(Delivery.feed_id) == feed_id)
    return int(session.exec(query.values(status=DeliveryStatus.CANCELLED)).rowcount)


def delivered_item_ids(session: Session, *, chat_id: int, item_ids: list[int]) -> set[int]:
    """Items this chat already has (or is about to get) a message for."""
    rows = session.exec(
        select(Delivery.item_id).where(
            Delivery.chat_id == chat_id, col(Delivery.item_id).in_(item_ids)
        )
    ).all()
    return {item_id for item_id in rows if item_id is not None}


@dataclass(frozen=True, slots=True)
class Queued:
    """A pending message as delivery walks it (a value: the queue is changed through storage
    calls, never by mutating rows)."""

    id: int
    chat_id: int
    item_id: int | None
    kind: str
    text: str
    preview: bool
    silent: bool
    image_url: str | None
    thread_id: int | None
    next_attempt_at: datetime
    attempts: int
    follow_label: str | None = None
    media: str | None = None


_PENDING_OF_CHATS = (
    sa_select(
        *columns(
            Delivery,
            "id chat_id item_id kind text preview silent image_url thread_id next_attempt_at "
            "attempts follow_label media",
        )
    )
    .where(
        _DELIVERY.c.chat_id.in_(bindparam("b_chats", expanding=True)),
        _DELIVERY.c.status == DeliveryStatus.PENDING,
    )
    .order_by(_DELIVERY.c.id)
)  # Core, the columns `Queued` holds: loading ORM rows held the event loop 7-12 ms a claim


def pending_by_chat(session: Session, *, chat_ids: list[int]) -> dict[int, list[Queued]]:
    """Pending deliveries of these chats, each chat's oldest first."""
    queues: dict[int, list[Queued]] = {}
    for row in run(session, _PENDING_OF_CHATS, {"b_chats": chat_ids}):
        queues.setdefault(row.chat_id, []).append(Queued(**row._mapping))
    return queues


def pending_count(session: Session) -> int:
    query = (
        select(func.count()).select_from(Delivery).where(Delivery.status == DeliveryStatus.PENDING)
    )
    return int(session.exec(query).one())


def next_due_delivery(session: Session) -> datetime | None:
    query = select(func.min(Delivery.next_attempt_at)).where(
        Delivery.status == DeliveryStatus.PENDING
    )
    return session.exec(query).one()


SentMark = tuple[int, datetime, int | None]  # delivery id, when, Telegram's message id

# Built once: the statement a fan-out runs for every message, as one executemany per batch.
MARK_SENT = (
    update(Delivery)
    .where(col(Delivery.id) == bindparam("delivery_id"))
    .where(col(Delivery.status) == DeliveryStatus.PENDING)
    .values(
        status=DeliveryStatus.SENT, sent_at=bindparam("sent_at"), message_id=bindparam("message_id")
    )
)


# A mark already recorded exactly so (its commit did not answer; the chat marks it again).
MARKED_SO = sa_select(_DELIVERY.c.id).where(
    _DELIVERY.c.id == bindparam("delivery_id"),
    _DELIVERY.c.status == DeliveryStatus.SENT,
    _DELIVERY.c.sent_at == bindparam("sent_at", type_=_DELIVERY.c.sent_at.type),
    _DELIVERY.c.message_id.is_not_distinct_from(
        bindparam("message_id", type_=_DELIVERY.c.message_id.type)
    ),
)


def mark_sent(tx: Direct, marks: Sequence[SentMark]) -> list[bool]:
    """Mark messages Telegram accepted, in one executemany on the DBAPI cursor (a fan-out's marks
    come in batches, `services/marks.py`; `db/direct.py` says why not a `Connection`). For each
    mark, False when its row was no longer pending (cancelled by /pause or /unsubscribe while in
    flight); True for a mark already recorded exactly so (retried after a commit that did not
    answer). Only when some row was not pending, rarely, is each row checked to tell which."""
    if not marks:
        return []
    rows = [{"delivery_id": d, "sent_at": when, "message_id": m} for d, when, m in marks]
    if tx.run(MARK_SENT, rows) == len(rows):
        return [True] * len(rows)
    return [tx.first(MARKED_SO, row) is not None for row in rows]


# Who was told about a feed's posts (`told_about`), built once: every poll with an edit runs it.
_ITEM = table(Item)
_LISTED = _ITEM.alias("listed")
_NOT_TOLD = (DeliveryStatus.FAILED, DeliveryStatus.CANCELLED)
_POSTS = (
    _ITEM.c.feed_id == bindparam("b_feed"),
    _ITEM.c.key.in_(bindparam("b_keys", expanding=True)),
)
_TOLD_DIRECT = (
    sa_select(_DELIVERY.c.chat_id, _ITEM.c.key)
    .select_from(_DELIVERY.join(_ITEM, _ITEM.c.id == _DELIVERY.c.item_id))
    .where(
        *_POSTS,
        _DELIVERY.c.kind.in_((MessageKind.NEW, MessageKind.LIST, MessageKind.DIGEST)),
        _DELIVERY.c.status.not_in(_NOT_TOLD),
    )
)
_TOLD_IN_A_LIST = (
    sa_select(_DELIVERY.c.chat_id, _ITEM.c.key)
    .select_from(
        _DELIVERY.join(_LISTED, _LISTED.c.id == _DELIVERY.c.item_id).join(
            _ITEM,
            (_ITEM.c.feed_id == _LISTED.c.feed_id)
            & (_ITEM.c.first_seen_at == _LISTED.c.first_seen_at),
        )
    )
    .where(*_POSTS, _DELIVERY.c.kind == MessageKind.LIST, _DELIVERY.c.status.not_in(_NOT_TOLD))
)


def told_about(session: Session, *, feed_id: int, keys: Sequence[str]) -> set[tuple[int, str]]:
    """(chat, post key) for these posts of the feed and every chat that was told about them:
    sent (or about to be sent, or held for a digest) a message about the post, or the flood
    guard's list of the poll the post came in (that list names its last post only: posts of
    one poll share their first-seen time). What an edit may be shown to (issue 43): a chat
    that subscribed later never saw the text an edit's difference is against."""
    if not keys:
        return set()
    params = {"b_feed": feed_id, "b_keys": list(keys)}
    found = [*run(session, _TOLD_DIRECT, params), *run(session, _TOLD_IN_A_LIST, params)]
    return {(int(row[0]), str(row[1])) for row in found}


def original_message_id(session: Session, *, chat_id: int, item_id: int) -> int | None:
    """The chat's first delivered message about this item (what an edit replies to)."""
    return session.exec(
        select(Delivery.message_id)
        .where(
            Delivery.chat_id == chat_id,
            Delivery.item_id == item_id,
            Delivery.status == DeliveryStatus.SENT,
            col(Delivery.message_id).is_not(None),
            # not a digest or a list: those are about several posts
            col(Delivery.kind).not_in((MessageKind.DIGEST, MessageKind.LIST)),
        )
        .order_by(col(Delivery.id))
        .limit(1)
    ).first()


def mark_retry(
    session: Session,
    *,
    delivery_id: int,
    error: str,
    retry_at: datetime,
    give_up: bool,
    spend: bool = True,
) -> None:
    """Try again at `retry_at`; `spend`: the failure was about this message (an attempt)."""
    session.exec(
        update(Delivery)
        .where(col(Delivery.id) == delivery_id)
        .values(
            attempts=Delivery.attempts + 1 if spend else Delivery.attempts,
            last_error=error[:1000],
            next_attempt_at=retry_at,
            status=DeliveryStatus.FAILED if give_up else DeliveryStatus.PENDING,
        )
    )


def hold_delivery(session: Session, *, delivery_id: int, until: datetime) -> None:
    """Telegram asked this chat to wait (429): its queue waits, not an attempt."""
    session.exec(
        update(Delivery).where(col(Delivery.id) == delivery_id).values(next_attempt_at=until)
    )


def mark_failed(session: Session, *, delivery_id: int, error: str) -> None:
    session.exec(
        update(Delivery)
        .where(col(Delivery.id) == delivery_id)
        .values(status=DeliveryStatus.FAILED, last_error=error[:1000])
    )


@dataclass(frozen=True, slots=True)
class HeldItem:
    """A message held for a digest, with the item facts the digest lists."""

    delivery_id: int
    item_id: int
    title: str
    link: str | None
    categories: tuple[str, ...]
    updated: bool
    text: str = ""  # the item's visible text, for the digest's one-line summary
    html: str = ""  # its article's HTML (full-text feeds), preferred for that summary
    seen: datetime | None = None  # when the post was first seen (the ranked digest's recency)


def held_for(session: Session, *, chat_id: int, feed_id: int) -> list[HeldItem]:
    """A chat's held messages of one feed with what a digest lists of their items (not the
    messages' own text: the digest replaces them)."""
    rows = session.exec(
        select(Delivery.id, Delivery.kind, Item)
        .join(Item, col(Item.id) == col(Delivery.item_id))
        .where(
            Delivery.chat_id == chat_id,
            Delivery.feed_id == feed_id,
            Delivery.status == DeliveryStatus.HELD,
        )
        .order_by(col(Delivery.id))
    ).all()
    found = articles_of(session, item_ids=[item.id or 0 for _, _, item in rows])
    return [_held(delivery_id or 0, kind, item, found) for delivery_id, kind, item in rows]


def _held(delivery_id: int, kind: str, item: Item, articles: dict[int, ArticleValue]) -> HeldItem:
    """A held delivery with what a digest lists of its item (its article, for full text)."""
    article = articles.get(item.id or 0)
    return HeldItem(
        delivery_id=delivery_id,
        item_id=item.id or 0,
        title=item.title,
        link=item.link,
        categories=tuple(item.categories or ()),
        updated=kind == MessageKind.EDITED,
        text=item.text,
        html=article.html if article is not None else "",
        seen=item.first_seen_at,
    )


def mark_digested(session: Session, *, delivery_ids: list[int]) -> None:
    session.exec(
        update(Delivery)
        .where(col(Delivery.id).in_(delivery_ids))
        .values(status=DeliveryStatus.DIGESTED)
    )


@dataclass(frozen=True, slots=True)
class QuietChat:
    """A chat with messages held by its quiet hours, as the release pass first reads it."""

    chat_id: int
    quiet: str | None
    timezone: str


def _quiet_rows(chat_id: object) -> Any:
    """Held deliveries of `chat_id` that no digest takes (quiet hours hold those)."""
    return (
        sa_select(_DELIVERY.c.id, _DELIVERY.c.feed_id)
        .join(
            _SUBSCRIPTION,
            (_SUBSCRIPTION.c.chat_id == _DELIVERY.c.chat_id)
            & (_SUBSCRIPTION.c.feed_id == _DELIVERY.c.feed_id),
        )
        .where(
            _DELIVERY.c.chat_id == chat_id,
            _DELIVERY.c.status == DeliveryStatus.HELD,
            _SUBSCRIPTION.c.digest.is_(None),
        )
    )


def quiet_chats(session: Session, *, after: int | None = None, limit: int = 200) -> list[QuietChat]:
    """Chats holding messages for their quiet hours, by id, `limit` of them past `after`: three
    columns a chat, no message and no item read (most are still in their window)."""
    query = sa_select(_CHAT.c.id, _CHAT.c.quiet, _CHAT.c.timezone).where(
        _quiet_rows(_CHAT.c.id).exists()
    )
    if after is not None:
        query = query.where(_CHAT.c.id > after)
    rows = session.connection().execute(query.order_by(_CHAT.c.id).limit(limit)).all()
    return [QuietChat(int(row[0]), row[1], str(row[2])) for row in rows]


def quiet_held_ids(session: Session, *, chat_id: int) -> dict[int, list[int]]:
    """A chat's messages held by quiet hours: their ids by feed, in order (no text read)."""
    rows = session.connection().execute(_quiet_rows(chat_id).order_by(_DELIVERY.c.id)).all()
    found: dict[int, list[int]] = {}
    for delivery_id, feed_id in rows:
        found.setdefault(int(feed_id), []).append(int(delivery_id))
    return found


def release_held(session: Session, *, delivery_ids: list[int]) -> None:
    """Held messages become ordinary pending ones (sent in their order, as they were)."""
    for start in range(0, len(delivery_ids), 500):
        session.exec(
            update(Delivery)
            .where(col(Delivery.id).in_(delivery_ids[start : start + 500]))
            .values(status=DeliveryStatus.PENDING)
        )
