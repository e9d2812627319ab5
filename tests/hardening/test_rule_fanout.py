"""An attacker's own feed and rules cannot hold the database (issue 40, item 4: the fan-out).

Ten groups follow a feed of the attacker's with 20 `text:` rules each that never match, and its
posts are 100,000 characters: every group's rules are checked on every post. On main those
checks ran inside the poll's SQLite write transaction, so every other write waited for them:
another feed's post was late, `/resume` took as long as the checks, and past the busy timeout
commands and delivery rounds failed with "database is locked". Now the poll reads, plans and
routes (every rule check) before its write transaction, which only writes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from email.utils import format_datetime

import pytest
from sqlmodel import Session, select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Item
from bot.runtime.clock import utcnow
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, lumen_bot, posts

# Measures latency while one thread is busy: run alone, not beside another worker.
pytestmark = pytest.mark.serial

GROUPS = [-100_500 - n for n in range(10)]
READER, BYSTANDER = 321, 654
WORDS = ["café", "naïve", "über", "señal", "façade", "crème", "rôle", "piñata"]


def long_post(n: int) -> str:
    """About 100,000 characters of accented words (folding them is the work)."""
    words = [f"{WORDS[i % len(WORDS)]}{i % 97}" for i in range(n, n + 12_000)]
    return " ".join(words)[:100_000]


def attack_feed(count: int) -> bytes:
    when = format_datetime(utcnow())
    items = "".join(
        f"<item><title>Attack post {n}</title><link>https://attacker.example/{n}</link>"
        f"<guid>attack-{n}</guid><pubDate>{when}</pubDate>"
        f"<description><![CDATA[<p>{long_post(n)}</p>]]></description></item>"
        for n in range(count)
    )
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Attacker</title>'
        f"<link>https://attacker.example/</link>{items}</channel></rss>"
    ).encode()


@pytest.fixture
async def bot(sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(
        sqlite_url, bot_api, feeds, blog.BEFORE_POSTS, poll_interval_seconds=1
    ) as running:
        url = feeds.serve("/attack", attack_feed(1))
        outcome = await running.services.catalog.add_feed(url, slug="attack", trusted=True)
        with transaction(running.engine) as session:
            attack = store.get_feed(session, slug=outcome.slug)
            lumen = store.get_feed(session, slug="lumen")
            assert attack is not None and lumen is not None
            for n, group in enumerate(GROUPS):
                store.upsert_chat(session, chat_id=group, type_="supergroup", title=f"g{n}")
                store.subscribe(session, chat_id=group, feed_id=attack.id)
                rules = [f"text:never{n}x{r}" for r in range(20)]
                store.set_rules(session, chat_id=group, feed_id=attack.id, rules=rules)
            store.upsert_chat(session, chat_id=READER, type_="private", title="reader")
            store.subscribe(session, chat_id=READER, feed_id=lumen.id)
        yield running


async def test_rule_checks_on_huge_posts_do_not_hold_the_database(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await ask(bot_api, "/start", BYSTANDER)
    feeds.serve("/attack", attack_feed(2))  # a new 100,000-character post
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))  # and another feed's news
    started = time.monotonic()
    replies: list[float] = []

    async def resume_now_and_then() -> None:
        while not posts(bot_api, READER):
            sent = time.monotonic()
            await ask(bot_api, "/resume", BYSTANDER)
            replies.append(time.monotonic() - sent)
            await asyncio.sleep(0.2)

    await asyncio.wait_for(resume_now_and_then(), timeout=60)
    arrived = time.monotonic() - started
    # Let the attacker's poll finish: its checks must not fail anything either.
    await bot_api.wait_for(lambda: _stored(bot, "attack") == 2, timeout=60)
    assert arrived < 5.0, f"another feed's post took {arrived:.1f} s"
    assert replies and max(replies) < 2.0, f"/resume took up to {max(replies):.1f} s"
    assert "database is locked" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def _stored(bot: RunningBot, slug: str) -> int:
    with Session(bot.engine) as session:
        feed = store.get_feed(session, slug=slug)
        assert feed is not None
        return len(session.exec(select(Item).where(Item.feed_id == feed.id)).all())
