"""One feed's fault stays that feed's (issue 23, items 3 and 10): a corrupt gzip body, an
oversized ETag or Last-Modified, a JSON Feed date past year 9999 and a NUL in an id, on SQLite
and PostgreSQL, among healthy feeds whose quiet polls must still be recorded."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.db.tables import Feed, Item
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.clock import Clock
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings, clock=Clock())


def rows(engine: Engine) -> dict[str, Feed]:
    with Session(engine) as session:
        return {feed.slug: feed for feed in session.exec(select(Feed)).all()}


async def test_a_corrupt_body_or_huge_validators_fail_only_their_feed(
    poller: Poller, engine: Engine, feeds: FeedServer
) -> None:
    healthy = [feeds.serve(f"/ok{n}/", blog.rss(blog.BEFORE_POSTS)) for n in range(4)]
    for n, url in enumerate(healthy):
        await Catalog(poller).add_feed(url, slug=f"ok{n}", trusted=True)
    body = blog.rss(blog.BEFORE_POSTS)
    await Catalog(poller).add_feed(feeds.serve("/gz/", body), slug="gz", trusted=True)
    await Catalog(poller).add_feed(feeds.serve("/tags/", body), slug="tags", trusted=True)

    async def corrupt(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=b"\x1f\x8b\x08\x00garbage" * 100, headers={"Content-Encoding": "gzip"}
        )

    async def huge_validators(request: web.Request) -> web.StreamResponse:
        headers = {"ETag": '"' + "e" * 2000 + '"', "Last-Modified": "M" * 400}
        return web.Response(body=body, headers=headers, content_type="application/rss+xml")

    feeds.behave("/gz/", corrupt)
    feeds.behave("/tags/", huge_validators)
    report = await poller.poll_due(all_feeds=True)
    outcomes = {o.slug: o for o in report.outcomes}
    assert "cannot decode body" in (outcomes["gz"].error or "")
    assert outcomes["tags"].error is None
    after = rows(engine)
    assert after["tags"].etag is None and after["tags"].last_modified is None
    for n in range(4):  # the healthy feeds' quiet polls were written
        assert after[f"ok{n}"].last_checked_at is not None
        assert after[f"ok{n}"].error_count == 0


async def test_impossible_dates_and_nuls_are_cleaned_not_errors(
    poller: Poller, engine: Engine, feeds: FeedServer
) -> None:
    def document(*items: dict[str, str]) -> bytes:
        return json.dumps(
            {"version": "https://jsonfeed.org/version/1.1", "title": "Odd", "items": list(items)}
        ).encode()

    first = {
        "id": "a",
        "title": "First",
        "content_text": "One.",
        "date_published": "2026-11-01T00:00:00Z",
    }
    url = feeds.serve("/odd.json", document(first), content_type="application/feed+json")
    added = await Catalog(poller).add_feed(url, slug="odd", trusted=True)
    assert added.error is None
    far = {
        "id": "b\x00c",
        "title": "Far\x00 future",
        "content_text": "Two.",
        "date_published": "9999-12-31T23:00:00-05:00",
    }
    feeds.serve("/odd.json", document(far, first), content_type="application/feed+json")
    outcome = await poller.poll_feed(1)
    assert outcome.error is None
    with Session(engine) as session:
        keys = set(session.exec(select(Item.key)).all())
        stored = session.exec(select(Item).where(Item.key == "bc")).one()
    assert keys == {"a", "bc"}
    assert stored.published_at is None and "\x00" not in stored.title
