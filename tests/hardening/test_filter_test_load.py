"""One person's filter tests cannot stall every chat (issue 40, item 4: `/filter FEED test`).

The filter test (also run after every `/filter` and `/keywords` change) judges a feed's last 20
posts by the chat's rules. On the old main it ran on the event loop, and each `text:` rule
folded the whole post again: 20 rules × 20 posts of 100,000 characters were 400 folds, 4-6 s
per test, during which no other chat got an answer. Here the real process (`python -m bot run`)
holds such a feed; its follower sends the test 8 times and changes its keywords once, while
another chat's `/list` is timed. Now each post is folded once (its first 20,000 characters),
in a thread of the rule checks' own.
"""

from __future__ import annotations

import asyncio
import signal
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
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
from tests.support.processes import bot_env, start_bot
from tests.support.settings import make_settings

pytestmark = pytest.mark.serial  # times another chat's replies: not beside other work

ATTACKER, OTHER = 701, 702
WORDS = ["café", "naïve", "über", "señal", "façade", "crème", "rôle", "piñata"]
TESTS = 8
LIMIT = 120.0  # seconds the attacker's answers may take in all (the old main: about 45 s)


def long_post(n: int) -> str:
    """About 100,000 characters of accented words (folding them is the work)."""
    words = [f"{WORDS[i % len(WORDS)]}{i % 97}" for i in range(n, n + 12_000)]
    return " ".join(words)[:100_000]


def heavy_feed(count: int = 20) -> bytes:
    start = datetime(2026, 11, 1, tzinfo=UTC)
    items = "".join(
        f"<item><title>Heavy post {n}</title><link>https://heavy.example/{n}</link>"
        f"<guid>heavy-{n}</guid><pubDate>{format_datetime(start + timedelta(hours=n))}</pubDate>"
        f"<description><![CDATA[<p>{long_post(n)}</p>]]></description></item>"
        for n in range(count)
    )
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Heavy</title>'
        f"<link>https://heavy.example/</link>{items}</channel></rss>"
    ).encode()


async def watch(engine: Engine, db_url: str, feeds: FeedServer) -> None:
    """The heavy feed, followed by the attacker with 20 `text:` rules that never match."""
    url = feeds.serve("/heavy/feed", heavy_feed())
    settings = make_settings(db_url)
    async with make_fetcher(settings) as fetcher:
        await Catalog(Poller(engine, fetcher, settings)).add_feed(url, slug="heavy", trusted=True)
    with transaction(engine) as session:
        feed = session.exec(select(Feed).where(Feed.slug == "heavy")).one()
        assert feed.id is not None
        for chat in (ATTACKER, OTHER):
            store.upsert_chat(session, chat_id=chat, type_="private", title="")
            store.subscribe(session, chat_id=chat, feed_id=feed.id)
        rules = [f"text:never{r}" for r in range(20)]
        store.set_rules(session, chat_id=ATTACKER, feed_id=feed.id, rules=rules)
        stored = store.latest_items(session, feed_id=feed.id, limit=20)
    assert len(stored) == 20
    assert min(len(item.text) for _, item in stored) > 90_000  # the posts are stored whole


async def test_filter_tests_on_long_posts_hold_no_other_chat(
    engine: Engine, db_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    await watch(engine, db_url, feeds)
    env = bot_env(db_url, bot_api, COMMANDS_PER_MINUTE="1000", POLL_INTERVAL_SECONDS="3600")
    process = await start_bot(env, tmp_path / "bot.log")
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        for _ in range(TESTS):  # one person's burst, answered one after another in their chat
            bot_api.push_command("/filter heavy test", chat_id=ATTACKER, user_id=ATTACKER)
        bot_api.push_command("/keywords heavy café0", chat_id=ATTACKER, user_id=ATTACKER)
        started = time.monotonic()
        slowest, asked = 0.0, 0
        while len(bot_api.texts(ATTACKER)) < TESTS + 1:
            assert time.monotonic() - started < LIMIT, "the attacker's tests never finished"
            before = len(bot_api.texts(OTHER))
            sent = time.monotonic()
            bot_api.push_command("/list", chat_id=OTHER, user_id=OTHER)
            await bot_api.wait_replies(OTHER, before + 1, timeout=LIMIT)
            slowest, asked = max(slowest, time.monotonic() - sent), asked + 1
            await asyncio.sleep(0.2)
        took = time.monotonic() - started
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    print(f"{TESTS} filter tests and a change in {took:.1f} s; /list ≤ {slowest:.2f} s ({asked})")
    assert code == 0
    answers = bot_api.texts(ATTACKER)
    assert len(answers) == TESTS + 1
    for text in answers[:TESTS]:
        assert "<b>Filter test</b>: 0 of the last 20 posts would arrive." in text
        assert "text:never0" in text  # the rules that stop each post are named
    assert "Filter test" in answers[-1]
    assert slowest < 1.0, f"another chat's /list took {slowest:.2f} s"
