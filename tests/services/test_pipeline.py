"""The feed engine end to end: local feed server over loopback → Poller → real database."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed, Item
from bot.net.fetch import USER_AGENT
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.clock import Clock
from tests.support.fakes.feed_server import FeedServer, hang, raw, redirect, status, trickle
from tests.support.fixtures import blog
from tests.support.settings import make_settings


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def poller(engine: Engine, db_url: str, clock: Clock) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, max_feed_bytes=200_000, fetch_timeout_seconds=1.5)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings, clock=clock)


def feed_row(engine: Engine, slug: str) -> Feed:
    with Session(engine) as session:
        return session.exec(select(Feed).where(Feed.slug == slug)).one()  # the row itself


async def add(poller: Poller, url: str, slug: str = "lumen") -> None:
    await Catalog(poller).add_feed(url, slug=slug, trusted=True)


async def poll(poller: Poller, clock: Clock, slug: str = "lumen") -> tuple[str, list[str]]:
    clock.advance(seconds=poller.settings.poll_interval_seconds * 100)
    feed_id = feed_row(poller.engine, slug).id
    assert feed_id is not None
    outcome = await poller.poll_feed(feed_id)
    return outcome.outcome, [f"{c.kind.value}: {c.item.title}" for c in outcome.changes]


async def test_before_after_reports_exactly_three_new_posts_oldest_first(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    outcome, events = await poll(poller, clock)
    assert outcome == "changed"
    assert events == [f"new: {title}" for title in blog.NEW_TITLES_OLDEST_FIRST]


async def test_first_poll_is_a_silent_baseline(
    feeds: FeedServer, poller: Poller, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    outcome = await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
    assert outcome.outcome == "baseline" and outcome.changes == ()
    assert outcome.items == len(blog.BEFORE_POSTS)
    with Session(engine) as session:
        assert len(session.exec(select(Item)).all()) == len(blog.BEFORE_POSTS)


async def test_real_text_edit_yields_one_edit_with_the_added_sentence(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await add(poller, url)
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))
    clock.advance(hours=1)
    feed_id = feed_row(poller.engine, "lumen").id
    assert feed_id is not None
    outcome = await poller.poll_feed(feed_id)
    assert [c.kind.value for c in outcome.changes] == ["edited"]
    diff = outcome.changes[0].diff
    assert diff is not None and diff.added == (blog.EDITED_SENTENCE,) and diff.removed == ()


async def test_markup_only_change_and_reappearing_post_yield_nothing(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await poll(poller, clock)
    # The two old posts come back (and the guide regains fetchpriority): nothing to report.
    feeds.serve("/feed/", blog.rss((*blog.AFTER_POSTS, blog.DAY_ONE, blog.FP8)))
    outcome, events = await poll(poller, clock)
    assert (outcome, events) == ("unchanged", [])


async def test_guidless_feed_uses_links_as_keys(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.without_guids(blog.BEFORE_POSTS)))
    await add(poller, url)
    feeds.serve("/feed/", blog.rss(blog.without_guids(blog.AFTER_POSTS)))
    _, events = await poll(poller, clock)
    assert events == [f"new: {title}" for title in blog.NEW_TITLES_OLDEST_FIRST]
    _, again = await poll(poller, clock)
    assert again == []


async def test_conditional_get_304_costs_no_parsing(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    outcome, events = await poll(poller, clock)
    assert (outcome, events) == ("not-modified", [])
    second = feeds.hits("/feed/")[-1].headers
    assert second["If-None-Match"].startswith('"')
    assert second["If-Modified-Since"] == "Tue, 08 Sep 2026 01:14:31 GMT"
    assert second["User-Agent"] == USER_AGENT and "Feedwatch/" in USER_AGENT


async def test_same_body_without_validators_skips_parsing(
    feeds: FeedServer, poller: Poller, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS), honour_validators=False)
    await add(poller, url)

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged body must not be parsed")

    monkeypatch.setattr("bot.services.poll_result.read_feed", no_parse)
    outcome, _ = await poll(poller, clock)
    assert outcome == "unchanged"


async def test_server_error_backs_off_exponentially_and_recovers(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    interval = poller.settings.poll_interval_seconds
    feeds.behave("/feed/", status(500))
    for errors in (1, 2, 3):
        outcome, _ = await poll(poller, clock)
        feed = feed_row(engine, "lumen")
        assert outcome == "error" and feed.error_count == errors
        assert feed.last_error == "HTTP 500" and feed.status == "error"
        assert feed.next_check_at == clock.now + timedelta(seconds=interval * 2**errors)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    _, events = await poll(poller, clock)
    assert len(events) == 3
    feed = feed_row(engine, "lumen")
    assert (feed.status, feed.error_count, feed.last_error) == ("ok", 0, None)


async def test_retry_after_is_honoured(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    feeds.behave("/feed/", status(429, **{"Retry-After": "7200"}))
    await poll(poller, clock)
    assert feed_row(engine, "lumen").next_check_at == clock.now + timedelta(seconds=7200)


@pytest.mark.parametrize(
    ("behaviour", "expected"),
    [
        (hang, "timed out"),
        (trickle(b"<", every=0.2, count=100), "timed out"),
        (raw(b"x" * 300_000, **{"Content-Type": "application/rss+xml"}), "larger than"),
        (
            raw(gzip.compress(b" " * 50_000_000), **{"Content-Encoding": "gzip"}),
            "decompressed body larger than",
        ),
        (
            raw(b"<html><body><h1>Oops</h1></body></html>", **{"Content-Type": "text/html"}),
            "not a feed",
        ),
        (raw(b"\x00\x01garbage\xff"), "not a feed"),
        (raw(b'{"items": []}', **{"Content-Type": "application/json"}), "not a feed"),
        (raw(b"", **{"Content-Type": "application/rss+xml"}), "not a feed"),
        (redirect(302, "file:///etc/passwd"), "only http and https"),
    ],
)
async def test_bad_responses_are_one_clear_error_and_change_nothing(
    feeds: FeedServer,
    poller: Poller,
    clock: Clock,
    engine: Engine,
    behaviour: object,
    expected: str,
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    before = _items(engine)
    feeds.behave("/feed/", behaviour)  # type: ignore[arg-type]
    outcome, events = await poll(poller, clock)
    feed = feed_row(engine, "lumen")
    assert outcome == "error" and events == []
    assert feed.last_error is not None and expected in feed.last_error
    assert "\n" not in feed.last_error
    assert _items(engine) == before


async def test_malformed_xml_that_still_has_entries_is_used(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    broken = blog.rss(blog.AFTER_POSTS).replace(b"</channel></rss>", b"<unclosed>")
    feeds.serve("/feed/", broken)
    _, events = await poll(poller, clock)
    assert events == [f"new: {title}" for title in blog.NEW_TITLES_OLDEST_FIRST]


async def test_permanent_redirect_updates_the_stored_url(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    old = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, old)
    new = feeds.serve("/new-feed/", blog.rss(blog.AFTER_POSTS))
    feeds.behave("/feed/", redirect(301, "/new-feed/"))
    _, events = await poll(poller, clock)
    assert len(events) == 3
    assert feed_row(engine, "lumen").url == new


async def test_temporary_redirect_keeps_the_stored_url(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    old = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, old)
    feeds.serve("/elsewhere/", blog.rss(blog.AFTER_POSTS))
    feeds.behave("/feed/", redirect(302, "/elsewhere/"))
    _, events = await poll(poller, clock)
    assert len(events) == 3
    assert feed_row(engine, "lumen").url == old


async def test_redirect_loop_is_cut_after_five_hops(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    feeds.behave("/feed/", redirect(302, "/feed/"))
    outcome, _ = await poll(poller, clock)
    assert outcome == "error"
    assert feed_row(engine, "lumen").last_error == "more than 5 redirects"
    assert len(feeds.hits("/feed/")) == 1 + 6


async def test_gone_disables_the_feed(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    feeds.behave("/feed/", status(410))
    outcome, _ = await poll(poller, clock)
    feed = feed_row(engine, "lumen")
    assert outcome == "gone" and feed.status == "gone" and "410" in (feed.last_error or "")
    clock.advance(days=2)
    with Session(engine) as session:
        assert store.feed_states(session, now=clock.now) == []


async def test_one_failing_feed_does_not_stop_the_others(
    feeds: FeedServer, poller: Poller, clock: Clock
) -> None:
    good = feeds.serve("/good/", blog.rss(blog.BEFORE_POSTS))
    bad = feeds.serve("/bad/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, good, "good")
    await add(poller, bad, "bad")
    feeds.serve("/good/", blog.rss(blog.AFTER_POSTS))
    feeds.behave("/bad/", hang)
    clock.advance(hours=1)
    report = await poller.poll_due()
    by_slug = {o.slug: o for o in report.outcomes}
    assert by_slug["bad"].outcome == "error"
    assert len(by_slug["good"].changes) == 3
    assert "3 new" in report.summary() and "1 errors" in report.summary()


async def test_items_absent_for_longer_than_the_prune_age_are_forgotten(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await poll(poller, clock)
    assert blog.FP8.guid in _items(engine)
    clock.advance(days=89)
    feeds.serve("/feed/", blog.rss((*blog.AFTER_POSTS, blog.GUIDE)))
    await poll(poller, clock)
    assert blog.FP8.guid in _items(engine)  # absent < 90 days: kept
    clock.advance(days=2)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))  # pruning runs when a body is parsed
    await poll(poller, clock)
    keys = _items(engine)
    assert blog.FP8.guid not in keys and blog.DAY_ONE.guid not in keys
    assert blog.LISBON.guid in keys


def _items(engine: Engine) -> set[str]:
    with Session(engine) as session:
        return set(session.exec(select(Item.key)).all())


async def test_a_feed_polls_at_its_own_pace_lengthened_by_its_hints(
    feeds: FeedServer, poller: Poller, clock: Clock, engine: Engine
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await add(poller, url)
    with transaction(engine) as session:
        store.set_interval(session, slug="lumen", seconds=600, now=clock.now)

    async def next_gap() -> timedelta:
        await poll(poller, clock)
        row = feed_row(engine, "lumen")
        assert row.last_checked_at is not None
        return row.next_check_at - row.last_checked_at

    assert await next_gap() == timedelta(minutes=10)  # an identical body: a quiet poll
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS), headers={"Cache-Control": "max-age=1800"})
    assert await next_gap() == timedelta(minutes=30)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS), headers={"Cache-Control": "max-age=86400"})
    assert await next_gap() == timedelta(hours=1)  # a hint never slows it past an hour
    ttl = blog.rss(blog.AFTER_POSTS).replace(b"<channel>", b"<channel><ttl>20</ttl>", 1)
    feeds.serve("/feed/", ttl)
    assert await next_gap() == timedelta(minutes=20)
