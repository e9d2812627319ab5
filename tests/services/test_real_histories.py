"""Detection round 4 end to end (issue 44), on SQLite and PostgreSQL: whether the window grew is
read from storage (the last document's items), and a feed set to new posts only stores its
edits silently, through the real poller against a loopback feed server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine

from bot.db import store
from bot.db.engine import transaction
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.core.detection.test_real_histories import (
    ABOUT,
    BLOG,
    LATEST,
    MARKET,
    MISLABELLED,
    NOW,
    REAL,
    TEST,
    changelog,
    forecast,
    hugo,
    perlanet,
)
from tests.support.clock import Clock
from tests.support.fakes.feed_server import FeedServer
from tests.support.settings import make_settings


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings, clock=Clock())


async def polls(poller: Poller, feeds: FeedServer, *documents: bytes) -> list[list[str]]:
    """Add the feed with the first document, then poll each of the others in turn."""
    url = feeds.serve("/feed", documents[0])
    await Catalog(poller).add_feed(url, slug="site", trusted=True)
    seen = []
    for document in documents[1:]:
        feeds.serve("/feed", document)
        outcome = await poller.poll_feed(1)
        seen.append([f"{c.kind.value}: {c.item.title}" for c in outcome.changes])
    return seen


async def test_a_full_list_s_backdated_first_post_is_news(
    poller: Poller, feeds: FeedServer
) -> None:
    assert await polls(poller, feeds, hugo([ABOUT, TEST]), hugo([ABOUT, TEST, MARKET])) == [
        ["new: Winter Market"]
    ]


async def test_a_window_that_drops_a_post_stores_an_old_one_silently(
    poller: Poller, feeds: FeedServer
) -> None:
    assert await polls(poller, feeds, hugo([ABOUT, TEST]), hugo([ABOUT, MARKET])) == [[]]


async def test_a_post_coming_back_does_not_make_a_window_a_full_list(
    poller: Poller, feeds: FeedServer
) -> None:
    """The last document is what counts: "Test" dropped out then came back with the old
    post; the poll before had two items, this one has both plus the old post: a full list."""
    seen = await polls(
        poller, feeds, hugo([ABOUT, TEST]), hugo([ABOUT]), hugo([ABOUT, TEST, MARKET])
    )
    assert seen == [[], ["new: Winter Market"]]


async def test_a_repeated_guid_keeps_one_post_through_storage(
    poller: Poller, feeds: FeedServer
) -> None:
    fixed = ("3.1.3", MISLABELLED[1], MISLABELLED[2])
    seen = await polls(
        poller,
        feeds,
        changelog([LATEST, MISLABELLED, REAL]),
        changelog([LATEST, fixed, REAL]),
        changelog([LATEST, fixed, REAL, MISLABELLED]),  # a copy appearing again
    )
    assert seen == [["new: Tool 3.1.3"], []]


async def test_edits_off_stores_a_planet_s_re_issues_silently(
    poller: Poller, feeds: FeedServer, engine: Engine
) -> None:
    built = NOW - timedelta(hours=6)
    first = perlanet([forecast(0, built, "Light rain"), *BLOG])
    url = feeds.serve("/feed", first)
    await Catalog(poller).add_feed(url, slug="site", trusted=True)
    with transaction(engine) as session:
        assert store.set_feed_edits(session, slug="site", on=False)
        assert not store.set_feed_edits(session, slug="nope", on=False)
    fresh = ("Walk 9", "https://walks.example/9", NOW, "<p>A new walk.</p>")
    feeds.serve("/feed", perlanet([forecast(0, built, "Heavy rain"), fresh, *BLOG]))
    outcome = await poller.poll_feed(1)
    assert [f"{c.kind.value}: {c.item.title}" for c in outcome.changes] == ["new: Walk 9"]
    # The stored text followed the feed: with edits on again, the same document is no edit.
    with transaction(engine) as session:
        store.set_feed_edits(session, slug="site", on=True)
        assert [f.edits for f in store.feed_states(session)] == [True]
    feeds.serve("/feed", perlanet([forecast(0, built, "Heavy rain"), fresh, *BLOG, BLOG[0]]))
    outcome = await poller.poll_feed(1)
    assert outcome.changes == ()
