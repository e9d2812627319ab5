"""Follows end by themselves (issue 45): housekeeping (the watch round after the polls)
forgets a follow past its period, and its page is not read again; the chat's limit counts only
follows still running. By the clock, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from bot.db.store.follows import Followed
from bot.services.catalog import Catalog
from bot.services.follows import Follows
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.clock import Clock
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.watch_site import POSTS, serve_feed, serve_pages
from tests.support.settings import make_settings

CHAT = 5
A, B, C = POSTS[:3]


async def test_follows_expire_and_free_the_limit(
    engine: Engine, db_url: str, feeds: FeedServer
) -> None:
    clock = Clock()
    settings = make_settings(db_url, poll_interval_seconds=60, max_follows_per_chat=2)
    serve_pages(feeds, POSTS)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, clock=clock)
        url = serve_feed(feeds, (A, B, C))
        await Catalog(poller).add_feed(url, slug="harbour", trusted=True)
        follows = Follows(engine, most=2, clock=clock)
        base = feeds.url("").rstrip("/")

        short = await follows.follow_link(CHAT, base + A.path(), days=1)
        assert short.followed is Followed.NEW and short.until == clock.now + timedelta(days=1)
        assert (await follows.follow_link(CHAT, base + B.path())).followed is Followed.NEW
        assert (await follows.follow_link(CHAT, base + C.path())).followed is Followed.LIMIT
        again = await follows.follow_link(CHAT, base + A.path(), days=3)  # moves its end
        assert again.followed is Followed.MOVED
        await poller.watch.run()  # the baselines
        assert [len(feeds.hits(p.path())) for p in (A, B, C)] == [1, 1, 0]

        clock.advance(days=3, seconds=1)
        await poller.watch.run()
        assert [f.title for f in await follows.listing(CHAT)] == [B.title]
        assert (await follows.follow_link(CHAT, base + C.path(), 30)).followed is Followed.NEW
        await poller.watch.run()

        clock.advance(days=14)
        serve_feed(feeds, (C,))  # A and B left the feed: only a running follow reads a page
        await poller.poll_due(all_feeds=True)  # polls, then the watch round
        assert [f.title for f in await follows.listing(CHAT)] == [C.title]
        assert [len(feeds.hits(p.path())) for p in (A, B, C)] == [1, 1, 1]
        await poller.settle()
        await poller.enricher.stop()
