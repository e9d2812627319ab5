"""One Telegram budget for every process (issue 17): one `run` and two `worker`s on PostgreSQL,
a fake Bot API that answers 429 above 30 messages a second overall and 20 a minute per group.
A 600-message fan-out with 120 commands in the middle: no 429, every command answered, every
message delivered once, and the budget used at more than 80% of the limit."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update

from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.tables import Feed
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.processes import bot_env, start_bot
from tests.support.settings import make_settings

# Measures time or throughput across processes: run alone, not beside another worker.
pytestmark = pytest.mark.serial

FEEDS, PER_CHAT, LIMIT = 20, 10, 30
PRIVATE = list(range(1, 56))
GROUPS = [-1001 - n for n in range(5)]
CHATS = PRIVATE + GROUPS  # 60 chats × 10 feeds = 600 messages


def title(n: int) -> str:
    return f"Feed {n:02d}"


def posts(api: FakeBotApi) -> list[tuple[int, str, float]]:
    """(chat, feed title, when) for every new-post message the fake accepted."""
    out = []
    with api.lock:
        for sent in api.sent:
            if blog.LISBON.title in sent.text:
                feed = sent.text.split("\n")[1].split(" · ")[0]
                out.append((sent.chat_id, feed, sent.at))
    return out


async def prepare(pg: str, feeds: FeedServer) -> set[tuple[int, str]]:
    engine = make_engine(pg)
    settings = make_settings(pg)
    async with make_fetcher(settings) as fetcher:
        catalog = Catalog(Poller(engine, fetcher, settings))
        for n in range(FEEDS):
            url = feeds.serve(f"/f{n}/", blog.rss(blog.BEFORE_POSTS, title=title(n)))
            await catalog.add_feed(url, slug=f"f{n}", trusted=True)
    expected = set()
    with transaction(engine) as session:
        ids = {row.feed.slug: row.feed.id for row in store.list_feeds(session)}
        for index, chat_id in enumerate(CHATS):
            kind = "private" if chat_id > 0 else "supergroup"
            store.upsert_chat(session, chat_id=chat_id, type_=kind, title="")
            # Its ten feeds carry one post: folded, that is one message (issue 46); shown as
            # quiet replies, ten, each checked against the stories sent before it.
            store.set_duplicates(session, chat_id=chat_id, mode=store.SHOW)
            for k in range(PER_CHAT):
                n = (index + k * 2) % FEEDS
                store.subscribe(session, chat_id=chat_id, feed_id=ids[f"f{n}"])
                expected.add((chat_id, title(n)))
        session.exec(update(Feed).values(next_check_at=datetime.now(UTC)))
    engine.dispose()
    for n in range(FEEDS):
        feeds.serve(f"/f{n}/", blog.rss((blog.LISBON, *blog.BEFORE_POSTS), title=title(n)))
    assert len(expected) == 600
    return expected


async def fan_out(
    pg: str, api: FakeBotApi, feeds: FeedServer, tmp_path: Path, *, kill_one: bool
) -> tuple[set[tuple[int, str]], list[asyncio.subprocess.Process]]:
    expected = await prepare(pg, feeds)
    api.rate_limit = LIMIT
    env = bot_env(
        pg, api, TELEGRAM_RATE_PER_SECOND=str(LIMIT), POLL_INTERVAL_SECONDS="2", LEASE_SECONDS="5"
    )  # a killed worker's chats are taken over after 5 s
    processes = [await start_bot(env, tmp_path / f"worker{i}.log", "worker") for i in range(2)]
    processes.append(await start_bot(env, tmp_path / "run.log", "run"))
    await api.wait_for(lambda: len(posts(api)) >= 150, timeout=60)
    for round_ in range(2):  # 120 commands in the middle of the fan-out
        for chat_id in PRIVATE + PRIVATE[:5]:
            api.push_command("/feeds", chat_id=chat_id, user_id=chat_id)
        if kill_one and round_ == 0:
            processes[0].kill()
            await processes[0].wait()
        await asyncio.sleep(1)
    await api.wait_for(lambda: {(c, f) for c, f, _ in posts(api)} >= expected, timeout=120)
    return expected, processes


async def stop(processes: list[asyncio.subprocess.Process]) -> list[int]:
    for process in processes:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
    return [await asyncio.wait_for(p.wait(), timeout=20) for p in processes]


@pytest.mark.slow
async def test_three_processes_share_one_budget_and_answer_every_command(
    pg_url: str,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    tmp_path: Path,
) -> None:
    expected, processes = await fan_out(pg_url, bot_api, feeds, tmp_path, kill_one=False)
    await bot_api.wait_for(
        lambda: (
            all(sum("Watched feeds" in t for t in bot_api.texts(c)) >= 2 for c in PRIVATE[:5])
            and all(any("Watched feeds" in t for t in bot_api.texts(c)) for c in PRIVATE)
        ),
        timeout=30,
    )
    codes = await stop(processes)
    assert codes == [0, 0, 0]
    assert bot_api.too_many == 0, f"{bot_api.too_many} answers 429"
    sent = posts(bot_api)
    counts = Counter((c, f) for c, f, _ in sent)
    assert set(counts) == expected and max(counts.values()) == 1
    times = sorted(at for _, _, at in sent)
    with bot_api.lock:
        during = [
            c for c in bot_api.calls if c.method == "sendMessage" and times[0] <= c.at <= times[-1]
        ]
    rate = len(during) / (times[-1] - times[0])
    assert rate >= 0.8 * LIMIT, f"{rate:.1f} messages/s is under 80% of {LIMIT}"


@pytest.mark.slow
async def test_a_killed_worker_loses_nothing_and_repeats_at_most_one(
    pg_url: str,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    expected, processes = await fan_out(pg_url, bot_api, feeds, tmp_path, kill_one=True)
    codes = await stop(processes[1:])
    assert codes == [0, 0]
    counts = Counter((c, f) for c, f, _ in posts(bot_api))
    assert set(counts) == expected
    assert sum(n - 1 for n in counts.values()) <= 1
    assert bot_api.too_many == 0
    assert time.monotonic() - started < 180


async def test_a_reply_that_meets_a_429_waits_and_is_sent(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """The 429 used to raise inside the handler: the user got nothing."""
    from tests.support.harness import ask, lumen_bot

    async with lumen_bot(sqlite_url, bot_api, feeds, blog.AFTER_POSTS):
        bot_api.fail(
            "sendMessage",
            code=429,
            description="Too Many Requests: retry after 1",
            chat_id=555,
            retry_after=1,
        )
        started = time.monotonic()
        assert "Watched feeds" in await ask(bot_api, "/feeds", 555)
        assert time.monotonic() - started >= 1.0
    attempts = [c for c in bot_api.calls_to("sendMessage") if c.params.get("chat_id") == 555]
    assert len(attempts) == 2


async def test_the_buckets_never_let_a_window_exceed_the_limit() -> None:
    """The overall bucket: 60 messages at a 30/s limit take two seconds, and no one-second
    window holds more than 30; a group's minute holds at most its 20."""
    from bot.telegram.budget import MemoryBuckets, SharedRateLimiter

    limiter = SharedRateLimiter(MemoryBuckets(), per_second=30, group_per_minute=20)
    assert limiter.capacity == 1.0  # no burst at Telegram's own rate
    # Reserved at (nearly) one instant: each wait is the slot's offset from now.
    offsets = [
        await limiter.buckets.reserve("overall", limiter.rate, limiter.capacity) for _ in range(60)
    ]
    assert all(sum(1 for t in offsets if start <= t < start + 1) <= 30 for start in offsets)
    assert offsets[-1] < 60 / (0.8 * 30)  # and the rate stays above 80% of the limit
    fast = SharedRateLimiter(MemoryBuckets(), per_second=1000, group_per_minute=20)
    slots = [await fast.buckets.reserve("overall", fast.rate, fast.capacity) for _ in range(2000)]
    assert 0.9 * 1000 <= 2000 / slots[-1] <= 1000  # 90% of a 1,000/s limit is reachable
    # A bunch that arrives at once, with 50 ms of late sends on top, still fits one second.
    assert all(
        sum(1 for t in slots if start - 0.05 <= t < start + 1) <= 0.99 * 1000 for start in slots
    )
    group = [await limiter.buckets.reserve("g", limiter.group_rate, limiter.group_capacity)]
    group += [
        await limiter.buckets.reserve("g", limiter.group_rate, limiter.group_capacity)
        for _ in range(29)
    ]
    in_first_minute = sum(1 for wait in group if wait < 60)
    assert in_first_minute <= 20
