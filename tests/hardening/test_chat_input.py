"""Hostile chat input and Telegram faults, through real PTB and the fake Bot API."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session

from bot.db import store
from bot.db.engine import transaction
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, bot_settings, lumen_bot, running_bot
from tests.support.telegram_html import assert_valid_telegram_html

CHAT = 31337
APOLOGY = "Sorry, something went wrong"


@pytest.fixture
async def bot(sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(
        sqlite_url, bot_api, feeds, blog.AFTER_POSTS, max_categories_per_filter=20
    ) as running:
        yield running


async def settle(api: FakeBotApi, chat_id: int = CHAT) -> list[str]:
    """Updates are handled in order: once a /feeds sent now is answered, all before it are."""
    before = len(api.texts(chat_id))
    api.push_command("/feeds", chat_id=chat_id)
    await api.wait_for(lambda: any("Watched feeds" in t for t in api.texts(chat_id)[before:]))
    return api.texts(chat_id)


commands = st.sampled_from(
    [
        "/start",
        "/help",
        "/feeds",
        "/subscribe",
        "/unsubscribe",
        "/list",
        "/categories",
        "/filter",
        "/addfeed",
        "/removefeed",
        "/nonsense",
    ]
)
arguments = st.one_of(
    st.text(max_size=300),
    st.text(alphabet="<>&\"'/-,; \u202e😀𝔘\x00", max_size=200),
    st.lists(st.text(max_size=30), max_size=300).map(", ".join),  # hundreds of categories
    st.just("lumen " + ", ".join(f"-Cat{n}" for n in range(500))),
    st.just("x" * 5000),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=commands, argument=arguments, suffix=st.sampled_from(["", "@feedwatch_test_bot"]))
async def test_random_commands_never_break_a_handler(
    bot: RunningBot, bot_api: FakeBotApi, command: str, argument: str, suffix: str
) -> None:
    before = len(bot_api.texts(CHAT))
    bot_api.push_command(f"{command}{suffix} {argument}", chat_id=CHAT, user_id=4242)
    replies = (await settle(bot_api))[before:]
    for reply in replies:
        assert APOLOGY not in reply
        assert_valid_telegram_html(reply)


async def test_unusual_updates_are_ignored_safely(bot: RunningBot, bot_api: FakeBotApi) -> None:
    chat = {"id": -100999, "type": "channel", "title": "A channel"}
    bot_api.push_update(
        {
            "channel_post": {
                "message_id": 1,
                "date": 0,
                "chat": chat,
                "text": "/subscribe lumen",
                "entities": [{"type": "bot_command", "offset": 0, "length": 10}],
            }
        }
    )
    private = {"id": CHAT, "type": "private", "first_name": "Ada"}
    bot_api.push_update(
        {
            "message": {
                "message_id": 2,
                "date": 0,
                "chat": private,
                "photo": [{"file_id": "a", "file_unique_id": "b", "width": 1, "height": 1}],
            }
        }
    )
    bot_api.push_update(
        {
            "message": {
                "message_id": 3,
                "date": 0,
                "chat": private,
                "text": "/help",
                "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
            }
        }
    )  # no sender
    bot_api.push_update(
        {
            "edited_message": {
                "message_id": 4,
                "date": 0,
                "edit_date": 1,
                "chat": private,
                "from": {"id": CHAT, "is_bot": False, "first_name": "Ada"},
                "text": "/list",
                "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
            }
        }
    )
    replies = await settle(bot_api)
    assert all(APOLOGY not in r for r in replies)
    assert any("/subscribe" in r for r in replies)  # the sender-less /help was answered
    assert any("no subscriptions" in r for r in replies)  # the edited /list was answered
    assert bot_api.texts(-100999) == []  # nothing is posted into the channel


async def test_a_filter_with_too_many_categories_is_refused(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    bot_api.push_command("/subscribe lumen", chat_id=CHAT)
    many = ", ".join(f"C{n}" for n in range(21))
    bot_api.push_command(f"/filter lumen {many}", chat_id=CHAT)
    replies = await settle(bot_api)
    assert any("At most 20 categories per filter." in r for r in replies)  # a sentence


async def test_telegram_down_for_a_while_then_back_loses_and_repeats_nothing(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """500s for every send during an outage (a minute in production, 3 s here with 0.2 s retry
    steps), then recovery: every message arrives exactly once, in order."""
    settings = bot_settings(
        sqlite_url,
        bot_api,
        poll_interval_seconds=3600,
        delivery_retry_seconds=0.2,
        delivery_max_attempts=8,
    )
    async with running_bot(settings) as bot:
        url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
        await bot.services.catalog.add_feed(url, slug="lumen", trusted=True)
        with transaction(bot.engine) as session:
            for chat_id in (1, 2, 3):
                store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
                store.subscribe(session, chat_id=chat_id, feed_id=1)
        bot_api.fail("sendMessage", code=500, description="Internal Server Error", times=10**6)
        outage_ends = time.monotonic() + 3
        feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await bot.services.poller.poll_due(all_feeds=True)
        bot.services.wake.set()
        await bot_api.wait_for(lambda: time.monotonic() > outage_ends, timeout=10)
        with bot_api.lock:
            bot_api.faults.clear()
        await bot_api.wait_for(
            lambda: all(len(bot_api.texts(c)) == 3 for c in (1, 2, 3)), timeout=30
        )

        def drained() -> bool:  # the last "sent" is written just after Telegram answers
            with Session(bot.engine) as session:
                return store.pending_count(session) == 0

        await bot_api.wait_for(drained, timeout=10)
    for chat_id in (1, 2, 3):
        titles = [t.split("</a>")[0].split('">')[1] for t in bot_api.texts(chat_id)]
        assert titles == list(blog.NEW_TITLES_OLDEST_FIRST)
    attempts = len(bot_api.calls_to("sendMessage"))
    assert attempts > 9 + len(bot_api.sent) - 9  # the outage really was hit and retried
    assert attempts >= len(bot_api.sent) + 3
