"""One noisy group member or user cannot stall other chats (issue 11, items 2 and 16).

Telegram here is a little slow to answer `getChatMember` (0.3 s), as it is under load; handled
one update at a time, fifteen commands from a non-admin kept every other chat waiting ~5 s.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, lumen_bot, press

# Measures time or throughput across processes: run alone, not beside another worker.
pytestmark = pytest.mark.serial

GROUP, MEMBER, OTHER_CHAT = -1001, 88, 555
ADMINS_ONLY = "Only this group's administrators can change its subscriptions and filters."


@pytest.fixture
async def bot(sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    bot_api.method_latency["getChatMember"] = 0.3
    async with lumen_bot(sqlite_url, bot_api, feeds, blog.AFTER_POSTS) as running:
        yield running


async def test_a_noisy_member_does_not_delay_another_chat(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    for _ in range(15):
        bot_api.push_command("/subscribe lumen", chat_id=GROUP, user_id=MEMBER)
    start = time.monotonic()
    reply = await ask(bot_api, "/feeds", OTHER_CHAT)
    assert time.monotonic() - start < 1.0
    assert "Watched feeds" in reply
    # The group hears the refusal once, and Telegram was asked about the member once.
    await bot_api.wait_for(lambda: len(bot_api.texts(GROUP)) >= 1)
    await ask(bot_api, "/feeds", OTHER_CHAT)  # by now the group's queue has drained
    assert bot_api.texts(GROUP) == [ADMINS_ONLY]
    asked = [c for c in bot_api.calls_to("getChatMember") if c.params["user_id"] == MEMBER]
    assert len(asked) == 1


async def test_a_chats_own_commands_keep_their_order(bot: RunningBot, bot_api: FakeBotApi) -> None:
    script = ["/subscribe lumen", "/unsubscribe lumen"] * 4
    for line in script:
        bot_api.push_command(line, chat_id=OTHER_CHAT)
    replies = await bot_api.wait_replies(OTHER_CHAT, len(script))
    assert [r.split()[0] for r in replies] == ["Subscribed", "Unsubscribed"] * 4


async def test_a_user_over_the_command_rate_is_told_once(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(sqlite_url, bot_api, feeds, blog.AFTER_POSTS, commands_per_minute=5):
        for _ in range(9):
            bot_api.push_command("/feeds", chat_id=OTHER_CHAT)
        await ask(bot_api, "/feeds", OTHER_CHAT + 1)  # someone else is served as usual
        await bot_api.wait_replies(OTHER_CHAT, 6)
        await ask(bot_api, "/feeds", OTHER_CHAT + 2)  # give any stray reply time to show up
        replies = bot_api.texts(OTHER_CHAT)
    assert len(replies) == 6
    assert all("Watched feeds" in r for r in replies[:5])
    assert replies[5].startswith("Slow down")


async def test_a_button_is_judged_by_who_pressed_it(bot: RunningBot, bot_api: FakeBotApi) -> None:
    """The message under a button is the bot's own; its sender_chat says nothing of the presser."""
    bot_api.set_member(GROUP, MEMBER, "member")
    answer = await press(bot_api, "unsub:1", chat_id=GROUP, user_id=MEMBER, sender_chat=True)
    assert answer.get("text") == ADMINS_ONLY
