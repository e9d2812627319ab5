"""Field filters and the filter test through PTB and the fake Bot API (issue 29): rules per
feed and for every feed of a chat, the test listing the right posts with the right reasons
(also after each change), a CJK keyword on an English feed warned about, and the replies in
en, es and zh."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, lumen_bot, titles

CHAT, OTHER = 111, 222


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


async def test_rules_per_feed_decide_what_arrives(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe lumen")
    reply = await ask(bot_api, "/filter lumen title:lisbon title:pune -author:priya")
    assert reply.startswith(
        "Rules for <b>Lumen Blog</b>: <code>title:lisbon title:pune -author:priya</code>."
    )
    assert "<b>Filter test</b>: 0 of the last 8 posts would arrive." in reply
    assert (
        "✗ Your Guide to Accelerators and Infrastructure at LumenConf 2026 — <code>title:lisbon title:pune</code>"
        in reply
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert titles(bot_api, CHAT) == [blog.LISBON.title]  # Pune is by Priya: excluded
    test = await ask(bot_api, "/filter lumen test")
    assert "✓ Acme Compute, Borealis AI and Corvid Labs Meet in Lisbon" in test
    assert "— <code>-author:priya</code>" in test  # the Pune post, and why
    assert (
        "✗ Corvid Labs Joins the Lumen Foundation as a Platinum Member — <code>title:lisbon title:pune</code>"
        in test
    )
    cleared = await ask(bot_api, "/filter lumen off")
    assert "11 of the last 11 posts would arrive" in cleared


async def test_rules_for_every_feed_of_the_chat(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe lumen")
    await ask(bot_api, "/subscribe lumen", OTHER)
    assert (
        await ask(bot_api, "/filter all -category:community")
        == "Rules for every feed here: <code>-category:community</code>."
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert blog.PUNE.title not in titles(bot_api, CHAT)  # Pune is in Community
    assert blog.PUNE.title in titles(bot_api, OTHER)
    assert "none" in await ask(bot_api, "/filter all off")


async def test_mistakes_and_an_evil_pattern(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/subscribe lumen")
    assert "Colour is not a field" in await ask(bot_api, "/filter lumen colour:red")
    assert "is not a pattern: invalid escape sequence" in await ask(
        bot_api, r"/filter lumen text:/(a)\1/"
    )
    started = time.perf_counter()
    reply = await ask(bot_api, "/filter lumen text:/(a+)+$/")
    assert "Rules for" in reply and time.perf_counter() - started < 2  # answered at once


async def test_a_chinese_keyword_on_an_english_feed_is_warned_about(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    await ask(bot_api, "/subscribe lumen")
    reply = await ask(bot_api, "/keywords lumen pytorch, 寒武纪，华为")
    assert "0 of the last 8 posts would arrive" in reply
    assert "⚠ No recent post passes" in reply
    assert "Note: 寒武纪, 华为 is written in another script than this feed's posts" in reply
    assert "/translate" not in reply  # no model on this bot: no promise of one


@pytest.mark.parametrize(
    ("language", "rules", "test"),
    [
        ("es", "Reglas para <b>Lumen Blog</b>", "Prueba del filtro"),
        ("zh", "<b>Lumen Blog</b> 的规则", "过滤测试"),
    ],
)
async def test_the_replies_in_spanish_and_chinese(
    bot: RunningBot, bot_api: FakeBotApi, language: str, rules: str, test: str
) -> None:
    await ask(bot_api, f"/language {language}")
    await ask(bot_api, "/subscribe lumen")
    reply = await ask(bot_api, "/filter lumen title:guide")
    assert rules in reply and test in reply
