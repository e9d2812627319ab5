"""Inline buttons: the backlog choice after /subscribe and the controls under /list."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlmodel import Session, select

from bot.db import store
from bot.db.tables import Subscription
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, command, keyboard, lumen_bot, press, titles

CHAT, GROUP, ADMIN, MEMBER = 111, -1001, 77, 88


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.AFTER_POSTS) as running:
        yield running


async def test_backlog_choice_sends_the_latest_three_once(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    buttons = [b for row in keyboard(bot_api, CHAT) for b in row]
    assert [b["text"] for b in buttons] == ["Only new posts", "Also the latest 3"]
    await press(bot_api, buttons[1]["callback_data"])
    await bot_api.wait_for(lambda: len(titles(bot_api, CHAT)) == 3)
    assert titles(bot_api, CHAT) == list(blog.NEW_TITLES_OLDEST_FIRST)
    await press(bot_api, buttons[1]["callback_data"])  # a second press sends nothing twice
    bot.services.wake.set()
    await command(bot_api, "/feeds", CHAT)
    assert len(titles(bot_api, CHAT)) == 3
    assert any(
        "latest 3 posts" in c.params.get("text", "") for c in bot_api.calls_to("editMessageText")
    )


async def test_only_new_posts_is_the_default_and_sends_nothing(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    await press(bot_api, keyboard(bot_api, CHAT)[0][0]["callback_data"])
    await command(bot_api, "/feeds", CHAT)
    assert titles(bot_api, CHAT) == []


async def test_list_buttons_toggle_and_unsubscribe(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    await command(bot_api, "/list", CHAT)
    (row,) = keyboard(bot_api, CHAT)
    assert [b["text"] for b in row] == ["✖ lumen", "edits on", "previews: image"]
    await press(bot_api, row[1]["callback_data"])
    await press(bot_api, row[2]["callback_data"])
    with Session(bot.engine) as session:
        sub = session.exec(select(Subscription)).one()
        assert (sub.edit_mode, sub.preview_mode) == ("off", "link")
    edited = bot_api.calls_to("editMessageText")[-1].params
    assert [b["text"] for b in edited["reply_markup"]["inline_keyboard"][0]] == [
        "✖ lumen",
        "edits off",
        "previews: link",
    ]
    for label, state in (("previews: off", "off"), ("previews: image", "image")):
        await press(bot_api, row[2]["callback_data"])
        labels = bot_api.calls_to("editMessageText")[-1].params["reply_markup"]
        assert labels["inline_keyboard"][0][2]["text"] == label
        with Session(bot.engine) as session:
            sub = session.exec(select(Subscription)).one()
            assert sub.preview_mode == state
    answer = await press(bot_api, row[0]["callback_data"])
    assert answer.get("text") == "Unsubscribed."
    with Session(bot.engine) as session:  # left, its settings kept for a return
        assert store.chat_subscriptions(session, chat_id=111) == []
        assert session.exec(select(Subscription)).one().left_at is not None


async def test_group_members_cannot_press_admin_buttons(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    await command(bot_api, "/subscribe lumen", GROUP, ADMIN)
    with Session(bot.engine) as session:
        feed_id = session.exec(select(Subscription.feed_id)).one()
    answer = await press(bot_api, f"unsub:{feed_id}", chat_id=GROUP, user_id=MEMBER)
    assert answer["show_alert"] is True and "administrators" in answer["text"]
    with Session(bot.engine) as session:
        assert len(session.exec(select(Subscription)).all()) == 1
