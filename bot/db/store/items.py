"""Items: what each feed has published, and per-feed category counts kept up to date."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, bindparam, delete, func, insert, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.messages.fulltext import with_article
from bot.core.polls.plan import ItemWrite, WriteKind
from bot.core.text import FINGERPRINT_VERSION
from bot.core.types import Identity, ParsedItem, StoredItem
from bot.db.store.articles import articles_of
from bot.db.store.search import record_versions
from bot.db.store.statements import columns, run, table
from bot.db.tables import Delivery, DeliveryStatus, FeedCategory, Item

log = logging.getLogger(__name__)
_ITEM = table(Item)
_DELIVERY = table(Delivery)
# An item some chat's message still waits on (to be sent, or held for a digest or quiet hours):
# pruning keeps it, or the message would go with it unseen.
_WAITING = (
    sa_select(_DELIVERY.c.id)
    .where(
        _DELIVERY.c.item_id == _ITEM.c.id,
        _DELIVERY.c.status.in_((DeliveryStatus.PENDING, DeliveryStatus.HELD)),
    )
    .correlate_except(_DELIVERY)  # the item outside; its own deliveries inside, always
    .exists()
)
_STORED = columns(
    Item,
    "key title text fingerprint content_hash fingerprint_version link published_at canon_key"
    " canon_link canon_title full excerpt_hash volatile categories raw_hash",
)

# The statements every changed feed's poll runs, built once (see statements.py).
_CATEGORY = table(FeedCategory)
_OF_FEED = _ITEM.c.feed_id == bindparam("b_feed")
_KEYS: BindParameter[list[str]] = bindparam("b_keys", expanding=True)
_SELECT_STORED = sa_select(*_STORED).where(_OF_FEED, _ITEM.c.key.in_(_KEYS))
_CANDIDATES = sa_select(*_STORED).where(
    _OF_FEED,
    or_(
        _ITEM.c.canon_key.in_(bindparam("b_ck", expanding=True)),
        _ITEM.c.canon_link.in_(bindparam("b_cl", expanding=True)),
        _ITEM.c.canon_title.in_(bindparam("b_ct", expanding=True)),
    ),
)
_UPDATE_ITEM = update(_ITEM).where(_OF_FEED, _ITEM.c.key == bindparam("b_key"))
_TOUCH_ITEMS = (
    update(_ITEM).where(_OF_FEED, _ITEM.c.key.in_(_KEYS)).values(last_seen_at=bindparam("b_now"))
)
_INSERT_ITEMS = insert(_ITEM)
_ITEM_IDS = sa_select(_ITEM.c.key, _ITEM.c.id).where(_OF_FEED, _ITEM.c.key.in_(_KEYS))
_GONE_CATEGORIES = sa_select(_ITEM.c.categories).where(
    _OF_FEED, _ITEM.c.last_seen_at < bindparam("b_since"), ~_WAITING
)
# A feed's stored items, and how many of them are absent since `b_since`: one read of its rows
# tells whether a prune has anything to do (it rarely has).
_COUNT_ITEMS = sa_select(
    func.count(), func.count().filter(_ITEM.c.last_seen_at < bindparam("b_since"))
).where(_OF_FEED)
# Past the newest `keep` (latest seen, then latest first seen), those absent from this poll.
_NEWEST = (
    sa_select(_ITEM.c.id)
    .where(_OF_FEED)
    .order_by(_ITEM.c.last_seen_at.desc(), _ITEM.c.first_seen_at.desc(), _ITEM.c.id.desc())
    .limit(bindparam("b_keep"))
)
_SURPLUS = (
    sa_select(_ITEM.c.id, _ITEM.c.categories, _WAITING)
    .where(
        _OF_FEED,
        _ITEM.c.last_seen_at < bindparam("b_seen"),
        _ITEM.c.id.not_in(_NEWEST.scalar_subquery()),
    )
    .order_by(_ITEM.c.last_seen_at.desc(), _ITEM.c.first_seen_at.desc(), _ITEM.c.id.desc())
)
_WAITING_COUNT = sa_select(func.count()).where(
    _DELIVERY.c.item_id.in_(bindparam("b_ids", expanding=True)),
    _DELIVERY.c.status.in_((DeliveryStatus.PENDING, DeliveryStatus.HELD)),
)
_NAMES: BindParameter[list[str]] = bindparam("b_names", expanding=True)
_COUNTS = sa_select(_CATEGORY.c.name, _CATEGORY.c.count).where(
    _CATEGORY.c.feed_id == bindparam("b_feed"), _CATEGORY.c.name.in_(_NAMES)
)
_SET_COUNT = (
    update(_CATEGORY)
    .where(_CATEGORY.c.feed_id == bindparam("b_feed"), _CATEGORY.c.name == bindparam("b_name"))
    .values(count=bindparam("b_count"))
)
_INSERT_CATEGORIES = insert(_CATEGORY)
# The writes that make or change a post's searchable version (store/search.py).
_VERSIONED = (WriteKind.INSERT, WriteKind.EDIT, WriteKind.REWRITE)


def _stored(row: Sequence[Any]) -> StoredItem:
    key, title, text, fp, hashed, version, link, published, ck, cl, ct, full, ex, vol, cats, _ = row
    return StoredItem(
        key,
        title,
        text,
        fp,
        hashed,
        version,
        link=link,
        published=published,
        identity=Identity(ck or "", cl, ct),
        full=full,
        excerpt_hash=ex,
        volatile=tuple(vol or ()),
        categories=tuple(cats or ()),
        raw_hash=row[15],
    )


def stored_items(session: Session, *, feed_id: int, keys: Iterable[str]) -> dict[str, StoredItem]:
    wanted = list(keys)
    result: dict[str, StoredItem] = {}
    for chunk_start in range(0, len(wanted), 500):
        chunk = wanted[chunk_start : chunk_start + 500]
        for row in run(session, _SELECT_STORED, {"b_feed": feed_id, "b_keys": chunk}):
            result[row[0]] = _stored(row)
    return result


def identity_candidates(
    session: Session, *, feed_id: int, identities: Sequence[Identity], present: Iterable[str]
) -> list[StoredItem]:
    """Stored items of the feed, absent from the document, that share an identity hash with
    one of its unseen entries (core/detection/identity.py decides which really are the same
    post)."""
    keys = {i.canon_key for i in identities if i.canon_key}
    links = {i.canon_link for i in identities if i.canon_link}
    titles = {i.canon_title for i in identities if i.canon_title}
    if not (keys or links or titles):
        return []
    ordered = [sorted(keys), sorted(links), sorted(titles)]
    skip = set(present)
    found: dict[str, StoredItem] = {}
    for start in range(0, max(map(len, ordered)), 500):  # bounded bind parameters
        chunks = [values[start : start + 500] for values in ordered]
        params = {"b_feed": feed_id, "b_ck": chunks[0], "b_cl": chunks[1], "b_ct": chunks[2]}
        for row in run(session, _CANDIDATES, params):
            if row[0] not in skip:
                found[row[0]] = _stored(row)
    return list(found.values())


def newest_stored(session: Session, *, feed_id: int) -> tuple[bool, datetime | None]:
    """Whether the feed has stored items, and the newest publication date among them."""
    count, newest = session.execute(
        sa_select(func.count(col(Item.id)), func.max(col(Item.published_at))).where(
            col(Item.feed_id) == feed_id
        )
    ).one()
    return bool(count), newest


def rekey_items(session: Session, *, feed_id: int, moves: Sequence[tuple[str, str]]) -> None:
    """Give stored items their new keys (old key → new key): the same posts, re-keyed."""
    for old_key, new_key in moves:
        session.exec(
            update(Item)
            .where(col(Item.feed_id) == feed_id, col(Item.key) == old_key)
            .values(key=new_key)
        )


def write_items(
    session: Session, *, feed_id: int, writes: Sequence[ItemWrite], now: datetime
) -> None:
    """Execute a poll plan's item writes (`core/polls/plan.py` decided each one's kind). Core
    statements, not ORM objects: most items of a poll only need `last_seen_at`."""
    fresh: list[dict[str, object]] = []
    seen: list[str] = []
    tally: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for write in writes:
        item, where = write.item, {"b_feed": feed_id, "b_key": write.item.key}
        if write.kind is WriteKind.SEEN and not write.refresh:
            seen.append(item.key)
        elif write.kind in (WriteKind.MARKUP, WriteKind.SEEN):
            # New bytes, the same text: the row takes every field the bytes give (and their
            # hash), so that it stands for them when they come again (core/feeds/changed.py).
            values = _values(write, now)
            values.pop("last_changed_at")
            run(session, _UPDATE_ITEM, {**values, **where})
            _tally(tally, spelling, [write.was], -1)
            _tally(tally, spelling, [item.categories], +1)
        else:
            values = _values(write, now)
            if write.kind is WriteKind.INSERT:
                fresh.append({"feed_id": feed_id, "key": item.key, "first_seen_at": now, **values})
                _tally(tally, spelling, [item.categories], +1)
            else:  # an edit, or a rewrite: the row takes the new text and identity silently
                if write.kind is WriteKind.REWRITE:
                    values.pop("last_changed_at")
                run(session, _UPDATE_ITEM, {**values, **where})
                _tally(tally, spelling, [write.was], -1)  # its categories may have changed
                _tally(tally, spelling, [item.categories], +1)
    for start in range(0, len(seen), 500):
        chunk = seen[start : start + 500]
        run(session, _TOUCH_ITEMS, {"b_feed": feed_id, "b_keys": chunk, "b_now": now})
    if fresh:
        run(session, _INSERT_ITEMS, fresh)
    _count_categories(session, feed_id, tally, spelling)
    versioned = [w for w in writes if w.kind in _VERSIONED]
    if versioned:
        ids = item_ids(session, feed_id=feed_id, keys=[w.item.key for w in versioned])
        record_versions(session, feed_id=feed_id, writes=versioned, ids=ids, now=now)


def _values(write: ItemWrite, now: datetime) -> dict[str, object]:
    item, ident = write.item, write.identity
    values: dict[str, object] = {
        "link": item.link,
        "title": item.title,
        "author": item.author,
        "published_at": item.published,
        "categories": list(item.categories),
        "text": item.text,
        "fingerprint": item.fingerprint,
        "fingerprint_version": FINGERPRINT_VERSION,
        "content_hash": item.content_hash,
        "image": item.image,
        "canon_key": ident.canon_key,
        "canon_link": ident.canon_link,
        "canon_title": ident.canon_title,
        "full": item.full,
        "excerpt_hash": item.excerpt_hash,
        "raw_hash": item.raw_hash,
        "last_changed_at": now,
        "last_seen_at": now,
    }
    if write.volatile is not None:
        values["volatile"] = list(write.volatile)
    return values


def item_ids(session: Session, *, feed_id: int, keys: Iterable[str]) -> dict[str, int]:
    """Row ids of the feed's items by key."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    rows = run(session, _ITEM_IDS, {"b_feed": feed_id, "b_keys": wanted})
    return {row.key: row.id for row in rows if row.id is not None}


def prune_items(
    session: Session,
    *,
    feed_id: int,
    unseen_since: datetime,
    keep: int | None = None,
    seen_at: datetime | None = None,
) -> int:
    """Forget items absent from the feed for a long time, and past the newest `keep` ones
    the oldest absent from this poll's document (`seen_at`): one feed can store only so much,
    however its items churn. Their deliveries and category counts go with them.

    An item a message still waits on (pending, or held for a digest or quiet hours) is kept
    until it goes, past `keep` by at most `keep` more (the newest of them); past that the
    oldest go with their messages and a warning says how many (never silently)."""
    counted = tuple(run(session, _COUNT_ITEMS, {"b_feed": feed_id, "b_since": unseen_since}).one())
    stored, absent = int(counted[0]), int(counted[1])
    forgotten = 0
    if absent:
        old = (col(Item.feed_id) == feed_id, col(Item.last_seen_at) < unseen_since, ~_WAITING)
        gone = run(session, _GONE_CATEGORIES, {"b_feed": feed_id, "b_since": unseen_since}).all()
        tally: Counter[str] = Counter()
        spelling: dict[str, str] = {}
        _tally(tally, spelling, [categories for (categories,) in gone], -1)
        _count_categories(session, feed_id, tally, spelling)
        session.exec(delete(Delivery).where(col(Delivery.item_id).in_(select(Item.id).where(*old))))
        forgotten = int(session.exec(delete(Item).where(*old)).rowcount or 0)
    if keep is None or seen_at is None or stored - forgotten <= keep:  # the usual case
        return forgotten
    params = {"b_feed": feed_id, "b_keep": keep, "b_seen": seen_at}
    surplus: list[Any] = list(run(session, _SURPLUS, params).all())  # newest first
    waiting = [row[0] for row in surplus if row[2]]
    spared = set(waiting[:keep])
    lost = waiting[keep:]
    gone_rows = [row for row in surplus if row[0] not in spared]
    ids = [row[0] for row in gone_rows]
    if lost:
        messages = sum(
            int(run(session, _WAITING_COUNT, {"b_ids": lost[n : n + 500]}).scalar_one())
            for n in range(0, len(lost), 500)
        )
        log.warning(
            "feed %d: %d waiting message(s) of %d post(s) dropped: more posts wait for their "
            "messages than MAX_ITEMS_PER_FEED (%d) keeps",
            feed_id,
            messages,
            len(lost),
            keep,
        )
    if ids:
        counts: Counter[str] = Counter()
        shown: dict[str, str] = {}
        _tally(counts, shown, [list(row[1] or ()) for row in gone_rows], -1)
        _count_categories(session, feed_id, counts, shown)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            session.exec(delete(Delivery).where(col(Delivery.item_id).in_(chunk)))
            session.exec(delete(Item).where(col(Item.id).in_(chunk)))
    return forgotten + len(ids)


def category_counts(session: Session, *, feed_id: int) -> list[tuple[str, int]]:
    """Categories seen on a feed, most frequent first (ties alphabetical)."""
    rows = session.exec(
        select(FeedCategory.shown, FeedCategory.count).where(
            FeedCategory.feed_id == feed_id, FeedCategory.count > 0
        )
    ).all()
    return sorted(((shown, count) for shown, count in rows), key=lambda p: (-p[1], p[0]))


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
    by_name: Counter[str] = Counter()  # the column holds 100 characters
    shown: dict[str, str] = {}
    for name, delta in deltas.items():
        by_name[name[:100]] += delta
        shown.setdefault(name[:100], spelling[name][:100])
    counts = run(session, _COUNTS, {"b_feed": feed_id, "b_names": sorted(by_name)})
    existing = {row["name"]: row["count"] for row in counts.mappings()}
    updates, inserts = [], []
    for name, delta in by_name.items():
        count = max(existing.get(name, 0) + delta, 0)
        if name in existing:
            updates.append({"b_feed": feed_id, "b_name": name, "b_count": count})
        else:
            inserts.append({"feed_id": feed_id, "name": name, "shown": shown[name], "count": count})
    if updates:
        run(session, _SET_COUNT, updates)
    if inserts:
        run(session, _INSERT_CATEGORIES, inserts)


def latest_items(session: Session, *, feed_id: int, limit: int) -> list[tuple[int, ParsedItem]]:
    """The newest items of a feed (by publication, then by when they were first seen), as
    (item id, item) pairs."""
    rows = session.exec(
        select(Item)
        .where(Item.feed_id == feed_id)
        .order_by(col(Item.published_at).desc(), col(Item.first_seen_at).desc())
        .limit(limit)
    ).all()
    found = articles_of(session, item_ids=[row.id or 0 for row in rows])
    return [
        (
            row.id or 0,
            with_article(as_parsed(row), found[row.id]) if row.id in found else as_parsed(row),
        )
        for row in rows
    ]


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
        image=item.image,
    )
