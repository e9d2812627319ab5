"""A JSON Feed watched like RSS: `feed add` stores it silently, the next poll reports one new
and one edited item, through real HTTP and a real database."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.types import ChangeKind
from bot.db.tables import Feed
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.settings import make_settings

POSTS: list[dict[str, object]] = [
    {
        "id": "https://ines.example/allocator",
        "title": "Notes on the allocator",
        "content_html": "<p>Live ranges are split before spilling.</p>",
        "date_published": "2026-11-20T09:00:00Z",
        "tags": ["Compilers"],
    },
    {
        "id": "https://ines.example/meetup",
        "title": "Bengaluru meetup",
        "content_text": "We meet on Saturday.",
        "date_published": "2026-11-18T09:00:00Z",
    },
]


def document(items: list[dict[str, object]]) -> bytes:
    body = {"version": "https://jsonfeed.org/version/1.1", "title": "Ines Park", "items": items}
    return json.dumps(body).encode()


async def test_a_json_feed_is_added_then_polled_for_new_and_edited_items(
    feeds: FeedServer, engine: Engine, db_url: str
) -> None:
    now = datetime(2026, 11, 30, tzinfo=UTC)
    settings = make_settings(db_url)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, clock=lambda: now)
        url = feeds.serve("/feed.json", document(POSTS), content_type="application/feed+json")
        added = await Catalog(poller).add_feed(url, slug="ines", trusted=True)
        assert (added.outcome, added.feed_title, added.items) == ("baseline", "Ines Park", 2)
        newer: dict[str, object] = {
            "id": "https://ines.example/talk",
            "title": "Slides from the scheduler talk",
            "content_html": "<p>Slides are up.</p>",
            "date_published": "2026-11-28T12:00:00Z",
        }
        edited = {**POSTS[1], "content_text": "We meet on Saturday. Doors open at ten."}
        # served as RSS this time (a misconfigured server): the body is still read as JSON
        feeds.serve("/feed.json", document([newer, POSTS[0], edited]))
        with Session(engine) as session:
            feed_id = session.exec(select(Feed.id).where(Feed.slug == "ines")).one()
        assert feed_id is not None
        now += timedelta(hours=2)
        outcome = await poller.poll_feed(feed_id)
    changes = [(c.kind, c.item.title) for c in outcome.changes]
    assert changes == [
        (ChangeKind.EDITED, "Bengaluru meetup"),
        (ChangeKind.NEW, "Slides from the scheduler talk"),
    ]
    diff = outcome.changes[0].diff
    assert diff is not None and diff.added == ("Doors open at ten.",)
