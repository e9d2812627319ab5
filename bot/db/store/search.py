"""Every version of each post, and `/search` over them: FTS5 on SQLite, a `tsvector` with a
GIN index on PostgreSQL (migration 0031 builds both; `core/search` gives both the same terms).

Versions are written with the items (`items.write_items` calls `record_versions`): a new post's
first version and one more per edit (at most `MAX_VERSIONS` kept). A silent rewrite (an
absorbed change: a counter, typography, a return to a version seen recently) adds a "silent"
version after the first or an edit's, and replaces it when it is the newest: what a chat could
have read stays findable, and a ticking counter cannot grow the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Executable,
    Select,
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
from bot.core.search.match import fts5, tsquery
from bot.core.search.query import SearchQuery
from bot.core.search.snippet import Found
from bot.core.search.terms import index_text
from bot.db.store.statements import run, table
from bot.db.tables import Feed, Item, ItemVersion, Subscription

MAX_VERSIONS = 10  # per post; older ones are forgotten when an edit adds one
MAX_RESULTS = 10
# A word in more versions than this is common: SQLite walks the chat's versions newest first
# (an index alone) and stops at the first posts that hold it, rather than sorting them all.
COMMON = 500
_VERSIONED = (WriteKind.INSERT, WriteKind.EDIT, WriteKind.REWRITE)

_V = table(ItemVersion)
_SEARCH = sa_table("item_search", column("rowid"), column("terms"))  # SQLite only
_SIMPLE: ColumnElement[str] = literal_column("'simple'")
_LAST_IDS = (
    select(func.max(_V.c.id))
    .where(_V.c.item_id.in_(bindparam("b_items", expanding=True)))
    .group_by(_V.c.item_id)
)
_NEWEST = select(_V.c.item_id, _V.c.id, _V.c.silent, _V.c.title, _V.c.text).where(
    _V.c.id.in_(_LAST_IDS.scalar_subquery())
)
_SET_VERSION = (
    update(_V)
    .where(_V.c.id == bindparam("b_id"))
    .values(title=bindparam("b_title"), text=bindparam("b_text"), posted=bindparam("b_posted"))
)
_SET_VERSION_PG = _SET_VERSION.values(terms=func.to_tsvector(_SIMPLE, bindparam("b_terms")))
_FTS_ADD = insert(_SEARCH)
_FTS_SET = (
    update(_SEARCH).where(_SEARCH.c.rowid == bindparam("b_id")).values(terms=bindparam("b_terms"))
)
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
        added.append(_row(write, item_id, feed_id, now))
        if write.kind is WriteKind.EDIT:
            grown.append(item_id)
    if rewrites:
        params = {"b_items": sorted(rewrites)}
        newest: dict[int, tuple[Any, ...]] = {
            row[0]: tuple(row[1:]) for row in run(session, _NEWEST, params)
        }
        for item_id, write in rewrites.items():
            values = _row(write, item_id, feed_id, now, silent=True)
            if item_id not in newest:  # a post stored before its versions were: its first
                added.append(values)
                continue
            version_id, silent, title, text_ = newest[item_id]
            if (title, text_) == (write.item.title, write.item.text):
                continue  # re-keyed, or a new identity: the same words
            if not silent:  # the first version or an edit's stays; the rewrite follows it
                added.append(values)
                grown.append(item_id)
                continue
            values["b_id"] = version_id
            run(session, _SET_VERSION if sqlite else _SET_VERSION_PG, values)
            if sqlite:
                run(session, _FTS_SET, values)
    if added:
        _add(session, added, sqlite)
    for item_id in grown:
        run(session, _TRIM, {"b_item": item_id})


def _row(
    write: ItemWrite, item_id: int, feed_id: int, now: datetime, *, silent: bool = False
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
        "b_terms": index_text(item.title, item.text),
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


def _add(session: Session, rows: list[dict[str, Any]], sqlite: bool) -> None:
    version_ids = [row[0] for row in run(session, _INSERT[sqlite], rows)]
    if sqlite:
        index = [
            {"rowid": vid, "terms": r["b_terms"]} for vid, r in zip(version_ids, rows, strict=True)
        ]
        run(session, _FTS_ADD, index)


def search_posts(
    session: Session,
    *,
    chat_id: int,
    query: SearchQuery,
    feed_id: int | None = None,
    since: datetime | None = None,
    limit: int = MAX_RESULTS,
    common: int = COMMON,
) -> list[Found]:
    """The chat's posts (of the feeds it is subscribed to, or of `feed_id` among them) that
    any version of matches `query`, newest first, each with its newest matching version."""
    sub = table(Subscription)
    feeds = select(sub.c.feed_id).where(sub.c.chat_id == chat_id, sub.c.left_at.is_(None))
    if feed_id is not None:
        feeds = feeds.where(sub.c.feed_id == feed_id)
    scope: list[ColumnElement[bool]] = [_V.c.feed_id.in_(feeds)]
    if since is not None:
        scope.append(_V.c.posted >= since)
    walk = [literal_column("+item_version.feed_id").in_(feeds), *scope[1:]]
    order = (_V.c.posted.desc(), _V.c.id.desc())
    rows = limit * MAX_VERSIONS  # enough versions for `limit` posts
    if _sqlite(session):
        statement = _fts5_statement(session, fts5(query), scope, walk, common).order_by(*order)
    else:
        found = _V.c.terms.bool_op("@@")(func.to_tsquery(_SIMPLE, tsquery(query)))
        statement = select(_V.c.id, _V.c.item_id).where(found, *scope).order_by(*order)
    return _details(session, _distinct(run(session, statement.limit(rows)).all(), limit))


def _fts5_statement(
    session: Session,
    match: str,
    scope: Sequence[ColumnElement[bool]],
    walk: Sequence[ColumnElement[bool]],
    common: int,
) -> Select[Any]:
    """FTS5 gives its matches in no useful order, and SQLite's planner cannot tell a rare word
    from a common one. A capped count can: up to `common` matches are read and sorted (a rare
    word: a few reads); past it, the matches are taken as a set and the chat's versions
    walked newest first in `ix_item_version_posted` alone (measured at 5,000 posts for a word
    in every post: 0.7 ms, against 16–22 ms reading each match's row to sort them)."""
    probe = text("item_search MATCH :b_match").bindparams(b_match=match)
    one: ColumnElement[int] = literal_column("1")
    capped = select(one).select_from(_SEARCH).where(probe).limit(common)
    count = run(session, select(func.count()).select_from(capped.subquery())).scalar_one()
    if count < common:
        joined = _SEARCH.join(_V, _V.c.id == _SEARCH.c.rowid)
        return select(_V.c.id, _V.c.item_id).select_from(joined).where(probe, *scope)
    # `+id` and `+feed_id` (`walk`) keep SQLite from looking the matches or the feeds' rows
    # up one by one, so it walks the date index.
    plus_id: ColumnElement[int] = literal_column("+item_version.id")
    return select(_V.c.id, _V.c.item_id).where(
        plus_id.in_(select(_SEARCH.c.rowid).where(probe)), *walk
    )


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
