"""Inline buttons: the backlog choice after /subscribe and the controls under /list."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlmodel import Session, select

from bot.db.tables import Subscription
from tests.fakes.bot_api import FakeBotApi
from tests.fakes.feed_server import FeedServer
from tests.fixtures import blog
from tests.harness import RunningBot, lumen_bot
from tests.test_bot_delivery import command, titles

CHAT, GROUP, ADMIN, MEMBER = 111, -1001, 77, 88
_ids = itertools.count(1)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.AFTER_POSTS) as running:
        yield running


def keyboard(api: FakeBotApi, chat_id: int) -> list[list[dict[str, Any]]]:
    with api.lock:
        sent = [s for s in api.sent if s.chat_id == chat_id and "reply_markup" in s.params]
    rows: list[list[dict[str, Any]]] = sent[-1].params["reply_markup"]["inline_keyboard"]
    return rows


async def press(
    api: FakeBotApi,
    data: str,
    chat_id: int = CHAT,
    user_id: int | None = None,
    *,
    sender_chat: bool = False,
) -> dict[str, Any]:
    """Press a button; return the answerCallbackQuery parameters. `sender_chat`: the message
    under the button carries the chat itself as its sender (as Telegram shows some messages)."""
    query_id = str(next(_ids))
    chat = {
        "id": chat_id,
        "type": "private" if chat_id > 0 else "supergroup",
        "first_name": "Ada",
        "title": "G",
    }
    message: dict[str, Any] = {"message_id": 1, "date": 0, "chat": chat, "text": "Subscribed"}
    if sender_chat:
        message["sender_chat"] = chat
    api.push_update(
        {
            "callback_query": {
                "id": query_id,
                "from": {"id": user_id or chat_id, "is_bot": False, "first_name": "Ada"},
                "chat_instance": "ci",
                "data": data,
                "message": message,
            }
        }
    )
    await api.wait_for(
        lambda: any(
            c.params.get("callback_query_id") == query_id
            for c in api.calls_to("answerCallbackQuery")
        )
    )
    return next(
        c.params
        for c in api.calls_to("answerCallbackQuery")
        if c.params.get("callback_query_id") == query_id
    )


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
        assert (sub.edits, sub.images, sub.preview) == (False, False, True)
    edited = bot_api.calls_to("editMessageText")[-1].params
    assert [b["text"] for b in edited["reply_markup"]["inline_keyboard"][0]] == [
        "✖ lumen",
        "edits off",
        "previews: link",
    ]
    for label, state in (("previews: off", (False, False)), ("previews: image", (True, False))):
        await press(bot_api, row[2]["callback_data"])
        labels = bot_api.calls_to("editMessageText")[-1].params["reply_markup"]
        assert labels["inline_keyboard"][0][2]["text"] == label
        with Session(bot.engine) as session:
            sub = session.exec(select(Subscription)).one()
            assert (sub.images, sub.preview) == state
    answer = await press(bot_api, row[0]["callback_data"])
    assert answer.get("text") == "Unsubscribed."
    with Session(bot.engine) as session:
        assert session.exec(select(Subscription)).all() == []


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
