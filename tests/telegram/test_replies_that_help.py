"""Replies that help (issue 25, item 6): /help per kind of chat, a line for what the bot did not
understand, a hello when added to a group."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.messages.render import telegram_length
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import OPERATOR_ID, RunningBot, ask, lumen_bot

PRIVATE, GROUP, ADMIN = 111, -1001, 77
UNKNOWN = (
    "I did not understand that. Send /help for the commands, or send a blog's address to follow it."
)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


async def test_help_tells_each_kind_of_chat_what_works_there(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    private = await ask(bot_api, "/help")
    assert "/channel" in private and "A link on its own sent here" in private
    assert "/addfeed" not in private
    bot_api.set_member(GROUP, ADMIN, "administrator")
    group = await ask(bot_api, "/help", GROUP, user_id=ADMIN)
    assert "/channel" not in group and "A link on its own" not in group
    assert "only administrators can change" in group
    operator = await ask(bot_api, "/help", OPERATOR_ID)
    assert "/addfeed and /removefeed" in operator
    for reply in (private, group, operator):
        assert telegram_length(reply) <= 1500
    assert "Usage" not in await ask(bot_api, "/help nosuchcommand")  # the whole help then


async def test_plain_text_and_unknown_commands_get_one_line(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    assert await ask(bot_api, "hello, what can you do?") == UNKNOWN
    assert await ask(bot_api, "/frobnicate") == UNKNOWN
    zh = await ask(bot_api, "/language zh")
    assert zh == "语言：中文。"
    assert (await ask(bot_api, "你好")).endswith("。")


async def test_a_group_the_bot_joins_hears_how_to_start(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    bot_api.push_bot_added(GROUP, by=ADMIN, language="es", title="Readers")
    (hello,) = await bot_api.wait_replies(GROUP, 1)
    assert "/subscribe" in hello and "/help" in hello
    assert hello.startswith("¡Hola!")  # in the language of whoever added the bot


async def test_unsubscribe_alone_asks_about_the_only_subscription(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    assert "This chat has no subscriptions." in await ask(bot_api, "/unsubscribe")  # none yet
    await ask(bot_api, "/subscribe lumen")
    assert await ask(bot_api, "/unsubscribe") == (
        "Unsubscribe from <b>Lumen Blog</b>? This chat would get no more of its posts."
    )  # a question (tests/telegram/test_leaving.py presses its buttons), nothing left yet


async def test_refusals_are_sentences_in_the_chat_s_language(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    await ask(bot_api, "/subscribe lumen")
    english = await ask(bot_api, "/digest lumen weekly")
    assert english.startswith("Use hourly, daily HH:MM or off. Usage: /digest")
    await ask(bot_api, "/language zh")
    chinese = await ask(bot_api, "/digest lumen daily 25:00")
    assert chinese.startswith("时间格式为 HH:MM，例如 08:30。用法：") and ". " not in chinese
