"""`/format FEED title|summary|full` through PTB and the fake Bot API (issue 25, item 2)."""

from __future__ import annotations

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import ask, command, cycle, lumen_bot, posts

TITLES, WHOLE, ZH = 111, 222, 333


async def test_each_chat_gets_the_format_it_chose(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as bot:
        for chat in (TITLES, WHOLE, ZH):
            await command(bot_api, "/subscribe lumen", chat)
        assert await ask(bot_api, "/format lumen title", TITLES) == (
            "Messages from <b>Lumen Blog</b> now show the title and source only."
        )
        assert await ask(bot_api, "/format lumen full", WHOLE) == (
            "Messages from <b>Lumen Blog</b> now show the whole post, as much as fits."
        )
        await ask(bot_api, "/language zh", ZH)
        assert await ask(bot_api, "/format lumen title", ZH) == (
            "来自 <b>Lumen Blog</b> 的消息现在只显示标题和来源。"
        )
        assert "Usage: /format" in await ask(bot_api, "/format lumen huge", TITLES)
        assert "titles only" in await ask(bot_api, "/list", TITLES)
        assert "whole posts" in await ask(bot_api, "/list", WHOLE)
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await cycle(bot, bot_api)
    (lisbon,) = [t for t in posts(bot_api, TITLES) if blog.LISBON.title in t]
    assert lisbon.count("\n") == 1  # the title line and the source line, nothing else
    (whole,) = [t for t in posts(bot_api, WHOLE) if blog.LISBON.title in t]
    for paragraph in blog.LISBON.paragraphs:  # all three paragraphs, not three sentences
        assert paragraph in whole
    assert "Read on the site" not in whole  # it all fits
    (zh,) = [t for t in posts(bot_api, ZH) if blog.LISBON.title in t]
    assert zh.count("\n") == 1
