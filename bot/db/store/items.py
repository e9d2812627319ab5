"""Items: what each feed has published, and per-feed category counts kept up to date."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.identity import identity_of
from bot.core.model import Detection, Identity, ParsedFeed, ParsedItem, StoredItem
from bot.core.text import FINGERPRINT_VERSION
from bot.db.tables import Delivery, FeedCategory, Item

_STORED = (
    Item.key,
    Item.title,
    Item.text,
    Item.fingerprint,
    Item.content_hash,
    Item.fingerprint_version,
    Item.link,
    Item.published_at,
    Item.canon_key,
    Item.canon_link,
    Item.canon_title,
    Item.full,
    Item.excerpt_hash,
    Item.volatile,
)


def _stored(row: Sequence[Any]) -> StoredItem:
    key, title, text, fp, content_hash, version, link, published, ck, cl, ct, full, ex, vol = row
    return StoredItem(
        key,
        title,
        text,
        fp,
        content_hash,
        version,
        link=link,
        published=published,
        identity=Identity(ck or "", cl, ct),
        full=full,
        excerpt_hash=ex,
        volatile=tuple(vol or ()),
    )


def stored_items(session: Session, *, feed_id: int, keys: Iterable[str]) -> dict[str, StoredItem]:
    wanted = list(keys)
    result: dict[str, StoredItem] = {}
    for chunk_start in range(0, len(wanted), 500):
        chunk = wanted[chunk_start : chunk_start + 500]
        rows = session.execute(
            sa_select(*(col(c) for c in _STORED)).where(
                col(Item.feed_id) == feed_id, col(Item.key).in_(chunk)
            )
        ).all()
        for row in rows:
            result[row[0]] = _stored(row)
    return result


def identity_candidates(
    session: Session, *, feed_id: int, identities: Sequence[Identity], present: Iterable[str]
) -> list[StoredItem]:
    """Stored items of the feed, absent from the document, that share an identity hash with
    one of its unseen entries (core/identity.py decides which really are the same post)."""
    keys = {i.canon_key for i in identities if i.canon_key}
    links = {i.canon_link for i in identities if i.canon_link}
    titles = {i.canon_title for i in identities if i.canon_title}
    if not (keys or links or titles):
        return []
    matches = []
    for column, values in ((Item.canon_key, keys), (Item.canon_link, links),
                           (Item.canon_title, titles)):  # fmt: skip
        for start in range(0, len(values), 500):
            matches.append(col(column).in_(sorted(values)[start : start + 500]))
    rows = session.execute(
        sa_select(*(col(c) for c in _STORED)).where(col(Item.feed_id) == feed_id, or_(*matches))
    ).all()
    skip = set(present)
    return [_stored(row) for row in rows if row[0] not in skip]


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


def save_items(
    session: Session,
    *,
    feed_id: int,
    parsed: ParsedFeed,
    detection: Detection,
    stored: Mapping[str, StoredItem],
    now: datetime,
) -> dict[str, int]:
    """Insert new items, rewrite edited and re-baselined ones, touch unchanged ones; return the
    changed items' ids. Core statements, not ORM objects: most items of a poll only need
    `last_seen_at`."""
    changed = {change.item.key for change in detection.changes}
    fresh: list[dict[str, object]] = []
    seen: list[str] = []
    tally: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    edited = [key for key in changed if key in stored]
    if edited:  # an edit may change an item's categories: take its old ones out of the count
        _tally(tally, spelling, _categories_of(session, feed_id, edited), -1)
    for item in parsed.items:
        old = stored.get(item.key)
        ident = (
            old.identity  # unchanged parts, unchanged identity (computing it is not free)
            if old is not None
            and old.identity is not None
            and (old.link, old.title, old.published) == (item.link, item.title, item.published)
            else identity_of(item.key, item.link, item.title, item.published)
        )
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
            "last_changed_at": now,
            "last_seen_at": now,
        }
        if item.key in detection.places:
            values["volatile"] = list(detection.places[item.key])
        if old is None:
            fresh.append({"feed_id": feed_id, "key": item.key, "first_seen_at": now, **values})
            _tally(tally, spelling, [item.categories], +1)
            continue
        where = (col(Item.feed_id) == feed_id, col(Item.key) == item.key)
        if item.key in changed:
            session.exec(update(Item).where(*where).values(**values))
            _tally(tally, spelling, [item.categories], +1)
        elif item.key in detection.absorbed or old.identity != ident:  # (None if re-keyed)
            # Not an edit worth telling (counters, template, excerpt switch, fingerprint
            # version), or re-keyed: the row takes the new text and identity silently.
            values.pop("last_changed_at")
            session.exec(update(Item).where(*where).values(**values))
        elif old.content_hash != item.content_hash:  # markup moved, text did not
            session.exec(
                update(Item)
                .where(*where)
                .values(
                    content_hash=item.content_hash,
                    image=item.image,
                    full=item.full,
                    excerpt_hash=item.excerpt_hash,
                    last_seen_at=now,
                )
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
    if not gone:  # the usual case: one indexed read, no deletes
        return 0
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


def latest_items(session: Session, *, feed_id: int, limit: int) -> list[tuple[int, ParsedItem]]:
    """The newest items of a feed (by publication, then by when they were first seen), as
    (item id, item) pairs."""
    rows = session.exec(
        select(Item)
        .where(Item.feed_id == feed_id)
        .order_by(col(Item.published_at).desc(), col(Item.first_seen_at).desc())
        .limit(limit)
    ).all()
    return [(row.id or 0, as_parsed(row)) for row in rows]


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
