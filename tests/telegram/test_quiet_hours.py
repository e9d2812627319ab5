"""Quiet hours end to end (issue 29): /quiet through PTB in en, es and zh; ten posts in the
window held (not sent), nothing lost across a restart, and one digest when the window ends in
the chat's time zone; a few held posts go out as they were; other chats are not held."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session

from bot.db import store
from bot.services.quiet import release_quiet
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.night import rss
from tests.support.harness import ask, bot_settings, cycle, running_bot

QUIET, LOUD = 111, 222
ZONE = "Asia/Shanghai"


def window_around_now() -> tuple[str, datetime]:
    """Quiet hours from an hour ago to an hour from now, in ZONE; and when they end (UTC)."""
    now = datetime.now(UTC)
    local = now.astimezone(ZoneInfo(ZONE))
    start, end = local - timedelta(hours=1), local + timedelta(hours=1)
    ends = (
        now + timedelta(hours=1) - timedelta(seconds=local.second, microseconds=local.microsecond)
    )
    return f"{start:%H:%M}-{end:%H:%M}", ends


def pending(engine: object, chat_id: int) -> int:
    with Session(engine) as session:  # type: ignore[arg-type]
        return len(store.pending_by_chat(session, chat_ids=[chat_id]).get(chat_id, []))


async def test_quiet_hours_hold_overnight_and_deliver_one_digest_after_a_restart(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    window, ends = window_around_now()
    url = feeds.serve("/night.xml", rss(0))
    async with running_bot(settings) as bot:
        await bot.services.catalog.add_feed(url, slug="night", trusted=True)
        for chat in (QUIET, LOUD):
            await ask(bot_api, "/subscribe night", chat)
        await ask(bot_api, f"/timezone {ZONE}", QUIET)
        reply = await ask(bot_api, f"/quiet {window}", QUIET)
        assert reply.startswith(f"Quiet hours {window} (Asia/Shanghai): messages are held")
        assert f"Quiet hours: {window} (/quiet off)." in await ask(bot_api, "/list", QUIET)
        before = len(bot_api.texts(QUIET))
        feeds.serve("/night.xml", rss(10))
        await cycle(bot, bot_api)
        assert len([t for t in bot_api.texts(LOUD) if "Night post" in t]) == 10
        assert len(bot_api.texts(QUIET)) == before  # held, not sent
    async with running_bot(settings) as bot:  # a restart inside the window
        assert release_quiet(bot.engine, clock=lambda: ends - timedelta(minutes=1)) == 0
        assert release_quiet(bot.engine, clock=lambda: ends) == 1  # one digest message
        bot.services.wake.set()
        await bot_api.wait_replies(QUIET, before + 1)
        (digest,) = bot_api.texts(QUIET)[before:]
        assert all(f"Night post {n}<" in digest for n in range(10))
        assert release_quiet(bot.engine, clock=lambda: ends) == 0  # released once


async def test_a_few_held_posts_go_out_as_they_were(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    window, ends = window_around_now()
    url = feeds.serve("/night.xml", rss(0))
    async with running_bot(settings) as bot:
        await bot.services.catalog.add_feed(url, slug="night", trusted=True)
        await ask(bot_api, "/subscribe night", QUIET)
        await ask(bot_api, f"/timezone {ZONE}", QUIET)
        await ask(bot_api, f"/quiet {window}", QUIET)
        feeds.serve("/night.xml", rss(2))
        await bot.services.poller.poll_due(all_feeds=True)
        assert pending(bot.engine, QUIET) == 0
        assert release_quiet(bot.engine, clock=lambda: ends) == 2
        assert pending(bot.engine, QUIET) == 2
        await cycle(bot, bot_api)
        sent = [t for t in bot_api.texts(QUIET) if t.startswith("<b><a href")]
        assert len(sent) == 2 and "What happened at night" in sent[0]


async def test_quiet_replies_in_three_languages(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(db_url, bot_api)
    async with running_bot(settings):
        assert "HH:MM-HH:MM" in await ask(bot_api, "/quiet 25:00-07:00")
        assert "00:00 to 23:59" in await ask(bot_api, "/quiet 25:00-07:00")
        assert "Quiet hours off" in await ask(bot_api, "/quiet off")
        await ask(bot_api, "/language es")
        assert "Horas de silencio 22:00-07:00" in await ask(bot_api, "/quiet 22:00-07:00")
        await ask(bot_api, "/language zh")
        assert "免打扰时段 22:00-07:00" in await ask(bot_api, "/quiet 22:00-07:00")
        assert "00:00 到 23:59" in await ask(bot_api, "/quiet 22:61-07:00")
