"""Several processes on one PostgreSQL database: three workers and one `run` share 50 feeds and
200 chats through row leases; one worker is killed with SIGKILL midway."""

from __future__ import annotations

import asyncio
import itertools
import signal
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session

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

FEEDS, CHATS, PER_CHAT, INTERVAL = 50, 200, 5, 3


def feed_title(n: int) -> str:
    return f"Feed {n:02d}"


def delivered(api: FakeBotApi) -> list[tuple[int, str]]:
    """(chat, feed title) for every Lisbon post message the fake received."""
    out = []
    with api.lock:
        for sent in api.sent:
            if blog.LISBON.title in sent.text:
                byline = sent.text.split("\n")[1]
                out.append((sent.chat_id, byline.split(" · ")[0]))
    return out


@pytest.mark.slow
async def test_three_workers_and_a_run_share_the_work_exactly(
    pg_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    engine = make_engine(pg_url)
    settings = make_settings(pg_url)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings)
        for n in range(FEEDS):
            url = feeds.serve(f"/f{n}/", blog.rss(blog.BEFORE_POSTS, title=feed_title(n)))
            await Catalog(poller).add_feed(url, slug=f"f{n}", trusted=True)
    expected: set[tuple[int, str]] = set()
    with transaction(engine) as session:
        ids = {f.feed.slug: f.feed.id for f in store.list_feeds(session)}
        for chat_id in range(1, CHATS + 1):
            store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
            # Its five feeds carry one post: folded, that is one message naming the other four
            # (issue 46); shown as quiet replies, five, each checked against those sent before.
            store.set_duplicates(session, chat_id=chat_id, mode=store.SHOW)
            for k in range(PER_CHAT):
                n = (chat_id + k * 10) % FEEDS
                feed_id = ids[f"f{n}"]
                assert feed_id is not None
                store.subscribe(session, chat_id=chat_id, feed_id=feed_id)
                expected.add((chat_id, feed_title(n)))
        session.exec(update(Feed).values(next_check_at=datetime.now(UTC)))
    for n in range(FEEDS):
        feeds.serve(f"/f{n}/", blog.rss((blog.LISBON, *blog.BEFORE_POSTS), title=feed_title(n)))
    assert len(expected) == CHATS * PER_CHAT

    bot_api.latency = 0.003
    env = bot_env(pg_url, bot_api, POLL_INTERVAL_SECONDS=str(INTERVAL), LEASE_SECONDS="3")
    first_request = len(feeds.requests)
    processes = [await start_bot(env, tmp_path / f"worker{i}.log", "worker") for i in range(3)]
    processes.append(await start_bot(env, tmp_path / "run.log", "run"))
    try:
        await bot_api.wait_for(lambda: len(delivered(bot_api)) >= 300, timeout=90)
        processes[0].kill()
        await processes[0].wait()
        await bot_api.wait_for(lambda: set(delivered(bot_api)) >= expected, timeout=120)
    finally:
        for process in processes[1:]:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        codes = [await asyncio.wait_for(p.wait(), timeout=20) for p in processes[1:]]
    assert codes == [0, 0, 0]

    counts = Counter(delivered(bot_api))
    assert set(counts) == expected
    duplicates = sum(c - 1 for c in counts.values())
    assert duplicates <= 1, f"{duplicates} duplicates with one killed worker"

    with feeds.lock:
        hits = feeds.requests[first_request:]
    by_path = {
        path: sorted(h.at for h in group)
        for path, group in itertools.groupby(
            sorted(hits, key=lambda h: h.path), key=lambda h: h.path
        )
    }
    assert len(by_path) == FEEDS
    for path, times in by_path.items():
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(gap >= INTERVAL * 0.95 for gap in gaps), (
            f"{path} fetched twice within one interval: {gaps}"
        )
    with Session(engine) as session:
        assert store.pending_count(session) == 0
    engine.dispose()
