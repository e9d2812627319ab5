"""Dates in messages are the chat's dates (issue 25, item 4), end to end through PTB."""

from __future__ import annotations

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import ask, command, cycle, lumen_bot, posts

LA, UTC_CHAT = 111, 222


async def test_a_los_angeles_chat_reads_the_post_s_date_there(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as bot:
        await command(bot_api, "/subscribe lumen", LA)
        await command(bot_api, "/subscribe lumen", UTC_CHAT)
        assert await ask(bot_api, "/timezone America/Los_Angeles", LA) == (
            "Time zone: America/Los_Angeles."
        )
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await cycle(bot, bot_api)
    corvid = [t for t in posts(bot_api, LA) if blog.CORVID.title in t]
    assert corvid and "· 7 Sep 2026" in corvid[0]  # 00:59 UTC on 8 Sep is 17:59 on 7 Sep
    elsewhere = [t for t in posts(bot_api, UTC_CHAT) if blog.CORVID.title in t]
    assert elsewhere and "· 8 Sep 2026" in elsewhere[0]
