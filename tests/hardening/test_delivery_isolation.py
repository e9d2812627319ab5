"""One chat's 429 holds only that chat, and an outage longer than the retry budget loses
nothing (issue 23, items 6 and 7)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlmodel import Session, select

from bot.db.tables import Delivery
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, command, lumen_bot, titles

THREE = [blog.PUNE.title, blog.CORVID.title, blog.LISBON.title]

ALL, GROUP, ADMIN = 111, -1001, 77  # as in tests/telegram/test_bot_delivery.py


@pytest.fixture
async def two_chats(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS, delivery_max_attempts=2) as bot:
        await command(bot_api, "/subscribe", ALL)
        bot_api.set_member(GROUP, ADMIN, "administrator")
        await command(bot_api, "/subscribe lumen", GROUP, ADMIN)
        yield bot


async def test_a_429_for_one_group_holds_that_group_only(
    two_chats: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail(
        "sendMessage",
        code=429,
        description="Too Many Requests: retry after 45",
        retry_after=45,
        chat_id=GROUP,
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    started = time.monotonic()
    await two_chats.services.poller.poll_due(all_feeds=True)
    two_chats.services.wake.set()
    await bot_api.wait_for(lambda: titles(bot_api, ALL) == THREE, timeout=10)
    assert time.monotonic() - started < 5  # not 45 s behind the group

    def group_waits() -> bool:
        with Session(two_chats.engine) as session:
            queue = session.exec(select(Delivery).where(Delivery.chat_id == GROUP)).all()
        now = datetime.now(UTC)
        return any(
            (d.next_attempt_at.replace(tzinfo=UTC) - now).total_seconds() >= 40 for d in queue
        )

    await bot_api.wait_for(group_waits, timeout=10)  # the group's queue waits as Telegram said
    with Session(two_chats.engine) as session:
        held = session.exec(select(Delivery).where(Delivery.chat_id == GROUP)).all()
    assert [d.status for d in held] == ["pending"] * 3
    assert all(d.attempts == 0 for d in held)  # a wait, not an attempt
    assert titles(bot_api, GROUP) == []


async def test_an_outage_longer_than_the_retry_budget_loses_nothing(
    two_chats: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Two attempts at 0.1 s backoff are a budget of well under a second; Telegram is down for
    three. Nothing is failed, and everything arrives once it is back."""
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    bot_api.down = True
    await two_chats.services.poller.poll_due(all_feeds=True)
    two_chats.services.wake.set()
    await asyncio.sleep(3.0)
    with Session(two_chats.engine) as session:
        failed = session.exec(select(Delivery).where(Delivery.status == "failed")).all()
        tried = session.exec(select(Delivery).where(Delivery.last_error.is_not(None))).all()  # type: ignore[union-attr]
    assert failed == [] and tried  # tried during the outage, never given up
    assert all(d.attempts == 0 for d in tried)
    bot_api.down = False
    await bot_api.wait_for(
        lambda: titles(bot_api, ALL) == THREE and titles(bot_api, GROUP) == THREE, timeout=30
    )


async def test_a_message_telegram_refuses_while_up_still_fails_after_its_attempts(
    two_chats: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail("sendMessage", code=500, description="Internal Server Error", chat_id=ALL, times=2)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await two_chats.services.poller.poll_due(all_feeds=True)
    two_chats.services.wake.set()
    await bot_api.wait_for(lambda: titles(bot_api, GROUP) == THREE, timeout=10)
    await bot_api.wait_for(lambda: len(titles(bot_api, ALL)) == 2, timeout=10)
    with Session(two_chats.engine) as session:
        failed = session.exec(select(Delivery).where(Delivery.status == "failed")).all()
    assert [(d.chat_id, d.attempts) for d in failed] == [(ALL, 2)]


async def test_in_an_outage_each_message_backs_off_alone_and_getme_is_asked_once() -> None:
    """Fifty chats failing in one round must not push each other's next try out to the cap,
    and an outage must not cost a getMe per message."""
    from bot.db.store import Queued
    from bot.services.retries import Retries, retry_delay

    def row(n: int) -> Queued:
        return Queued(n, n, None, "new", "x", False, False, None, None, now, 0)

    now = datetime(2026, 12, 1, tzinfo=UTC)
    asked = 0

    async def down() -> bool:
        nonlocal asked
        asked += 1
        return False

    retries = Retries(max_attempts=2, base=5.0, clock=lambda: now)
    first = [await retries.after_failure(row(n), "Bad Gateway", down) for n in range(50)]
    assert asked == 1  # one probe stands for the whole round
    assert all(r.at == now + retry_delay(1, 5.0) and not r.spend and not r.give_up for r in first)
    again = await retries.after_failure(row(0), "Bad Gateway", down)
    assert again.at == now + retry_delay(2, 5.0)  # its own second wait, not the fifty-first
