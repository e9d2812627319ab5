"""The search rows of a poll's versions come after its commit, in one transaction for a batch
of polls (SQLite; PostgreSQL writes its tsvector with the version), and a crash between the
commit and the indexing loses no version from the index: a process's first pass finds it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, text

from bot.core.polls.plan import ItemWrite, WriteKind
from bot.core.types import Identity, ParsedItem
from bot.db import store
from bot.db.engine import transaction
from bot.services.catalog import Catalog
from bot.services.indexing import SearchIndexer
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.db.test_search import CHAT, indexed, search
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings

NOW = datetime(2026, 12, 2, tzinfo=UTC)


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings)


def _insert(key: str, body: str, kind: WriteKind = WriteKind.INSERT) -> ItemWrite:
    item = ParsedItem(
        key=key,
        title=f"Post {key}",
        link=f"https://example.org/{key}",
        author=None,
        published=NOW,
        categories=(),
        text=body,
        fingerprint=body,
        position=0,
    )
    return ItemWrite(kind, item, Identity(key, None, None))


def _write_deferred(engine: Engine, feed_id: int, writes: list[ItemWrite]) -> list[int]:
    """A poll's write that committed, its process gone before indexing (what a crash leaves)."""
    with transaction(engine) as session:
        later = SearchIndexer(engine).defer(session)
        store.write_items(session, feed_id=feed_id, writes=writes, now=NOW)
    return later


def _feed(engine: Engine) -> int:
    with transaction(engine) as session:
        feed = store.add_feed(
            session, url="https://example.org/f", slug="f", title="F", trusted=True
        )
        store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
        assert feed.id is not None
        return feed.id


def test_versions_committed_but_not_indexed_are_indexed_by_the_next_first_pass(
    engine: Engine,
) -> None:
    sqlite = engine.dialect.name == "sqlite"
    feed_id = _feed(engine)
    _write_deferred(
        engine, feed_id, [_insert("a", "The lighthouse reopened."), _insert("b", "灯塔")]
    )
    assert indexed(engine) == ((2, 0) if sqlite else (2, 2))
    assert search(engine, "lighthouse") == ([] if sqlite else [("Post a", True)])
    restarted = SearchIndexer(engine)
    assert restarted.pending is sqlite  # the first pass looks for what was left
    assert restarted.flush() == (2 if sqlite else 0)
    assert indexed(engine) == (2, 2) and not restarted.pending
    assert search(engine, "lighthouse") == [("Post a", True)]
    assert search(engine, "灯塔") == [("Post b", True)]
    assert restarted.flush() == 0  # nothing twice


def test_a_silent_rewrite_deferred_is_indexed_as_it_now_reads(engine: Engine) -> None:
    feed_id = _feed(engine)
    indexer = SearchIndexer(engine)
    indexer.flush()  # caught up: from now on only what is handed over
    indexer.add(_write_deferred(engine, feed_id, [_insert("a", "The harbour opens.")]))
    edit = _insert("a", "The harbour opens at dawn.", WriteKind.EDIT)
    indexer.add(_write_deferred(engine, feed_id, [edit]))
    rewrite = _insert("a", "The harbour opens at noon.", WriteKind.REWRITE)
    indexer.add(_write_deferred(engine, feed_id, [rewrite]))
    again = replace(rewrite, item=replace(rewrite.item, text="The harbour opens at dusk."))
    indexer.add(_write_deferred(engine, feed_id, [again]))  # the silent version replaced
    indexer.flush()
    assert indexed(engine) == (3, 3)
    assert search(engine, "dawn") == [("Post a", False)]
    assert search(engine, "dusk") == [("Post a", True)]
    assert search(engine, "noon") == []


def test_a_version_gone_before_its_indexing_leaves_no_search_row(engine: Engine) -> None:
    feed_id = _feed(engine)
    indexer = SearchIndexer(engine)
    indexer.flush()
    indexer.add(_write_deferred(engine, feed_id, [_insert("a", "Gone soon.")]))
    with transaction(engine) as session:
        assert store.remove_feed(session, slug="f")
    assert indexer.flush() == 0
    assert indexed(engine) == (0, 0)
    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            assert c.execute(text("SELECT count(*) FROM item_search")).scalar_one() == 0


async def test_a_poll_is_searchable_once_it_returns(
    poller: Poller, engine: Engine, feeds: FeedServer
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
    with transaction(engine) as session:
        store.subscribe(session, chat_id=CHAT, feed_id=1)
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))
    await poller.poll_feed(1)
    assert search(engine, '"student tickets"') == [(blog.GUIDE.title, True)]
    count, found = indexed(engine)
    assert count == found
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await poller.poll_due(all_feeds=True)  # the cycle's batch, indexed before it returns
    assert search(engine, '"student tickets"') == [(blog.GUIDE.title, False)]
    count, found = indexed(engine)
    assert count == found


def test_more_versions_than_a_batch_are_all_indexed_a_batch_at_a_time(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first poll of many feeds leaves thousands of versions: read and indexed a batch at a
    time (their texts at once were the bot's peak memory), every one of them, both ways."""
    monkeypatch.setattr("bot.db.store.search.INDEX_BATCH", 3)
    sqlite = engine.dialect.name == "sqlite"
    feed_id = _feed(engine)
    left = [_insert(f"l{n}", f"Lantern number{n} was lit.") for n in range(7)]
    _write_deferred(engine, feed_id, left)
    restarted = SearchIndexer(engine)
    assert restarted.flush() == (7 if sqlite else 0)  # everything left: 3 + 3 + 1
    handed = [_insert(f"h{n}", f"Harbour bell{n} rang.") for n in range(8)]
    restarted.add(_write_deferred(engine, feed_id, handed))
    assert restarted.flush() == (8 if sqlite else 0)  # what was handed over: 3 + 3 + 2
    assert indexed(engine) == (15, 15)
    assert search(engine, "number6") == [("Post l6", True)]
    assert search(engine, "bell7") == [("Post h7", True)]
    assert len(search(engine, "lantern")) == 7
