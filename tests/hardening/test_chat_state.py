"""What a chat asked for holds, whatever is in flight (issue 11, items 5, 6, 7).

- /pause and /unsubscribe cancel what is queued (held digest rows too); a paused chat gets no
  digest; nothing arrives until /resume.
- A group upgraded to a supergroup keeps its pause, time zone and language.
- A database that refuses to record a sent message makes the bot hold that chat (one send, not a
  resend every 50 ms) and back off, logging one line per step.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from bot.db.tables import Chat, Delivery
from bot.services.digests import run_digests
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, lumen_bot, titles

CHAT, GROUP, SUPERGROUP, ADMIN = 111, -1001, -100555, 77
LATER = datetime.now(UTC) + timedelta(days=2)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


def statuses(engine: Engine, chat_id: int) -> list[str]:
    with Session(engine) as session:
        query = select(Delivery.status).where(Delivery.chat_id == chat_id)
        return sorted(session.exec(query.order_by(col(Delivery.id))).all())


async def stop_sending(bot: RunningBot) -> None:
    """Stop the delivery loop so polls queue messages that stay queued."""
    assert bot.services.deliverer is not None
    bot.services.deliverer.stopping = True
    bot.services.wake.set()
    assert bot.services.loops is not None
    task = next(t for t in bot.services.loops.tasks if t.get_name() == "feedwatch-deliver")
    await asyncio.wait_for(task, timeout=10)


async def send_now(bot: RunningBot) -> int:
    assert bot.services.deliverer is not None
    bot.services.deliverer.stopping = False
    return await bot.services.deliverer.deliver_due()


async def test_pause_cancels_queued_messages_and_nothing_arrives_until_resume(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe lumen", CHAT)
    await stop_sending(bot)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await bot.services.poller.poll_due(all_feeds=True)
    assert statuses(bot.engine, CHAT) == ["pending"] * 3
    await ask(bot_api, "/pause", CHAT)
    assert statuses(bot.engine, CHAT) == ["cancelled"] * 3
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))  # an edit while paused: not queued
    await bot.services.poller.poll_due(all_feeds=True)
    assert await send_now(bot) == 0 and titles(bot_api, CHAT) == []
    await ask(bot_api, "/resume", CHAT)
    # A new edit of the guide after /resume: the chat was never sent the guide (cancelled while
    # paused, and in the feed before it subscribed), so no difference against it (issue 43).
    guide = replace(
        blog.GUIDE, fetchpriority=False, paragraphs=(*blog.GUIDE.paragraphs, "Doors open at nine.")
    )
    feeds.serve("/feed/", blog.rss((*blog.AFTER_POSTS[:3], guide, *blog.MIDDLE)))
    await bot.services.poller.poll_due(all_feeds=True)
    assert await send_now(bot) == 0
    # A new post after /resume arrives.
    later = replace(blog.CORVID, guid="later-1", slug="later-post", title="A later post")
    feeds.serve("/feed/", blog.rss((later, *blog.AFTER_POSTS[:3], guide, *blog.MIDDLE)))
    await bot.services.poller.poll_due(all_feeds=True)
    assert await send_now(bot) == 1
    assert titles(bot_api, CHAT) == ["A later post"]


async def test_unsubscribe_cancels_pending_and_held_messages(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe lumen", CHAT)
    await ask(bot_api, "/digest lumen hourly", CHAT)
    await ask(bot_api, "/subscribe lumen", CHAT + 1)
    await stop_sending(bot)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await bot.services.poller.poll_due(all_feeds=True)
    assert statuses(bot.engine, CHAT) == ["held"] * 3
    assert statuses(bot.engine, CHAT + 1) == ["pending"] * 3
    await ask(bot_api, "/unsubscribe lumen", CHAT)
    await ask(bot_api, "/unsubscribe all", CHAT + 1)
    assert statuses(bot.engine, CHAT) == statuses(bot.engine, CHAT + 1) == ["cancelled"] * 3
    assert await asyncio.to_thread(run_digests, bot.engine, lambda: LATER) == 0
    assert await send_now(bot) == 0
    assert titles(bot_api, CHAT) == titles(bot_api, CHAT + 1) == []


async def test_a_paused_chat_gets_no_digest(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Even with held rows left from before (a pause recorded by an older version)."""
    await ask(bot_api, "/subscribe lumen", CHAT)
    await ask(bot_api, "/digest lumen hourly", CHAT)
    await stop_sending(bot)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await bot.services.poller.poll_due(all_feeds=True)
    with bot.engine.begin() as connection:
        connection.execute(update(Chat).where(col(Chat.id) == CHAT).values(paused=True))
    assert await asyncio.to_thread(run_digests, bot.engine, lambda: LATER) == 0
    with bot.engine.begin() as connection:
        connection.execute(update(Chat).where(col(Chat.id) == CHAT).values(paused=False))
    assert await asyncio.to_thread(run_digests, bot.engine, lambda: LATER) == 1


async def test_a_group_upgrade_keeps_pause_zone_and_language(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    for line in ("/subscribe lumen", "/timezone Asia/Tokyo", "/language es", "/pause"):
        await ask(bot_api, line, chat_id=GROUP, chat_type="group")
    bot_api.push_migration(GROUP, SUPERGROUP, user_id=ADMIN)

    def moved() -> Chat | None:
        with Session(bot.engine) as session:
            return session.get(Chat, SUPERGROUP)

    await bot_api.wait_for(lambda: moved() is not None)
    chat = moved()
    assert chat is not None
    assert (chat.paused, chat.timezone, chat.language) == (True, "Asia/Tokyo", "es")
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert titles(bot_api, SUPERGROUP) == [] and titles(bot_api, GROUP) == []


def notifications_sent(api: FakeBotApi, chat_id: int) -> int:
    return sum(
        1
        for call in api.calls_to("sendMessage")
        if call.params.get("chat_id") == chat_id and "href" in str(call.params.get("text"))
    )


async def test_a_send_the_database_cannot_record_is_not_repeated(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    async with lumen_bot(sqlite_url, bot_api, feeds, blog.BEFORE_POSTS) as bot:
        await ask(bot_api, "/subscribe lumen", CHAT)
        with bot.engine.begin() as connection:  # a real refusal, from the database itself
            connection.exec_driver_sql(
                "CREATE TRIGGER refuse_sent BEFORE UPDATE OF status ON delivery "
                "WHEN NEW.status = 'sent' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
            )
        caplog.clear()
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await bot.services.poller.poll_due(all_feeds=True)
        bot.services.wake.set()
        await bot_api.wait_for(lambda: notifications_sent(bot_api, CHAT) >= 1)
        await asyncio.sleep(2.0)  # long enough for 40 resends at the old 50 ms pace
        assert notifications_sent(bot_api, CHAT) == 1
        tracebacks = [r for r in caplog.records if r.exc_info]
        failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(tracebacks) <= 1 and len(failures) <= 5, [r.getMessage() for r in failures]
        with bot.engine.begin() as connection:
            connection.exec_driver_sql("DROP TRIGGER refuse_sent")
        await bot_api.wait_for(lambda: len(titles(bot_api, CHAT)) == 3, timeout=15)
    assert titles(bot_api, CHAT) == list(blog.NEW_TITLES_OLDEST_FIRST)  # each once, in order
    assert notifications_sent(bot_api, CHAT) == 3


@pytest.mark.serial  # counts delivery rounds in 2.5 s: not beside another worker
async def test_a_database_refusing_writes_is_retried_with_backoff(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    async with lumen_bot(sqlite_url, bot_api, feeds, blog.BEFORE_POSTS) as bot:
        await ask(bot_api, "/subscribe lumen", CHAT)
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await asyncio.sleep(0.2)  # the /subscribe reply's own delivery round is over
        caplog.clear()  # before the trigger: a round the delivery loop runs on its own counts
        with bot.engine.begin() as connection:  # delivery cannot even lease a chat
            connection.exec_driver_sql(
                "CREATE TRIGGER refuse_lease BEFORE UPDATE OF lease_until ON chat "
                "BEGIN SELECT RAISE(ABORT, 'database is read-only'); END"
            )
        await bot.services.poller.poll_due(all_feeds=True)
        bot.services.wake.set()
        await asyncio.sleep(2.5)
        rounds = [r for r in caplog.records if "delivery round failed" in r.getMessage()]
        assert 1 <= len(rounds) <= 4, [r.getMessage() for r in rounds]  # 0.5 s, 1 s, 2 s …
        assert sum(1 for r in rounds if r.exc_info) == 1
        with bot.engine.begin() as connection:
            connection.exec_driver_sql("DROP TRIGGER refuse_lease")
        await bot_api.wait_for(lambda: len(titles(bot_api, CHAT)) == 3, timeout=15)
