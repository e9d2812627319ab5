"""One full-text page must not stall every feed (issue 40, item 3).

trafilatura is about n² in one block's inline elements, and ran in the two-thread pool that
every feed's parse needs, where a thread cannot be stopped: on the old main, two posts whose
pages were 449 KB of inline spans delayed an unrelated feed's post from 5.2 s to 84.7 s, another
chat's `/list` took up to 19.6 s (0.10 s at baseline) and the bot's memory went 116 → 243 MB.

Here the real process (`python -m bot run`) watches two operator feeds: a full-text one whose
new posts link such pages, and an unrelated one. The unrelated feed's post is timed alone
first (the baseline), then again while four span pages are being read; another chat's `/list`
is timed during both.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.fixtures.article_pages import Story, excerpt_feed, quiet_story
from tests.support.harness import posts
from tests.support.processes import bot_env, rss_mb, start_bot
from tests.support.settings import make_settings

pytestmark = pytest.mark.serial  # times replies and CPU of a process: not beside other work

SPANS_CHAT, CALM_CHAT, OTHER_CHAT = 501, 502, 9
OLD = [quiet_story(n) for n in range(3)]
HTML = {"content_type": "text/html; charset=utf-8"}
LIMIT = 30.0  # seconds any step may take (on the old main the second post took 85 s)


def span_page(kb: int = 449) -> bytes:
    """An article page whose one paragraph is `kb` KB of inline spans."""
    unit = b"<span>word</span> "
    return (
        b"<!doctype html><html><head><title>Spans</title></head><body><article><h1>Spans</h1><p>"
        + unit * (kb * 1024 // len(unit))
        + b"</p></article></body></html>"
    )


def story(n: int) -> Story:
    return Story(
        slug=f"spans{n}",
        title=f"Spans post {n}",
        lede=f"Spans post {n} opens with a sentence about the harbour's new ferry timetable.",
        paragraphs=("More.",),
    )


async def watch(engine: Engine, db_url: str, feeds: FeedServer) -> None:
    """Two operator feeds, `spans` (full text on) and `calm`, each with its chat, due now."""
    base = feeds.url("").rstrip("/")
    feeds.serve("/spans/feed", excerpt_feed(base, OLD))
    feeds.serve("/calm/feed", blog.rss(blog.BEFORE_POSTS))
    settings = make_settings(db_url)
    async with make_fetcher(settings) as fetcher:
        catalog = Catalog(Poller(engine, fetcher, settings))
        await catalog.add_feed(base + "/spans/feed", slug="spans", trusted=True)
        await catalog.add_feed(base + "/calm/feed", slug="calm", trusted=True)
    with transaction(engine) as session:
        store.set_full_text(session, slug="spans", on=True)
        for slug, chat in (("spans", SPANS_CHAT), ("calm", CALM_CHAT)):
            feed = session.exec(select(Feed).where(Feed.slug == slug)).one()
            assert feed.id is not None
            feed.next_check_at = datetime.now(UTC)
            session.add(feed)
            store.upsert_chat(session, chat_id=chat, type_="private", title="")
            store.subscribe(session, chat_id=chat, feed_id=feed.id)


async def timed(api: FakeBotApi, chat: int, count: int, since: float, limit: float) -> float:
    """Seconds from `since` until `chat` has had `count` posts (fails after `limit`)."""
    await api.wait_for(lambda: len(posts(api, chat)) >= count, timeout=limit)
    with api.lock:
        sent = [s.at for s in api.sent if s.chat_id == chat and s.text.startswith("<b><a href")]
    return sent[count - 1] - since


async def slowest_reply(
    api: FakeBotApi, pid: int, until: Callable[[], bool], limit: float = LIMIT
) -> tuple[float, float]:
    """Another chat's `/list`, every half second until `until()` (at most `limit` seconds):
    the slowest reply and the bot's largest RSS meanwhile."""
    slowest, largest = 0.0, rss_mb(pid)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = len(api.texts(OTHER_CHAT))
        started = time.monotonic()
        api.push_command("/list", chat_id=OTHER_CHAT, user_id=OTHER_CHAT)
        await api.wait_replies(OTHER_CHAT, before + 1, timeout=limit)
        slowest = max(slowest, time.monotonic() - started)
        largest = max(largest, rss_mb(pid))
        if until():
            break
        await asyncio.sleep(0.5)
    return slowest, largest


async def test_span_pages_delay_no_other_feed_nor_chat(
    engine: Engine, db_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    await watch(engine, db_url, feeds)
    base = feeds.url("").rstrip("/")
    log = tmp_path / "bot.log"
    env = bot_env(db_url, bot_api, COMMANDS_PER_MINUTE="1000")
    process = await start_bot(env, log)
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        await asyncio.sleep(2.0)  # the first polls: nothing new
        rss_before = rss_mb(process.pid)

        # The baseline: the unrelated feed's post alone.
        started = time.monotonic()
        feeds.serve("/calm/feed", blog.rss((blog.PUNE, *blog.BEFORE_POSTS)))
        alone_reply, _ = await slowest_reply(
            bot_api, process.pid, lambda: len(posts(bot_api, CALM_CHAT)) >= 1
        )
        alone = await timed(bot_api, CALM_CHAT, 1, started, LIMIT)

        # Four full-text posts whose pages are 449 KB of spans, and the unrelated feed's next
        # post a moment later, while those pages are being read.
        stories = [story(n) for n in range(4)]
        for made in stories:
            feeds.serve(f"/{made.slug}/", span_page(), **HTML)
        body = excerpt_feed(base, [*stories, *OLD])
        feeds.serve("/spans/feed", body)
        await bot_api.wait_for(lambda: len(feeds.hits(f"/{stories[0].slug}/")) == 1, timeout=30)
        started = time.monotonic()
        feeds.serve("/calm/feed", blog.rss((blog.LISBON, blog.PUNE, *blog.BEFORE_POSTS)))
        busy_reply, rss_most = await slowest_reply(
            bot_api,
            process.pid,
            lambda: len(posts(bot_api, CALM_CHAT)) >= 2 and len(posts(bot_api, SPANS_CHAT)) >= 4,
        )
        during = await timed(bot_api, CALM_CHAT, 2, started, LIMIT)
        # Pages slower than the wait (one at a time per feed, the workers at low priority)
        # are read after their posts went out with the excerpt, and stored: each read once.
        await bot_api.wait_for(
            lambda: all(feeds.hits(f"/{s.slug}/") for s in stories), timeout=LIMIT
        )
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    print(
        f"unrelated feed's post: {alone:.1f} s alone, {during:.1f} s beside the span pages; "
        f"/list ≤ {alone_reply:.2f} s alone, ≤ {busy_reply:.2f} s beside them; "
        f"RSS {rss_before:.0f} → {rss_most:.0f} MB"
    )
    assert code == 0
    assert during < alone + 3.0
    assert busy_reply < max(1.0, 3 * alone_reply)
    assert rss_most - rss_before < 40
    assert [len(feeds.hits(f"/{s.slug}/")) for s in stories] == [1, 1, 1, 1]
    sent = posts(bot_api, SPANS_CHAT)
    assert len(sent) == 4
    for text in sent:  # the article's top, or the excerpt when the page came too late
        assert "word word" in text or "harbour's new ferry timetable" in text
