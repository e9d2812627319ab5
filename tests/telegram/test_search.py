"""/search through real PTB and the fake Bot API, on SQLite and PostgreSQL: an edited sentence
found in an older version, a Chinese word inside a sentence, one feed, a period, other chats'
feeds invisible, nothing found, bad input, in English, Spanish and Chinese."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, lumen_bot

OTHER, CHINESE, SPANISH = 222, 333, 444
NOW = datetime.now(UTC).replace(microsecond=0)

FRESH = blog.Post(
    guid="urn:fresh:1",
    title="Harbour Lights Festival Opens This Week",
    slug="harbour-lights-opens",
    published=NOW - timedelta(days=3),
    categories=("News",),
    paragraphs=(
        "The harbour lights festival opens on Friday with a lantern parade.",
        "Tickets cost $12 at the gate.",
    ),
)
OLDER = replace(
    FRESH,
    guid="urn:fresh:2",
    title="Lantern Makers Prepare for the Festival",
    slug="lantern-makers-prepare",
    published=NOW - timedelta(days=60),
    paragraphs=("Lantern makers in the old town have been busy for weeks.",),
)
SECRET = replace(
    FRESH,
    guid="urn:secret:1",
    title="Only the Other Chat Reads This",
    slug="other-chat-only",
    paragraphs=("The zeppelin timetable changes in spring.",),
)
CHINESE_POST = replace(
    FRESH,
    guid="urn:zh:1",
    title="开源模型大会公布新日程",
    slug="zh-schedule",
    paragraphs=("今年的大会在杭州举行，门票价格上涨到五十九元。", "报名截止日期是十月一日。"),
)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        catalog = running.services.catalog
        url = feeds.serve("/town/", blog.rss((FRESH, OLDER), title="Town News"))
        await catalog.add_feed(url, slug="town", trusted=True)
        url = feeds.serve("/secret/", blog.rss((SECRET,), title="Secret Diary"))
        await catalog.add_feed(url, slug="secret", trusted=True)
        url = feeds.serve("/zh/", blog.rss((CHINESE_POST,), title="开源周报"))
        await catalog.add_feed(url, slug="zhblog", trusted=True)
        for name in ("lumen", "town", "zhblog"):
            await ask(bot_api, f"/subscribe {name}")
        await ask(bot_api, "/subscribe secret", OTHER)
        yield running


async def test_an_edited_sentence_is_found_in_its_older_version(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    assert "Nothing found for <b>student tickets</b>" in await ask(
        bot_api, "/search student tickets"
    )
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))  # the sentence is added…
    await cycle(bot, bot_api)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))  # …and edited away again
    await cycle(bot, bot_api)
    reply = await ask(bot_api, '/search "student tickets" registration')
    assert reply.startswith('Found 1 post for <b>"student tickets" registration</b>')
    assert f'<a href="{blog.GUIDE.link}">{blog.GUIDE.title}</a>' in reply
    assert f"<i>{blog.EDITED_SENTENCE}</i>" in reply
    assert "in an earlier version" in reply
    # the post as it stands is found by its current text, not "earlier"
    current = await ask(bot_api, "/search keynote")
    assert "line-up for LumenConf 2026" in current and "earlier" not in current


async def test_a_chinese_word_is_found_inside_a_sentence(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    reply = await ask(bot_api, "/search 价格")
    assert f'<a href="{CHINESE_POST.link}">{CHINESE_POST.title}</a>' in reply
    assert "<i>今年的大会在杭州举行，门票价格上涨到五十九元。</i>" in reply
    assert "杭州" in await ask(bot_api, "/search 杭")  # one character
    assert "报名截止日期是十月一日" in await ask(bot_api, "/search 截止日期")
    assert "Nothing found" in await ask(bot_api, "/search 价钱")


async def test_one_feed_and_a_period(bot: RunningBot, bot_api: FakeBotApi) -> None:
    both = await ask(bot_api, "/search lantern")
    assert both.startswith("Found 2 posts for <b>lantern</b>, newest first:")
    assert both.index(FRESH.title) < both.index(OLDER.title)  # newest first
    recent = await ask(bot_api, "/search lantern since:30d")
    assert FRESH.title in recent and OLDER.title not in recent
    assert OLDER.title in await ask(bot_api, "/search lantern since:9w")
    assert "Nothing found for <b>lantern</b> in <b>Lumen Blog</b>." in await ask(
        bot_api, "/search lantern lumen"
    )
    assert FRESH.title in await ask(bot_api, "/search lantern town")
    assert FRESH.title in await ask(bot_api, "/search lantern feed:town")
    lumen = await ask(bot_api, "/search kernels lumen")
    assert lumen.startswith("Found 5 posts") and "Making Kernels Faster" in lumen


async def test_other_chats_feeds_are_invisible(bot: RunningBot, bot_api: FakeBotApi) -> None:
    assert SECRET.title in await ask(bot_api, "/search zeppelin", OTHER)
    assert "Nothing found for <b>zeppelin</b> in this chat's feeds." in await ask(
        bot_api, "/search zeppelin"
    )
    refused = await ask(bot_api, "/search zeppelin feed:secret")
    assert "does not follow a feed named <code>secret</code>" in refused
    assert "nothing to search" in await ask(bot_api, "/search zeppelin", 999)


async def test_bad_input_gets_the_usage(bot: RunningBot, bot_api: FakeBotApi) -> None:
    usage = "Usage: /search <i>words</i>"
    assert (await ask(bot_api, "/search")).startswith(usage)
    assert "since:30d" in await ask(bot_api, "/search lantern since:soon")
    assert "at most 200 characters" in await ask(bot_api, "/search " + "x" * 201)
    assert "Say what to search for." in await ask(bot_api, "/search ??? since:3d")
    # what the chat typed is escaped in the answer (every reply is checked to be valid HTML)
    assert "for <b>&lt;i&gt;</b>" in await ask(bot_api, "/search <i>")


async def test_answers_in_spanish_and_chinese(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/language es", SPANISH)
    await ask(bot_api, "/subscribe town", SPANISH)
    assert (await ask(bot_api, "/search lantern", SPANISH)).startswith(
        "2 publicaciones encontradas para <b>lantern</b>"
    )
    assert (await ask(bot_api, "/search nada", SPANISH)).startswith("No se encontró nada")
    await ask(bot_api, "/language zh", CHINESE)
    await ask(bot_api, "/subscribe zhblog", CHINESE)
    assert (await ask(bot_api, "/search 价格", CHINESE)).startswith("找到 1 篇")
    assert (await ask(bot_api, "/search 火车", CHINESE)).startswith("没有找到")
    assert "/search" in await ask(bot_api, "/help search", CHINESE)
