"""Every version of each post, kept searchable as feeds are polled (issue 45, outcome 4): the
first version, one per edit, one silent rewrite after each, at most MAX_VERSIONS per post,
and the index (FTS5 or the tsvector) following every insert, rewrite and delete."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, column, insert, table, text
from sqlmodel import Session

from alembic import command
from bot.core.polls.plan import ItemWrite, WriteKind
from bot.core.search.query import parse
from bot.core.types import Identity, ParsedItem
from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.migrate import alembic_config
from bot.db.store.search import _UNINDEXED, MAX_VERSIONS
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings

CHAT = 111
NOW = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings)


def versions(engine: Engine, title: str) -> list[tuple[bool, bool]]:
    """(silent, holds the edited sentence) of each version of the post, oldest first."""
    with engine.connect() as c:
        rows = c.execute(
            text(
                "SELECT v.silent, v.text FROM item_version v JOIN item i ON i.id = v.item_id "
                "WHERE i.title = :t ORDER BY v.id"
            ),
            {"t": title},
        ).all()
    return [(bool(silent), blog.EDITED_SENTENCE in body) for silent, body in rows]


def indexed(engine: Engine) -> tuple[int, int]:
    """Version rows, and rows in the search index (SQLite's FTS5 table, or the tsvectors)."""
    with engine.connect() as c:
        count = c.execute(text("SELECT count(*) FROM item_version")).scalar_one()
        if engine.dialect.name == "sqlite":
            found = c.execute(
                text(
                    "SELECT count(*) FROM item_search s JOIN item_version v ON v.search_key = s.rowid"
                )
            ).scalar_one()
            assert found == c.execute(text("SELECT count(*) FROM item_search")).scalar_one()
        else:
            found = c.execute(
                text("SELECT count(*) FROM item_version WHERE terms IS NOT NULL")
            ).scalar_one()
    return int(count), int(found)


def search(
    engine: Engine, words: str, feed_id: int | None = None, **options: Any
) -> list[tuple[str, bool]]:
    """As `/search` asks: within the chat's feeds (or the one of them named)."""
    with Session(engine) as session:
        ids = [name.id for name in store.chat_feed_names(session, chat_id=CHAT)]
        chosen = [i for i in ids if feed_id in (None, i)]
        found = store.search_posts(session, feed_ids=chosen, query=parse(words), **options)
    return [(post.title, post.current) for post in found]


async def test_versions_follow_new_edited_absorbed_and_removed_posts(
    poller: Poller, engine: Engine, feeds: FeedServer
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
    with transaction(engine) as session:
        store.subscribe(session, chat_id=CHAT, feed_id=1)
    assert indexed(engine) == (len(blog.BEFORE_POSTS), len(blog.BEFORE_POSTS))
    guide = blog.GUIDE.title
    assert versions(engine, guide) == [(False, False)]
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))  # three new posts, the guide's markup
    await poller.poll_feed(1)
    assert versions(engine, guide) == [(False, False)]
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))  # an edit: a version of its own
    await poller.poll_feed(1)
    assert versions(engine, guide) == [(False, False), (False, True)]
    assert search(engine, '"student tickets"') == [(guide, True)]
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))  # back to a version seen: silent
    await poller.poll_feed(1)
    assert versions(engine, guide) == [(False, False), (False, True), (True, False)]
    assert search(engine, '"student tickets"') == [(guide, False)]  # an earlier version
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))  # flapping: the silent one is replaced
    await poller.poll_feed(1)
    assert versions(engine, guide) == [(False, False), (False, True), (True, True)]
    assert search(engine, '"student tickets"') == [(guide, True)]
    count, found = indexed(engine)
    assert count == found == len(blog.BEFORE_POSTS) + 3 + 2
    with transaction(engine) as session:  # the feed goes: its versions and index rows too
        assert store.remove_feed(session, slug="lumen")
    assert indexed(engine) == (0, 0)


def _write(kind: WriteKind, body: str) -> ItemWrite:
    item = ParsedItem(
        key="k1",
        title="Release notes",
        link="https://example.org/r",
        author=None,
        published=NOW,
        categories=(),
        text=body,
        fingerprint=body,
        position=0,
    )
    return ItemWrite(kind, item, Identity("c", None, None))


def test_a_post_keeps_at_most_max_versions(engine: Engine) -> None:
    with transaction(engine) as session:
        feed = store.add_feed(
            session, url="https://example.org/feed", slug="rel", title="Rel", trusted=True
        )
        store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
        store.write_items(
            session, feed_id=feed.id, writes=[_write(WriteKind.INSERT, "Version zero.")], now=NOW
        )
    for number in range(1, MAX_VERSIONS + 3):
        with transaction(engine) as session:
            edit = _write(WriteKind.EDIT, f"Version {number} adds zeppelin{number}.")
            store.write_items(session, feed_id=feed.id, writes=[edit], now=NOW)
    count, found = indexed(engine)
    assert count == found == MAX_VERSIONS
    assert search(engine, "zeppelin2") == []  # forgotten with the oldest versions
    assert search(engine, f"zeppelin{MAX_VERSIONS + 2}") == [("Release notes", True)]
    assert search(engine, "zeppelin3") == [("Release notes", False)]
    with transaction(engine) as session:  # the same words re-keyed: no version
        store.write_items(
            session,
            feed_id=feed.id,
            writes=[_write(WriteKind.REWRITE, f"Version {MAX_VERSIONS + 2} adds zeppelin14.")],
            now=NOW,
        )
    assert indexed(engine)[0] == MAX_VERSIONS


ITEM = table(
    "item",
    *(column(n) for n in ("id", "feed_id", "key", "title", "text", "fingerprint", "categories")),
    *(column(n) for n in ("first_seen_at", "last_changed_at", "last_seen_at")),
)


def test_the_migration_indexes_posts_stored_before_it(db_url: str) -> None:
    config = alembic_config(db_url)
    engine = make_engine(db_url)
    try:
        # The feed and the chat through today's store, at the head (its models know every
        # later column); the posts as they were stored before 0031 and 0032.
        with transaction(engine) as session:
            feed = store.add_feed(
                session, url="https://example.org/f", slug="old", title="Old", trusted=True
            )
            store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
        command.downgrade(config, "0030")
        with engine.begin() as c:
            c.execute(
                insert(ITEM),
                [
                    {
                        "id": n,
                        "feed_id": feed.id,
                        "key": f"k{n}",
                        "title": title,
                        "text": body,
                        "fingerprint": "f",
                        "categories": "[]",
                        "first_seen_at": NOW,
                        "last_changed_at": NOW,
                        "last_seen_at": NOW,
                    }
                    for n, (title, body) in enumerate(
                        [("Old news", "The lighthouse reopened."), ("旧闻", "灯塔重新开放了。")]
                        + [(f"Filler {n}", "Nothing.") for n in range(600)],
                        start=1,
                    )
                ],
            )
        command.upgrade(config, "head")
        assert search(engine, "lighthouse") == [("Old news", True)]
        assert search(engine, "灯塔") == [("旧闻", True)]
        assert indexed(engine) == (602, 602)
    finally:
        engine.dispose()


def test_newest_first_at_most_the_limit_in_one_feed_and_since(engine: Engine) -> None:
    with transaction(engine) as session:
        feeds = [
            store.add_feed(
                session, url=f"https://e.org/{n}", slug=f"f{n}", title=f"F{n}", trusted=True
            )
            for n in range(3)
        ]
        for feed in feeds[:2]:
            store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
        for feed in feeds:
            writes = []
            for day in range(15):
                item = replace(
                    _write(WriteKind.INSERT, f"Day {day}: the harbour opens.").item,
                    key=f"{feed.slug}-{day}",
                    title=f"{feed.slug} day {day}",
                    published=NOW - timedelta(days=day),
                )
                writes.append(ItemWrite(WriteKind.INSERT, item, Identity(item.key, None, None)))
            store.write_items(session, feed_id=feed.id, writes=writes, now=NOW)
    titles = [title for title, _ in search(engine, "harbour")]  # the same day: the later stored
    assert titles == [f"f{n} day {d}" for d in range(5) for n in (1, 0)]  # newest first, 10
    assert [t for t, _ in search(engine, "harbour", feed_id=feeds[1].id)][:2] == [
        "f1 day 0",
        "f1 day 1",
    ]
    assert search(engine, "harbour", feed_id=feeds[2].id) == []  # not the chat's feed
    recent = search(engine, "harbour", since=NOW - timedelta(days=2, hours=1))
    assert [t for t, _ in recent] == [f"f{n} day {d}" for d in range(3) for n in (1, 0)]
    assert search(engine, "harbour", limit=3) == [
        ("f1 day 0", True),
        ("f0 day 0", True),
        ("f1 day 1", True),
    ]
    with transaction(engine) as session:  # a feed the chat left is not the chat's any more
        store.unsubscribe(session, chat_id=CHAT, feed_id=feeds[1].id, now=NOW)
    assert {title.split()[0] for title, _ in search(engine, "harbour")} == {"f0"}


def test_the_catch_up_reads_only_versions_waiting_for_their_rows(sqlite_url: str) -> None:
    """A process's first indexing pass looks for versions without FTS5 rows (a crash between
    a poll's commit and its indexing): SQLite finds them in the partial index of migration
    0039, not by reading every stored version, which every `poll --once` would pay."""
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as c:
            sql = str(_UNINDEXED.compile(engine))
            plan = " ".join(str(row[-1]) for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}"))
    finally:
        engine.dispose()
    assert "USING INDEX item_search_pending" in plan
