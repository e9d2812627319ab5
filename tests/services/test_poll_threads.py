"""A changed feed's poll work (the quick parse's read of known rows, the read, plan and
render, the write) runs in the parsing pool's threads, one per core: in the default executor
ten polls at a time handed the GIL between six threads, and the database's threads are the
chats'."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy import Engine

from bot.runtime.metrics import stage_totals
from bot.services import cpu, polling
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings)


async def test_a_changed_poll_s_work_runs_in_the_parsing_pool(
    poller: Poller, feeds: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: dict[str, set[str]] = {}

    def watched(name: str) -> Callable[..., Any]:
        work = getattr(polling, name)

        def run(*args: Any) -> Any:
            threads.setdefault(name, set()).add(threading.current_thread().name)
            return work(*args)

        return run

    for name in ("shown", "decide_changed", "finish_changed"):
        monkeypatch.setattr(polling, name, watched(name))
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await poller.poll_due(all_feeds=True)
    assert set(threads) == {"shown", "decide_changed", "finish_changed"}
    names = set().union(*threads.values())
    assert names and all(n.startswith("feedwatch-parse") for n in names)
    assert len(names) <= cpu.PARSE_THREADS


async def test_a_changed_poll_counts_its_cpu_by_stage(poller: Poller, feeds: FeedServer) -> None:
    """`./dev bench` prints where a change cycle's CPU goes from these counters."""
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    before = stage_totals()
    report = await poller.poll_due(all_feeds=True)
    assert report.new + report.edited > 0
    after = stage_totals()
    grown = {stage for stage, cpu in after.items() if cpu > before.get(stage, 0.0)}
    # SQLite's search rows are written after the commit; PostgreSQL's in the write itself
    index = {"index"} if poller.engine.dialect.name == "sqlite" else set()
    assert grown == {"parse", "read", "plan", "render", "write", "quiet"} | index
