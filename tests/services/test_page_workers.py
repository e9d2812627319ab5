"""Pages' articles are extracted in worker processes that can be stopped (issue 40, item 3):
reused across pages, killed at their deadline (the post keeps the feed's excerpt, with one log
line), limited in CPU time and address space, without the bot's secrets, all ended on close."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from sqlalchemy import Engine

from bot.core.messages.article import MAX_CHILDREN, extract_article
from bot.services.pageworkers import PageWorkers
from tests.services.test_full_text import OLD, bad, make_site, messages
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.article_pages import CRANES, news_page

URL = "https://p.example/cranes/"


def table(kb: int) -> bytes:
    """A large table: linear in trafilatura, about half a second for 512 KB once bounded."""
    row = b"<tr>" + b"<td>cell text</td>" * 8 + b"</tr>\n"
    return b"<html><body><article><table>" + row * (kb * 1024 // len(row)) + b"</table></article>"


def spans(kb: int) -> bytes:
    """The review's page: one paragraph of inline spans (trafilatura is about n² in them)."""
    unit = b"<span>word</span> "
    body = unit * (kb * 1024 // len(unit))
    return b"<html><body><article><h1>T</h1><p>" + body + b"</p></article></body></html>"


@pytest.fixture
async def pool() -> AsyncIterator[PageWorkers]:
    workers = PageWorkers(workers=1)
    yield workers
    workers.close()


def environ(pid: int) -> bytes:
    return Path(f"/proc/{pid}/environ").read_bytes()


def limits(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    return {line[:26].strip(): line[26:47].strip() for line in lines}


async def test_workers_extract_like_the_core_and_are_reused(pool: PageWorkers) -> None:
    page = news_page(CRANES, "https://p.example")
    for _ in range(3):
        found = await pool.extract(page, URL, CRANES.title)
        assert found == extract_article(page, URL, CRANES.title)
    assert (pool.started, pool.killed) == (1, 0)


async def test_the_inline_spans_page_is_bounded_before_extraction(pool: PageWorkers) -> None:
    """449 KB of spans took trafilatura 42 s; the bounded tree keeps the first spans."""
    pool.deadline = 120
    found = await pool.extract(spans(449), URL, "T")
    assert found.ok
    assert found.html.count("word") == MAX_CHILDREN


async def test_a_page_past_its_deadline_is_killed_and_the_next_page_gets_a_new_worker() -> None:
    pool = PageWorkers(workers=1, deadline=0.05)
    try:
        slow = await pool.extract(table(512), URL, "T")
        assert slow.error == "extraction stopped after 0.05 s (the page costs too much)"
        assert (pool.started, pool.killed) == (1, 1)
        pool.deadline = 120
        assert (await pool.extract(news_page(CRANES, "https://p.example"), URL, "T")).ok
        assert pool.started == 2
    finally:
        pool.close()


async def test_a_page_gets_only_the_memory_its_worker_may_add(pool: PageWorkers) -> None:
    """With 1 MB to spare, a 512 KB table cannot even be parsed: no article, no growth."""
    pool.deadline = 120  # a loaded machine: this test is about memory, not time
    assert (await pool.extract(table(512), URL, "T")).ok  # with the default room
    tight = PageWorkers(workers=1, memory_bytes=1024 * 1024, deadline=120)
    try:
        found = await tight.extract(table(512), URL, "T")
        assert not found.ok, found
    finally:
        tight.close()


async def test_workers_run_with_limits_and_without_secrets(
    pool: PageWorkers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:secret-token")
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://u:pw@db/x")
    await pool.extract(news_page(CRANES, "https://p.example"), URL, "T")
    (worker,) = pool._all
    pid = worker.process.pid
    environment = environ(pid)
    assert b"secret-token" not in environment and b"pw@db" not in environment
    kept = limits(pid)
    assert kept["Max cpu time"] != "unlimited"  # this page's CPU budget
    assert kept["Max address space"] != "unlimited"
    assert kept["Max core file size"] == "0"
    assert os.getpriority(os.PRIO_PROCESS, pid) >= 10


async def test_close_ends_every_worker() -> None:
    pool = PageWorkers(workers=2)
    page = news_page(CRANES, "https://p.example")
    await asyncio.gather(*(pool.extract(page, URL, "T") for _ in range(4)))
    processes = [w.process for w in pool._all]
    assert processes
    pool.close()
    assert all(p.poll() is not None for p in processes)


# --- through the poller: a page that runs too long is the excerpt and one log line -----------


async def test_a_killed_extraction_sends_the_excerpt_with_one_log_line(
    engine: Engine, db_url: str, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    async for site in make_site(engine, db_url, feeds):
        site.poller.enricher.full_text.pages.workers = PageWorkers(workers=1, deadline=0.05)
        story = bad("costly")

        async def costly(request: web.Request) -> web.StreamResponse:
            return web.Response(body=table(512), content_type="text/html")

        site.feeds.behave("/costly/", costly)
        site.serve_feed([story, *OLD])
        with caplog.at_level(logging.INFO, logger="bot.services.articles"):
            await site.poller.poll_feed(1)
            await site.poller.settle()
        site.poller.enricher.full_text.pages.workers.close()
        text, _ = messages(engine)[story.title]
        assert story.lede[:60] in text
        lines = [r.getMessage() for r in caplog.records if "costly" in r.getMessage()]
        assert len(lines) == 1, lines
        assert "extraction stopped after 0.05 s" in lines[0]
        assert "uses the feed's excerpt" in lines[0]


async def test_warming_starts_one_worker_ahead_of_the_first_page() -> None:
    """A poll warms the pool while its first page is fetched: the page finds a worker ready."""
    pool = PageWorkers(workers=2)
    try:
        pool.warm()
        pool.warm()  # one is on its way: no second
        for _ in range(1200):  # a minute at most, on a loaded machine
            if pool.started:
                break
            await asyncio.sleep(0.05)
        assert pool.started == 1
        pool.warm()  # one is there
        assert (await pool.extract(news_page(CRANES, "https://p.example"), URL, "T")).ok
        assert pool.started == 1
    finally:
        pool.close()
