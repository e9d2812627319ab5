"""The steady scheduler (issue 30): due feeds claimed a few at a time, most overdue first, no
more in flight than its capacity, so a backlog is worked through without one giant cycle and
polls happen when they are due, not in bursts."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from aiohttp import web
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from bot.cli.health import check_health
from bot.core.polls.pacing import Pace
from bot.core.polls.schedule import LAST_CYCLE_KEY
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed
from bot.services.polling import Poller
from bot.services.scheduler import Scheduler
from bot.services.wiring import make_fetcher
from tests.support.clock import Clock
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import bot_settings, running_bot
from tests.support.settings import make_settings

BODY = blog.rss(blog.BEFORE_POSTS)


class Gauge:
    """How many requests the feed server is answering at once, at most."""

    def __init__(self, pause: float) -> None:
        self.pause, self.now, self.most = pause, 0, 0
        self.lock = threading.Lock()

    async def respond(self, request: web.Request) -> web.StreamResponse:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        await asyncio.sleep(self.pause)
        with self.lock:
            self.now -= 1
        return web.Response(body=BODY, headers={"Content-Type": "application/rss+xml"})


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, poll_concurrency=4, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings)


def add_feeds(engine: Engine, urls: list[str], due: list[datetime]) -> list[int]:
    with transaction(engine) as session:
        ids = []
        for n, url in enumerate(urls):
            feed = store.add_feed(session, slug=f"f{n}", url=url, title="", trusted=True)
            assert feed.id is not None
            ids.append(feed.id)
        for feed_id, when in zip(ids, due, strict=True):
            session.exec(update(Feed).where(col(Feed.id) == feed_id).values(next_check_at=when))
    return ids


async def test_a_backlog_is_claimed_a_capacity_at_a_time_most_overdue_first(
    engine: Engine, poller: Poller, feeds: FeedServer
) -> None:
    """A cold start: 60 feeds overdue by 1 to 60 minutes. Each claim takes what fits (20), the
    longest-waiting first; at most `poll_concurrency` fetches run at once; every feed is fetched
    exactly once (no lease ran out while it waited)."""
    gauge = Gauge(pause=0.01)
    urls = [feeds.behave(f"/f{n}", gauge.respond) for n in range(60)]
    now = poller.clock()
    ids = add_feeds(engine, urls, [now - timedelta(minutes=n + 1) for n in range(60)])
    scheduler = Scheduler(poller, capacity=20)
    assert await scheduler.step() == 20
    assert scheduler.behind and scheduler.in_flight == 20
    assert await scheduler.step() == 0  # no room until some finish
    claimed = [task.get_name() for task in scheduler._in_flight]
    assert sorted(claimed) == sorted(f"poll f{n}" for n in range(40, 60))
    assert scheduler.window.worst_delay >= 60 * 60 - 5
    rounds = 1
    while scheduler.behind or scheduler.in_flight:
        await scheduler.wait()
        rounds += 1
        await scheduler.step()
        assert scheduler.in_flight <= 20
    await scheduler.drain()
    assert not scheduler.behind
    assert all(len(feeds.hits(f"/f{n}")) == 1 for n in range(60))
    assert gauge.most <= 4
    assert rounds >= 4  # claims of at most 20, refilled when half were done
    assert scheduler.window.polls == 60
    with Session(engine) as session:
        rows = session.exec(select(Feed).where(col(Feed.id).in_(ids))).all()
    assert all(row.lease_until is None for row in rows)
    assert all(row.next_check_at.replace(tzinfo=UTC) > now for row in rows)


async def test_polls_happen_when_due_not_in_bursts(
    engine: Engine, poller: Poller, feeds: FeedServer
) -> None:
    """40 feeds due one every 0.1 s over the next 4 s: each is fetched within a tick of its due
    time, and none before it."""
    fetched: dict[str, datetime] = {}
    all_seen = threading.Event()

    async def record(request: web.Request) -> web.StreamResponse:
        fetched.setdefault(request.path, datetime.now(UTC))
        if len(fetched) == 40:
            all_seen.set()
        return web.Response(body=BODY, headers={"Content-Type": "application/rss+xml"})

    urls = [feeds.behave(f"/s{n}", record) for n in range(40)]
    start = datetime.now(UTC)
    due = [start + timedelta(seconds=0.5 + n * 0.1) for n in range(40)]
    add_feeds(engine, urls, due)
    scheduler = Scheduler(poller, tick=0.1)
    task = asyncio.create_task(scheduler.run())
    assert await asyncio.to_thread(all_seen.wait, 15)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    lateness = [(fetched[f"/s{n}"] - due[n]).total_seconds() for n in range(40)]
    assert min(lateness) > -0.05  # never early
    # A tick, a claim and a fetch; a 30 s cycle gave up to 30 s, polling the 4 s of due feeds
    # in one burst 2 s late at the median. A loaded CI machine (two cores, two test workers)
    # once took 0.82 s for one poll: the bounds allow such a hiccup, never a burst.
    assert sorted(lateness)[len(lateness) // 2] < 0.5
    assert max(lateness) < 1.5


async def test_quiet_polls_are_written_and_the_lease_given_back(
    engine: Engine, poller: Poller, feeds: FeedServer, db_url: str
) -> None:
    """A 304 is written at the next step (one batch), counted from its own poll, and a stop
    writes what was already polled instead of losing it."""
    clock = Clock()
    settings = make_settings(db_url, poll_concurrency=4, allow_private_feed_urls=True)
    still = Poller(engine, poller.fetcher, settings, clock=clock)
    url = feeds.serve("/q", BODY)
    (feed_id,) = add_feeds(engine, [url], [clock() - timedelta(seconds=1)])
    await still.poll_feed(feed_id)  # the baseline: validators stored
    with transaction(engine) as session:
        session.exec(update(Feed).values(next_check_at=clock() - timedelta(seconds=1)))
    scheduler = Scheduler(still)
    assert await scheduler.step() == 1
    await asyncio.gather(*scheduler._in_flight)
    assert len(scheduler._quiet) == 1  # a 304, waiting for the batch
    await scheduler.drain()
    with Session(engine) as session:
        row = session.exec(select(Feed).where(Feed.id == feed_id)).one()
        assert store.get_state(session, key=LAST_CYCLE_KEY) is None  # housekeeping's, not this
    assert row.lease_until is None
    assert row.next_check_at.replace(tzinfo=UTC) == clock() + timedelta(seconds=60)
    assert [seen.headers.get("If-None-Match") is not None for seen in feeds.hits("/q")] == [
        False,
        True,
    ]


async def test_the_running_loop_polls_steadily_and_records_health(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Through the app's own loop (no `poll_due`): a feed falling due is polled within about a
    tick, and with nothing overdue the loop records what `health` reads."""
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=5)
    assert check_health(settings)[0] is False
    fetched: list[datetime] = []

    async def record(request: web.Request) -> web.StreamResponse:
        fetched.append(datetime.now(UTC))
        return web.Response(body=BODY, headers={"Content-Type": "application/rss+xml"})

    async with running_bot(settings, updates=False) as bot:
        url = feeds.behave("/later", record)
        soon = datetime.now(UTC) + timedelta(seconds=1)
        add_feeds(bot.engine, [url], [soon])
        await bot_api.wait_for(lambda: len(fetched) == 1, timeout=5)
        assert timedelta(0) <= fetched[0] - soon < timedelta(seconds=1.5)
        await bot_api.wait_for(lambda: check_health(settings)[0], timeout=5)


async def test_a_hole_is_filled_as_fast_as_the_room_frees(
    engine: Engine, poller: Poller, feeds: FeedServer
) -> None:
    """Nothing due, but the due rate (here 60 feeds a second) owes polls: feeds due within the
    lookahead are claimed a little early, and when they fill the room the scheduler claims
    again as soon as half of it is free, not a tick later (a hole in a 100,000-feed schedule
    was filled at only the room per tick, 40 polls/s against 333 due)."""
    urls = [feeds.serve(f"/h{n}", BODY) for n in range(60)]
    now = poller.clock()
    add_feeds(engine, urls, [now + timedelta(seconds=1.5) for _ in range(60)])  # within 2.4 s
    scheduler = Scheduler(poller, capacity=20, tick=30.0)
    scheduler.pace = Pace(rate=60.0, burst=20)
    scheduler.pace.took_due(20)  # the burst is spent: only what the pace owes may go early
    scheduler.pace.grow(1.0)  # one second: 60 owed, 63 tokens
    assert await scheduler.step() == 20  # early ones, filling the room
    loop = asyncio.get_running_loop()
    started = loop.time()
    await scheduler.wait()  # a tick is 30 s: only the freed room ends this wait
    assert loop.time() - started < 5
    assert await scheduler.step() > 0
    await scheduler.drain()


def test_the_polling_line_counts_one_feed_as_one_feed() -> None:
    """Issue 43, item 9: `polling: 1 feeds in 2 s` read wrong."""
    from bot.core.polls.decide import PollKind
    from bot.services.scheduler import Window

    window = Window()
    window.kinds[PollKind.UNCHANGED] += 1
    assert window.line().startswith("polling: 1 feed in ")
    window.kinds[PollKind.NOT_MODIFIED] += 1
    assert window.line().startswith("polling: 2 feeds in ")
