"""Operators hear about broken feeds through Telegram: once after FEED_ALERT_AFTER_SECONDS of
failing, once when it works again, at once when it is gone or moved; never in between."""

from __future__ import annotations

import asyncio

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer, redirect, status
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, cycle, lumen_bot

OPERATOR, OTHER_OPERATOR, READER = 7001, 7002, 7003


def alerts(api: FakeBotApi, chat_id: int) -> list[str]:
    return [t for t in api.texts(chat_id) if t.startswith(("⚠️", "⛔", "➡️", "✅"))]


async def polls(bot: RunningBot, api: FakeBotApi, times: int) -> None:
    for _ in range(times):
        await cycle(bot, api)


async def test_a_failing_feed_is_reported_once_then_its_recovery_once(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    operators = frozenset({OPERATOR, OTHER_OPERATOR})
    async with lumen_bot(
        db_url,
        bot_api,
        feeds,
        blog.BEFORE_POSTS,
        bot_admin_ids=operators,
        feed_alert_after_seconds=0.6,
    ) as bot:
        feeds.behave("/feed/", status(503))
        await polls(bot, bot_api, 2)  # failing, but not for long yet
        assert alerts(bot_api, OPERATOR) == []
        await asyncio.sleep(0.7)
        await polls(bot, bot_api, 3)
        for chat in (OPERATOR, OTHER_OPERATOR):
            (alert,) = alerts(bot_api, chat)
            assert alert.startswith("⚠️ Feed <b>Lumen Blog</b> (<code>lumen</code>) has been")
            assert alert.endswith(" UTC: HTTP 503")
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await polls(bot, bot_api, 2)
        for chat in (OPERATOR, OTHER_OPERATOR):
            assert alerts(bot_api, chat)[1:] == [
                "✅ Feed <b>Lumen Blog</b> (<code>lumen</code>) works again."
            ]
        assert alerts(bot_api, READER) == []


async def test_gone_and_moved_feeds_are_reported_at_once(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(
        db_url, bot_api, feeds, blog.BEFORE_POSTS, bot_admin_ids=frozenset({OPERATOR})
    ) as bot:
        new = feeds.serve("/new-home/", blog.rss(blog.BEFORE_POSTS))
        feeds.behave("/feed/", redirect(301, "/new-home/"))
        await polls(bot, bot_api, 3)
        (moved,) = alerts(bot_api, OPERATOR)
        assert moved == f"➡️ Feed <b>Lumen Blog</b> (<code>lumen</code>) moved permanently to {new}."
        feeds.behave("/new-home/", status(410))
        await polls(bot, bot_api, 2)
        assert alerts(bot_api, OPERATOR)[1:] == [
            "⛔ Feed <b>Lumen Blog</b> (<code>lumen</code>) is gone (HTTP 410) and is no longer "
            "polled."
        ]
