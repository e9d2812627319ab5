"""Queries and writes. Keyword-only functions that take a session and never commit: the caller
owns the transaction (one per feed poll, one per command), as in the FastAPI template's crud."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, delete, func, insert, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.model import (
    Audience,
    CategoryFilter,
    Detection,
    KeywordFilter,
    ParsedFeed,
    StoredItem,
)
from bot.db.tables import (
    Chat,
    Delivery,
    DeliveryStatus,
    Feed,
    FeedCategory,
    Item,
    State,
    Subscription,
)

# --- feeds -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FeedRow:
    """A feed with its item count, for listings."""

    feed: Feed
    items: int


def add_feed(session: Session, *, slug: str, url: str, title: str, trusted: bool) -> Feed:
    feed = Feed(slug=slug, url=url, title=title, trusted=trusted)
    session.add(feed)
    session.flush()
    return feed


def get_feed(session: Session, *, slug: str) -> Feed | None:
    return session.exec(select(Feed).where(Feed.slug == slug)).first()


def get_feed_by_url(session: Session, *, url: str) -> Feed | None:
    return session.exec(select(Feed).where(Feed.url == url)).first()


def list_feeds(session: Session) -> list[FeedRow]:
    counts = dict(
        session.exec(
            select(Item.feed_id, func.count(col(Item.id))).group_by(col(Item.feed_id))
        ).all()
    )
    feeds = session.exec(select(Feed).order_by(Feed.slug)).all()
    return [FeedRow(feed=f, items=counts.get(f.id or 0, 0)) for f in feeds]


def remove_feed(session: Session, *, slug: str) -> bool:
    feed = get_feed(session, slug=slug)
    if feed is None:
        return False
    for table in (Delivery, Subscription, Item, FeedCategory):
        session.exec(delete(table).where(col(table.feed_id) == feed.id))
    session.delete(feed)
    return True


@dataclass(frozen=True, slots=True)
class FeedSnapshot:
    """What one poll needs to know about a feed, read in the same statement that claims it."""

    id: int
    slug: str
    url: str
    title: str
    etag: str | None
    last_modified: str | None
    trusted: bool
    body_hash: str | None
    baseline_done: bool

    @property
    def validators(self) -> tuple[str | None, str | None]:
        return (self.etag, self.last_modified)


_SNAPSHOT_COLUMNS = (
    col(Feed.id),
    col(Feed.slug),
    col(Feed.url),
    col(Feed.title),
    col(Feed.etag),
    col(Feed.last_modified),
    col(Feed.trusted),
    col(Feed.body_hash),
    col(Feed.baseline_done),
)


def feed_snapshots(
    session: Session, *, now: datetime | None = None, feed_id: int | None = None
) -> list[FeedSnapshot]:
    """Feeds without claiming them: due ones (`now`), one (`feed_id`), or all."""
    query = sa_select(*_SNAPSHOT_COLUMNS).where(col(Feed.status) != "gone")
    if now is not None:
        query = query.where(col(Feed.next_check_at) <= now)
    if feed_id is not None:
        query = sa_select(*_SNAPSHOT_COLUMNS).where(col(Feed.id) == feed_id)
    return [FeedSnapshot(*row) for row in session.execute(query).all()]


def mark_feeds_checked(
    session: Session,
    *,
    feed_ids: list[int],
    now: datetime,
    next_check_at: datetime,
    validators: dict[int, tuple[str | None, str | None]],
) -> None:
    """Feeds that answered 304 or an identical body: healthy, checked now, lease released."""
    healthy = {
        "status": "ok",
        "last_error": None,
        "error_count": 0,
        "last_checked_at": now,
        "next_check_at": next_check_at,
        "lease_until": None,
        "lease_owner": None,
    }
    for start in range(0, len(feed_ids), 500):
        chunk = feed_ids[start : start + 500]
        session.exec(update(Feed).where(col(Feed.id).in_(chunk)).values(**healthy))
    for feed_id, (etag, modified) in validators.items():
        session.exec(
            update(Feed).where(col(Feed.id) == feed_id).values(etag=etag, last_modified=modified)
        )


def claim_feeds(
    session: Session,
    *,
    now: datetime,
    owner: str,
    lease_until: datetime,
    due_only: bool = True,
    limit: int | None = 1000,
) -> list[FeedSnapshot]:
    """Lease feeds for polling so no other process fetches them meanwhile.

    PostgreSQL: `FOR UPDATE SKIP LOCKED` lets concurrent workers claim disjoint sets. SQLite has
    no row locks (SQLAlchemy drops the clause) but every transaction is `BEGIN IMMEDIATE`, so the
    compare-and-set on `lease_until` is serialized anyway.
    """
    free = or_(col(Feed.lease_until).is_(None), col(Feed.lease_until) < now)
    candidates = select(Feed.id).where(Feed.status != "gone", free)
    if due_only:
        candidates = candidates.where(Feed.next_check_at <= now)
    candidates = candidates.order_by(col(Feed.next_check_at)).with_for_update(skip_locked=True)
    if limit is not None:
        candidates = candidates.limit(limit)
    claimed = session.exec(
        update(Feed)
        .where(col(Feed.id).in_(candidates.scalar_subquery()))
        .values(lease_until=lease_until, lease_owner=owner)
        .returning(*_SNAPSHOT_COLUMNS)
    )
    return sorted((FeedSnapshot(*row) for row in claimed.all()), key=lambda f: f.id)


def release_leases(session: Session) -> None:
    """Drop every lease: only safe when this process is the database's only poller (SQLite)."""
    session.exec(update(Feed).values(lease_until=None, lease_owner=None))
    session.exec(update(Chat).values(lease_until=None, lease_owner=None))


def stored_items(session: Session, *, feed_id: int, keys: Iterable[str]) -> dict[str, StoredItem]:
    wanted = list(keys)
    result: dict[str, StoredItem] = {}
    for chunk_start in range(0, len(wanted), 500):
        chunk = wanted[chunk_start : chunk_start + 500]
        columns = (Item.key, Item.title, Item.text, Item.fingerprint, Item.content_hash)
        rows = session.execute(
            sa_select(*(col(c) for c in columns)).where(
                col(Item.feed_id) == feed_id, col(Item.key).in_(chunk)
            )
        ).all()
        for key, title, text, fp, content_hash in rows:
            result[key] = StoredItem(key, title, text, fp, content_hash)
    return result


def save_items(
    session: Session,
    *,
    feed_id: int,
    parsed: ParsedFeed,
    detection: Detection,
    stored: Mapping[str, StoredItem],
    now: datetime,
) -> dict[str, int]:
    """Insert new items, rewrite edited ones, touch unchanged ones; return the changed items'
    ids. Core statements, not ORM objects: most items of a poll only need `last_seen_at`."""
    changed = {change.item.key for change in detection.changes}
    fresh: list[dict[str, object]] = []
    seen: list[str] = []
    tally: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    edited = [key for key in changed if key in stored]
    if edited:  # an edit may change an item's categories: take its old ones out of the count
        _tally(tally, spelling, _categories_of(session, feed_id, edited), -1)
    for item in parsed.items:
        values: dict[str, object] = {
            "link": item.link,
            "title": item.title,
            "author": item.author,
            "published_at": item.published,
            "categories": list(item.categories),
            "text": item.text,
            "fingerprint": item.fingerprint,
            "content_hash": item.content_hash,
            "last_changed_at": now,
            "last_seen_at": now,
        }
        old = stored.get(item.key)
        if old is None:
            fresh.append({"feed_id": feed_id, "key": item.key, "first_seen_at": now, **values})
            _tally(tally, spelling, [item.categories], +1)
            continue
        where = (col(Item.feed_id) == feed_id, col(Item.key) == item.key)
        if item.key in changed:
            session.exec(update(Item).where(*where).values(**values))
            _tally(tally, spelling, [item.categories], +1)
        elif old.content_hash != item.content_hash:  # markup moved, text did not
            session.exec(
                update(Item).where(*where).values(content_hash=item.content_hash, last_seen_at=now)
            )
        else:
            seen.append(item.key)
    for start in range(0, len(seen), 500):
        session.exec(
            update(Item)
            .where(col(Item.feed_id) == feed_id, col(Item.key).in_(seen[start : start + 500]))
            .values(last_seen_at=now)
        )
    if fresh:
        session.execute(insert(Item), fresh)
    _count_categories(session, feed_id, tally, spelling)
    if not changed:
        return {}
    rows = session.exec(
        select(Item.key, Item.id).where(Item.feed_id == feed_id, col(Item.key).in_(list(changed)))
    ).all()
    return {key: item_id for key, item_id in rows if item_id is not None}


def prune_items(session: Session, *, feed_id: int, unseen_since: datetime) -> int:
    """Forget items absent from the feed for a long time (their deliveries go with them)."""
    old_ids = select(Item.id).where(Item.feed_id == feed_id, Item.last_seen_at < unseen_since)
    gone = session.exec(
        select(Item.categories).where(Item.feed_id == feed_id, Item.last_seen_at < unseen_since)
    ).all()
    if gone:
        tally: Counter[str] = Counter()
        spelling: dict[str, str] = {}
        _tally(tally, spelling, gone, -1)
        _count_categories(session, feed_id, tally, spelling)
    session.exec(delete(Delivery).where(col(Delivery.item_id).in_(old_ids)))
    result = session.exec(
        delete(Item).where(col(Item.feed_id) == feed_id, col(Item.last_seen_at) < unseen_since)
    )
    return int(result.rowcount or 0)


def category_counts(session: Session, *, feed_id: int) -> list[tuple[str, int]]:
    """Categories seen on a feed, most frequent first (ties alphabetical)."""
    rows = session.exec(
        select(FeedCategory.shown, FeedCategory.count).where(
            FeedCategory.feed_id == feed_id, FeedCategory.count > 0
        )
    ).all()
    return sorted(((shown, count) for shown, count in rows), key=lambda p: (-p[1], p[0]))


def _categories_of(session: Session, feed_id: int, keys: list[str]) -> list[list[str]]:
    query = select(Item.categories).where(Item.feed_id == feed_id, col(Item.key).in_(keys))
    return [list(categories or ()) for categories in session.exec(query).all()]


def _tally(
    tally: Counter[str],
    spelling: dict[str, str],
    category_lists: Iterable[Iterable[str]],
    sign: int,
) -> None:
    for categories in category_lists:
        for folded, shown in {c.casefold(): c for c in categories or ()}.items():
            spelling.setdefault(folded, shown)
            tally[folded] += sign


def _count_categories(
    session: Session, feed_id: int, tally: Counter[str], spelling: dict[str, str]
) -> None:
    """Apply +/- counts to the feed's category rows (only the names that changed)."""
    deltas = {name: n for name, n in tally.items() if n}
    if not deltas:
        return
    existing = {
        row.name: row
        for row in session.exec(
            select(FeedCategory).where(
                FeedCategory.feed_id == feed_id, col(FeedCategory.name).in_(list(deltas))
            )
        ).all()
    }
    for name, delta in deltas.items():
        row = existing.get(name)
        if row is None:
            row = FeedCategory(feed_id=feed_id, name=name[:100], shown=spelling[name][:100])
        row.count = max(row.count + delta, 0)
        session.add(row)
    session.flush()


# --- chats and subscriptions -------------------------------------------------------------------


def upsert_chat(
    session: Session,
    *,
    chat_id: int,
    type_: str,
    title: str,
    language: str | None = None,
    chosen: bool = False,
) -> Chat:
    """Create or refresh a chat. A client's `language` fills an unset one; a `chosen` one wins."""
    chat = session.get(Chat, chat_id)
    if chat is None:
        chat = Chat(id=chat_id, type=type_, title=title[:256], language=language)
    else:
        chat.type, chat.title, chat.active = type_, title[:256], True
        chat.language = language if chosen else (chat.language or language)
    session.add(chat)
    session.flush()
    return chat


def chat_language(session: Session, *, chat_id: int) -> tuple[bool, str | None]:
    """(the chat is known, its language): a known chat without one has not chosen yet."""
    chat = session.get(Chat, chat_id)
    return (chat is not None, chat.language if chat is not None else None)


def set_chat_active(session: Session, *, chat_id: int, active: bool) -> None:
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.active = active
        session.add(chat)
    if not active:
        session.exec(
            update(Delivery)
            .where(col(Delivery.chat_id) == chat_id, col(Delivery.status) == "pending")
            .values(status=DeliveryStatus.CANCELLED, last_error="chat is no longer reachable")
        )


def migrate_chat(session: Session, *, old_id: int, new_id: int) -> None:
    """A group became a supergroup: everything moves to the new id, pending messages included,
    and so does every chat setting (a paused group stays paused, its zone and language stay)."""
    old = session.get(Chat, old_id)
    new = session.get(Chat, new_id)
    if new is None:
        new = Chat(id=new_id, type="supergroup", title=old.title if old else "", active=True)
    if old is not None:  # the old chat's settings win over a row made for the new id meanwhile
        new.paused, new.timezone, new.language = old.paused, old.timezone, old.language
        new.title = new.title or old.title
    session.add(new)
    session.flush()
    taken = set(
        session.exec(select(Subscription.feed_id).where(Subscription.chat_id == new_id)).all()
    )
    for sub in session.exec(select(Subscription).where(Subscription.chat_id == old_id)).all():
        if sub.feed_id in taken:
            session.delete(sub)
        else:
            sub.chat_id = new_id
            session.add(sub)
    session.exec(update(Delivery).where(col(Delivery.chat_id) == old_id).values(chat_id=new_id))
    if old is not None:
        old.active = False
        session.add(old)


def subscribe(
    session: Session, *, chat_id: int, feed_id: int, thread_id: int | None = None
) -> bool:
    """Subscribe (into a forum topic when `thread_id` is given); False when it already was."""
    if get_subscription(session, chat_id=chat_id, feed_id=feed_id) is not None:
        return False
    session.add(Subscription(chat_id=chat_id, feed_id=feed_id, thread_id=thread_id))
    session.flush()
    return True


def unsubscribe(session: Session, *, chat_id: int, feed_id: int | None) -> int:
    """Remove one subscription, or all of a chat's when `feed_id` is None; return how many."""
    query = select(Subscription).where(Subscription.chat_id == chat_id)
    if feed_id is not None:
        query = query.where(Subscription.feed_id == feed_id)
    subs = session.exec(query).all()
    for sub in subs:
        session.delete(sub)
    cancel_queued(session, chat_id=chat_id, feed_id=feed_id)
    return len(subs)


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


def count_subscriptions(session: Session, *, chat_id: int) -> int:
    query = select(func.count()).select_from(Subscription).where(Subscription.chat_id == chat_id)
    return int(session.exec(query).one())


def chat_subscriptions(session: Session, *, chat_id: int) -> list[tuple[Subscription, Feed]]:
    rows = session.exec(
        select(Subscription, Feed)
        .join(Feed, col(Feed.id) == col(Subscription.feed_id))
        .where(Subscription.chat_id == chat_id)
        .order_by(Feed.slug)
    ).all()
    return [(sub, feed) for sub, feed in rows]


def update_subscription(session: Session, *, chat_id: int, feed_id: int, **values: object) -> bool:
    """Change settings of one subscription; False when the chat is not subscribed."""
    sub = get_subscription(session, chat_id=chat_id, feed_id=feed_id)
    if sub is None:
        return False
    for name, value in values.items():
        setattr(sub, name, value)
    session.add(sub)
    return True


def set_filter(session: Session, *, chat_id: int, feed_id: int, flt: CategoryFilter) -> bool:
    return update_subscription(
        session,
        chat_id=chat_id,
        feed_id=feed_id,
        include=list(flt.include),
        exclude=list(flt.exclude),
    )


def feed_audience(session: Session, *, feed_id: int) -> list[Audience]:
    """Active, unpaused chats subscribed to a feed, with their filters and settings."""
    rows = session.exec(
        select(Subscription, Chat.language)
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
        .where(
            Subscription.feed_id == feed_id,
            col(Chat.active).is_(True),
            col(Chat.paused).is_(False),
        )
        .order_by(col(Subscription.chat_id))
    ).all()
    return [audience(sub, language) for sub, language in rows]


def audience(sub: Subscription, language: str | None = None) -> Audience:
    return Audience(
        chat_id=sub.chat_id,
        categories=CategoryFilter(
            include=tuple(sub.include or ()), exclude=tuple(sub.exclude or ())
        ),
        keywords=KeywordFilter(
            include=tuple(sub.keywords or ()), exclude=tuple(sub.without_keywords or ())
        ),
        edits=sub.edits,
        preview=sub.preview,
        thread_id=sub.thread_id,
        digest=sub.digest is not None,
        language=language,
    )


def get_subscription(session: Session, *, chat_id: int, feed_id: int) -> Subscription | None:
    return session.exec(
        select(Subscription).where(Subscription.chat_id == chat_id, Subscription.feed_id == feed_id)
    ).first()


def is_paused(session: Session, *, chat_id: int) -> bool:
    chat = session.get(Chat, chat_id)
    return chat is not None and chat.paused


def latest_items(session: Session, *, feed_id: int, limit: int) -> list[Item]:
    """The newest items of a feed (by publication, then by when they were first seen)."""
    return list(
        session.exec(
            select(Item)
            .where(Item.feed_id == feed_id)
            .order_by(col(Item.published_at).desc(), col(Item.first_seen_at).desc())
            .limit(limit)
        ).all()
    )


def delivered_item_ids(session: Session, *, chat_id: int, item_ids: list[int]) -> set[int]:
    """Items this chat already has (or is about to get) a message for."""
    rows = session.exec(
        select(Delivery.item_id).where(
            Delivery.chat_id == chat_id, col(Delivery.item_id).in_(item_ids)
        )
    ).all()
    return set(rows)


def set_paused(session: Session, *, chat_id: int, paused: bool) -> None:
    """Pausing also cancels what is queued: a paused chat gets nothing until it resumes."""
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.paused = paused
        session.add(chat)
    if paused:
        cancel_queued(session, chat_id=chat_id)


# --- deliveries ------------------------------------------------------------------------------


def enqueue(session: Session, *, deliveries: Sequence[Delivery]) -> None:
    session.add_all(deliveries)


def claim_chats(
    session: Session, *, now: datetime, owner: str, lease_until: datetime, limit: int
) -> list[int]:
    """Lease chats that have a delivery due; a leased chat is served by one worker, in order."""
    due = select(Delivery.chat_id).where(
        Delivery.status == DeliveryStatus.PENDING, Delivery.next_attempt_at <= now
    )
    oldest = (
        select(func.min(Delivery.id))
        .where(col(Delivery.chat_id) == col(Chat.id), Delivery.status == DeliveryStatus.PENDING)
        .scalar_subquery()
    )
    candidates = (
        select(Chat.id)
        .where(
            col(Chat.id).in_(due),
            col(Chat.paused).is_(False),
            or_(col(Chat.lease_until).is_(None), col(Chat.lease_until) < now),
        )
        .order_by(oldest)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    claimed = session.exec(
        update(Chat)
        .where(col(Chat.id).in_(candidates.scalar_subquery()))
        .values(lease_until=lease_until, lease_owner=owner)
        .returning(col(Chat.id))
    )
    return [int(chat_id) for (chat_id,) in claimed.all()]


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


def pending_by_chat(session: Session, *, chat_ids: list[int]) -> dict[int, list[Delivery]]:
    """Pending deliveries of these chats, each chat's oldest first."""
    rows = session.exec(
        select(Delivery)
        .where(col(Delivery.chat_id).in_(chat_ids), Delivery.status == DeliveryStatus.PENDING)
        .order_by(col(Delivery.id))
    ).all()
    queues: dict[int, list[Delivery]] = {}
    for delivery in rows:
        queues.setdefault(delivery.chat_id, []).append(delivery)
    return queues


def pending_count(session: Session) -> int:
    query = select(func.count()).select_from(Delivery).where(Delivery.status == "pending")
    return int(session.exec(query).one())


def next_due_delivery(session: Session) -> datetime | None:
    query = select(func.min(Delivery.next_attempt_at)).where(Delivery.status == "pending")
    return session.exec(query).one()


# --- state -----------------------------------------------------------------------------------


def set_state(session: Session, *, key: str, value: str, now: datetime) -> None:
    row = session.get(State, key) or State(key=key)
    row.value, row.updated_at = value, now
    session.add(row)


def get_state(session: Session, *, key: str) -> State | None:
    return session.get(State, key)


# Built once: marking a message sent is the statement a fan-out runs once per message.
MARK_SENT = (
    update(Delivery)
    .where(col(Delivery.id) == bindparam("delivery_id"))
    .where(col(Delivery.status) == DeliveryStatus.PENDING)
    .values(status=DeliveryStatus.SENT, sent_at=bindparam("sent_at"))
)


def mark_sent(connection: Connection, *, delivery_id: int, now: datetime) -> bool:
    """Takes a Core connection, not a session: no ORM work on the per-message path. False when
    the row was no longer pending (cancelled by /pause or /unsubscribe while in flight)."""
    result = connection.execute(MARK_SENT, {"delivery_id": delivery_id, "sent_at": now})
    return bool(result.rowcount)


def mark_retry(
    session: Session, *, delivery_id: int, error: str, retry_at: datetime, give_up: bool
) -> None:
    session.exec(
        update(Delivery)
        .where(col(Delivery.id) == delivery_id)
        .values(
            attempts=Delivery.attempts + 1,
            last_error=error[:1000],
            next_attempt_at=retry_at,
            status=DeliveryStatus.FAILED if give_up else DeliveryStatus.PENDING,
        )
    )


def mark_failed(session: Session, *, delivery_id: int, error: str) -> None:
    session.exec(
        update(Delivery)
        .where(col(Delivery.id) == delivery_id)
        .values(status=DeliveryStatus.FAILED, last_error=error[:1000])
    )
