"""Detection round 3 end to end (issue 26): feeds in the shapes Discourse, Substack,
classifieds sites and a domain move produce, added and polled through the real poller against
a loopback feed server, on SQLite and PostgreSQL. Each transition announces only what a reader
would want."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from email.utils import format_datetime
from html import escape

import pytest
from sqlalchemy import Engine

from bot.core.types import ChangeKind
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.clock import Clock
from tests.support.fakes.feed_server import FeedServer
from tests.support.settings import make_settings

DAY = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def rss(items: list[tuple[str, str, str, str]], *, title: str = "Site") -> bytes:
    """(guid, title, link, html) items, newest first, all dated DAY."""
    body = "".join(
        f"<item><title>{escape(t)}</title><link>{escape(link)}</link>"
        f'<guid isPermaLink="false">{escape(guid)}</guid>'
        f"<pubDate>{format_datetime(DAY)}</pubDate>"
        f"<description><![CDATA[{html}]]></description></item>"
        for guid, t, link, html in items
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>{title}'
        f"</title><link>https://site.example/</link>{body}</channel></rss>"
    ).encode()


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings, clock=Clock())


async def transition(poller: Poller, feeds: FeedServer, before: bytes, after: bytes) -> list[str]:
    url = feeds.serve("/feed", before)
    await Catalog(poller).add_feed(url, slug="site", trusted=True)
    feeds.serve("/feed", after)
    outcome = await poller.poll_feed(1)
    return [f"{c.kind.value}: {c.item.title}" for c in outcome.changes]


def topic(n: int, posts: int, people: int) -> tuple[str, str, str, str]:
    html = (
        f"<p>Question number {n} about the build cache.</p>"
        f"<p><small>{posts} posts - {people} participants</small></p>"
        f'<p><a href="https://forum.example/t/{n}">Read full topic</a></p>'
    )
    return (f"forum.example-topic-{n}", f"Topic {n}", f"https://forum.example/t/{n}", html)


async def test_discourse_counters_in_one_topic_moving_to_the_top(
    poller: Poller, feeds: FeedServer
) -> None:
    before = rss([topic(1, 4, 2), topic(2, 17, 2), topic(3, 9, 3)])
    after = rss([topic(2, 18, 3), topic(1, 4, 2), topic(3, 9, 3)])
    assert await transition(poller, feeds, before, after) == []


SUBSTACK_FULL = (
    "<p>We rebuilt the index this spring. It took four months.</p>"
    "<p>Queries now return in a tenth of the time.</p><p>Here is how we did it.</p>"
)
SUBSTACK_TEASER = (
    "<p>We rebuilt the index this spring. It took four months.</p>"
    "<p>This post is for paid subscribers</p>"
)


async def test_substack_post_turned_paywalled_is_no_edit(poller: Poller, feeds: FeedServer) -> None:
    other = ("s-2", "Other", "https://s.example/p/other", "<p>Another post entirely.</p>")
    before = rss([("s-1", "Index", "https://s.example/p/index", SUBSTACK_FULL), other])
    after = rss([("s-1", "Index", "https://s.example/p/index", SUBSTACK_TEASER), other])
    assert await transition(poller, feeds, before, after) == []


async def test_a_second_listing_with_the_same_title_and_day_is_new(
    poller: Poller, feeds: FeedServer
) -> None:
    first = ("c-101", "Bike for sale", "https://ads.example/post/101", "<p>Red bike, 50 euros.</p>")
    second = (
        "c-202",
        "Bike for sale",
        "https://ads.example/post/202",
        "<p>Blue bike, 80 euros.</p>",
    )
    filler = [
        (f"c-{n}", f"Lamp {n}", f"https://ads.example/post/{n}", "<p>A lamp.</p>") for n in range(3)
    ]
    changes = await transition(poller, feeds, rss([first, *filler]), rss([second, *filler]))
    assert changes == ["new: Bike for sale"]


async def test_typography_switched_site_wide_and_a_domain_move(
    poller: Poller, feeds: FeedServer
) -> None:
    def post(n: int, host: str, curly: bool) -> tuple[str, str, str, str]:
        quote = "“ok”" if curly else '"ok"'
        text = f"<p>Post {n} says {quote} — see https://{host}/guide for more.</p>"
        return (f"g-{n}", f"Post {n}", f"https://{host}/p/{n}", text)

    before = rss([post(n, "old.example", False) for n in range(5)])
    after = rss([post(n, "new.example", True) for n in range(5)])
    assert await transition(poller, feeds, before, after) == []


async def test_a_changed_price_in_one_post_is_still_an_edit(
    poller: Poller, feeds: FeedServer
) -> None:
    def post(price: int) -> tuple[str, str, str, str]:
        return ("p-1", "Tickets", "https://t.example/p/1", f"<p>Tickets cost {price} euros.</p>")

    other = ("p-2", "Venue", "https://t.example/p/2", "<p>The venue is the old harbour.</p>")
    changes = await transition(poller, feeds, rss([post(12), other]), rss([post(15), other]))
    assert changes == [f"{ChangeKind.EDITED.value}: Tickets"]
