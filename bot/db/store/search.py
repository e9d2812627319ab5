"""Every version of each post, and `/search` over them: FTS5 on SQLite, a `tsvector` with a
GIN index on PostgreSQL (migration 0031 builds both; `core/search` gives both the same terms).

Versions are written with the items (`items.write_items` calls `record_versions`): a new post's
first version and one more per edit (at most `MAX_VERSIONS` kept). A silent rewrite (an
absorbed change: a counter, typography, a return to a version seen recently) adds a "silent"
version after the first or an edit's, and replaces it when it is the newest: what a chat could
have read stays findable, and a ticking counter cannot grow the table.

On SQLite a poll's write can leave its versions' FTS5 rows for after its commit
(`DEFERRED` in the session's `info`, the poller's `SearchIndexer`): tokenising and FTS5's
own writes then run outside the write lock, once for a batch of polls. A version without
its row has no `search_key`, so `index_versions()` with no ids finds every one a crash left
behind (a process's first index pass does that).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Executable,
    bindparam,
    column,
    delete,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy import table as sa_table
from sqlmodel import Session

from bot.core.polls.plan import ItemWrite, WriteKind
from bot.core.search.match import fts5_in_feeds, fts5_rowid, fts5_since, tsquery
from bot.core.search.query import SearchQuery
from bot.core.search.snippet import Found
from bot.core.search.terms import index_text
from bot.db.store.statements import run, table
from bot.db.tables import Feed, Item, ItemVersion

DEFERRED = "feedwatch_search_later"  # session.info: ids of versions to index after commit
MAX_VERSIONS = 10  # per post; older ones are forgotten when an edit adds one
MAX_RESULTS = 10
# Versions read, tokenised and indexed at a time. A first poll of 500 feeds leaves 5,000
# versions to index; read at once, their texts and terms were 80 MB, the bot's peak memory.
INDEX_BATCH = 250
_VERSIONED = (WriteKind.INSERT, WriteKind.EDIT, WriteKind.REWRITE)

_V = table(ItemVersion)
# SQLite only: rowid = `item_version.search_key` (the post's date first), terms, feed id.
_SEARCH = sa_table(
    "item_search",
    column("rowid"),
    column("terms"),
    column("feed"),
    column("version"),
    column("item"),
)
_SIMPLE: ColumnElement[str] = literal_column("'simple'")
_LAST_IDS = (
    select(func.max(_V.c.id))
    .where(_V.c.item_id.in_(bindparam("b_items", expanding=True)))
    .group_by(_V.c.item_id)
)
_NEWEST = select(_V.c.item_id, _V.c.id, _V.c.silent, _V.c.title, _V.c.text, _V.c.search_key).where(
    _V.c.id.in_(_LAST_IDS.scalar_subquery())
)
_SET_VERSION = (
    update(_V)
    .where(_V.c.id == bindparam("b_id"))
    .values(title=bindparam("b_title"), text=bindparam("b_text"), posted=bindparam("b_posted"))
)
_SET_VERSION_PG = _SET_VERSION.values(terms=func.to_tsvector(_SIMPLE, bindparam("b_terms")))
_FTS_ADD = insert(_SEARCH)
_FTS_GONE = delete(_SEARCH).where(_SEARCH.c.rowid == bindparam("b_key"))
_SET_KEY = update(_V).where(_V.c.id == bindparam("b_id")).values(search_key=bindparam("b_key"))
_UNKEY = update(_V).where(_V.c.id == bindparam("b_id")).values(search_key=None)
_UNINDEXED = select(_V.c.id, _V.c.item_id, _V.c.feed_id, _V.c.posted, _V.c.title, _V.c.text).where(
    _V.c.search_key.is_(None)
)
_PENDING = select(_V.c.id).where(_V.c.search_key.is_(None))  # the partial index's rows
_UNINDEXED_OF = _UNINDEXED.where(_V.c.id.in_(bindparam("b_ids", expanding=True)))
_KEEP = (
    select(_V.c.id)
    .where(_V.c.item_id == bindparam("b_item"))
    .order_by(_V.c.id.desc())
    .limit(MAX_VERSIONS)
)
_TRIM = delete(_V).where(
    _V.c.item_id == bindparam("b_item"), _V.c.id.not_in(_KEEP.scalar_subquery())
)


def _sqlite(session: Session) -> bool:
    return session.get_bind().dialect.name == "sqlite"


def _terms(sqlite: bool) -> ColumnElement[Any]:
    if sqlite:
        return literal_column("NULL")
    return func.to_tsvector(_SIMPLE, bindparam("b_terms"))


def record_versions(
    session: Session,
    *,
    feed_id: int,
    writes: Sequence[ItemWrite],
    ids: dict[str, int],
    now: datetime,
) -> None:
    """The versions a poll's item writes make (`ids`: the written items' row ids by key)."""
    sqlite = _sqlite(session)
    later: list[int] | None = session.info.get(DEFERRED) if sqlite else None
    terms = later is None  # the words are needed now (PostgreSQL, or SQLite indexing now)
    added: list[dict[str, Any]] = []
    grown: list[int] = []  # posts with one version more: trimmed to MAX_VERSIONS
    rewrites: dict[int, ItemWrite] = {}
    for write in writes:
        item_id = ids.get(write.item.key)
        if item_id is None or write.kind not in _VERSIONED:
            continue
        if write.kind is WriteKind.REWRITE:
            rewrites[item_id] = write
            continue
        added.append(_row(write, item_id, feed_id, now, terms=terms))
        if write.kind is WriteKind.EDIT:
            grown.append(item_id)
    if rewrites:
        params = {"b_items": sorted(rewrites)}
        newest: dict[int, tuple[Any, ...]] = {
            row[0]: tuple(row[1:]) for row in run(session, _NEWEST, params)
        }
        for item_id, write in rewrites.items():
            values = _row(write, item_id, feed_id, now, silent=True, terms=terms)
            if item_id not in newest:  # a post stored before its versions were: its first
                added.append(values)
                continue
            version_id, silent, title, text_, key = newest[item_id]
            if (title, text_) == (write.item.title, write.item.text):
                continue  # re-keyed, or a new identity: the same words
            if not silent:  # the first version or an edit's stays; the rewrite follows it
                added.append(values)
                grown.append(item_id)
                continue
            values["b_id"] = version_id
            run(session, _SET_VERSION if sqlite else _SET_VERSION_PG, values)
            if sqlite:
                run(session, _FTS_GONE, {"b_key": key})
                if later is None:
                    _index(session, [(version_id, values)])
                else:
                    run(session, _UNKEY, {"b_id": version_id})
                    later.append(version_id)
    if added:
        _add(session, added, sqlite, later)
    for item_id in grown:
        run(session, _TRIM, {"b_item": item_id})


def _row(
    write: ItemWrite,
    item_id: int,
    feed_id: int,
    now: datetime,
    *,
    silent: bool = False,
    terms: bool = True,
) -> dict[str, Any]:
    item = write.item
    return {
        "b_silent": silent,
        "b_item": item_id,
        "b_feed": feed_id,
        "b_title": item.title,
        "b_text": item.text,
        "b_at": now,
        "b_posted": item.published or now,
        "b_terms": index_text(item.title, item.text) if terms else None,
    }


def _insert(sqlite: bool) -> Executable:
    return (
        insert(_V)
        .values(
            item_id=bindparam("b_item"),
            feed_id=bindparam("b_feed"),
            posted=bindparam("b_posted"),
            title=bindparam("b_title"),
            text=bindparam("b_text"),
            silent=bindparam("b_silent"),
            created_at=bindparam("b_at"),
            terms=_terms(sqlite),
        )
        .returning(_V.c.id, sort_by_parameter_order=True)
    )


_INSERT = {True: _insert(True), False: _insert(False)}


def _add(
    session: Session, rows: list[dict[str, Any]], sqlite: bool, later: list[int] | None
) -> None:
    version_ids = [row[0] for row in run(session, _INSERT[sqlite], rows)]
    if later is not None:
        later.extend(version_ids)
    elif sqlite:
        _index(session, list(zip(version_ids, rows, strict=True)))


def index_versions(session: Session, ids: Sequence[int] | None = None) -> int:
    """SQLite: the FTS5 rows of versions written without them (`DEFERRED`): of `ids`, or of
    every such version (`None`: what a crash between a poll's commit and its indexing left).
    A version trimmed or rewritten meanwhile is skipped or indexed as it now reads. Returns
    how many were indexed; PostgreSQL writes its terms with the version: 0."""
    if not _sqlite(session) or (ids is not None and not ids):
        return 0
    wanted = [row[0] for row in run(session, _PENDING)] if ids is None else sorted(set(ids))
    done = 0
    for start in range(0, len(wanted), INDEX_BATCH):
        rows: list[Any] = list(
            run(session, _UNINDEXED_OF, {"b_ids": wanted[start : start + INDEX_BATCH]})
        )
        versions = [
            (
                row[0],
                {"b_item": row[1], "b_feed": row[2], "b_posted": _aware(row[3])}
                | {"b_terms": index_text(row[4], row[5])},
            )
            for row in rows
        ]
        if versions:
            _index(session, versions)
        done += len(versions)
    return done


def _aware(posted: datetime) -> datetime:
    """SQLite hands back naive UTC times; the FTS5 row numbers count from UTC."""
    return posted if posted.tzinfo else posted.replace(tzinfo=UTC)


def _index(session: Session, versions: list[tuple[int, dict[str, Any]]]) -> None:
    """SQLite: the versions' FTS5 rows, numbered by their post's date, and that number."""
    keyed = [(fts5_rowid(v["b_posted"], vid), vid, v) for vid, v in versions]
    rows = [
        {"rowid": key, "terms": v["b_terms"], "feed": str(v["b_feed"]), "version": vid}
        | {"item": v["b_item"]}
        for key, vid, v in keyed
    ]
    run(session, _FTS_ADD, rows)
    run(session, _SET_KEY, [{"b_id": vid, "b_key": key} for key, vid, _ in keyed])


def search_posts(
    session: Session,
    *,
    feed_ids: Sequence[int],
    query: SearchQuery,
    since: datetime | None = None,
    limit: int = MAX_RESULTS,
) -> list[Found]:
    """The posts of `feed_ids` (the chat's feeds, or the one it named) that any version of
    matches `query`, newest first, each with its newest matching version.

    Neither database reads every match of a common word to sort it: SQLite's FTS5 rows are
    numbered by the post's date (`fts5_rowid`), so FTS5 hands out matches newest first within
    the chat's feeds (its `feed` column) and stops at `limit` posts; PostgreSQL's planner has
    the tsvector's statistics and walks `ix_item_version_posted` for a common word, the GIN
    index for a rare one. The feeds come as ids (the caller has them): no join to the
    subscriptions in the search itself."""
    chosen = sorted(set(feed_ids))
    if not chosen:
        return []
    rows = limit * MAX_VERSIONS  # enough versions for `limit` posts
    if _sqlite(session):
        match = fts5_in_feeds(query, chosen)
        statement = (
            select(_SEARCH.c.version, _SEARCH.c.item)
            .where(text("item_search MATCH :b_match").bindparams(b_match=match))
            .order_by(_SEARCH.c.rowid.desc())
        )
        if since is not None:
            statement = statement.where(_SEARCH.c.rowid >= fts5_since(since))
    else:
        found = _V.c.terms.bool_op("@@")(func.to_tsquery(_SIMPLE, tsquery(query)))
        scope: list[ColumnElement[bool]] = [found, _V.c.feed_id.in_(chosen)]
        if since is not None:
            scope.append(_V.c.posted >= since)
        statement = select(_V.c.id, _V.c.item_id).where(*scope)
        statement = statement.order_by(_V.c.posted.desc(), _V.c.id.desc())
    return _details(session, _distinct(run(session, statement.limit(rows)).all(), limit))


def _distinct(rows: Sequence[Any], limit: int) -> list[tuple[int, int]]:
    """The first matching version of each post, in order, at most `limit` posts."""
    seen: dict[int, int] = {}
    for version_id, item_id in rows:
        if item_id not in seen:
            seen[item_id] = version_id
            if len(seen) == limit:
                break
    return [(version_id, item_id) for item_id, version_id in seen.items()]


def _details(session: Session, chosen: list[tuple[int, int]]) -> list[Found]:
    if not chosen:
        return []
    item, feed, later = table(Item), table(Feed), _V.alias("later")
    newest = select(func.max(later.c.id)).where(later.c.item_id == item.c.id).scalar_subquery()
    statement = (
        select(
            _V.c.id,
            item.c.title,
            item.c.link,
            feed.c.title,
            func.coalesce(item.c.published_at, item.c.first_seen_at),
            _V.c.text,
            (_V.c.id == newest).label("current"),
        )
        .select_from(
            _V.join(item, item.c.id == _V.c.item_id).join(feed, feed.c.id == item.c.feed_id)
        )
        .where(_V.c.id.in_([version_id for version_id, _ in chosen]))
    )
    rows: dict[int, tuple[Any, ...]] = {
        row[0]: tuple(row[1:]) for row in run(session, statement).all()
    }
    posts: list[Found] = []
    for version_id, _ in chosen:
        title, link, feed_title, date_, text_, current = rows[version_id]
        posts.append(Found(title, link, feed_title, date_, text_, bool(current)))
    return posts
