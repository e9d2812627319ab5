"""Reactions that tune (issue 46), through PTB and the fake Bot API, which sends
`message_reaction` updates in Telegram's format only to a bot that asks for them (and in groups
only while it is an administrator): 👍/👎 move the feed's and its categories' weights, /list
and /tuning show them, /tuning reset clears them; a 👎 offers one-tap choices, and "Mute FEED
for a day" holds until it ends; in a group only an admin's reaction counts, and the offer goes
to that admin privately."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from bot.db import store
from bot.db.engine import transaction
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.bot_api_chats import BOT_ID
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, bot_settings, cycle, posts, press, running_bot

CHAT, GROUP, ADMIN, MEMBER = 111, -500, 77, 78


def post(n: int, categories: tuple[str, ...] = ("Hardware", "Events")) -> blog.Post:
    return blog.Post(
        f"p-{n}",
        f"Accelerator webinar number {n}",
        f"post-{n}",
        datetime(2026, 9, 1 + n, tzinfo=UTC),
        categories,
        (f"Post {n} of the Lumen blog, about chips and the people who make them.",),
    )


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        url = feeds.serve("/feed", blog.rss((post(0),)))
        await running.services.catalog.add_feed(url, slug="lumen", trusted=True)
        yield running


async def new_post(bot: RunningBot, api: FakeBotApi, feeds: FeedServer, *shown: int) -> None:
    feeds.serve("/feed", blog.rss(tuple(post(n) for n in (*shown, 0))))
    await cycle(bot, api)


def message_of(api: FakeBotApi, chat_id: int, n: int) -> int:
    with api.lock:
        return next(
            s.message_id
            for s in api.sent
            if s.chat_id == chat_id and f"webinar number {n}<" in s.text
        )


async def until(api: FakeBotApi, condition: object) -> None:
    await api.wait_for(condition, timeout=10)


def weights(bot: RunningBot, chat_id: int) -> dict[str, int]:
    with Session(bot.engine) as session:
        return {w.shown: w.weight for w in store.weights(session, chat_id=chat_id)}


async def test_thumbs_tune_offer_mute_and_reset(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe lumen", CHAT)
    await new_post(bot, bot_api, feeds, 1)
    message = message_of(bot_api, CHAT, 1)
    bot_api.push_reaction(CHAT, message, user_id=CHAT, new=("👍",))
    await until(
        bot_api, lambda: weights(bot, CHAT) == {"Lumen Blog": 1, "Hardware": 1, "Events": 1}
    )
    assert "Lumen Blog: +1" in await ask(bot_api, "/tuning", CHAT)
    assert "Lumen Blog +1" in await ask(bot_api, "/list", CHAT)

    before = len(bot_api.texts(CHAT))
    bot_api.push_reaction(CHAT, message, user_id=CHAT, old=("👍",), new=("👎",))
    await bot_api.wait_replies(CHAT, before + 1)
    assert weights(bot, CHAT)["Lumen Blog"] == -1
    offer = bot_api.sent[-1]
    assert "👎 noted" in offer.text
    buttons = [b for row in offer.params["reply_markup"]["inline_keyboard"] for b in row]
    labels = [b["text"] for b in buttons]
    assert labels == [
        "Mute Lumen Blog for a day",
        "Fewer posts about Hardware",
        "Fewer posts about Events",
        "Exclude Accelerator",
    ]
    answer = await press(bot_api, buttons[1]["callback_data"], CHAT)
    assert "Fewer posts about Hardware" in answer["text"]
    assert weights(bot, CHAT)["Hardware"] == -4
    answer = await press(bot_api, buttons[0]["callback_data"], CHAT)
    assert "muted until" in answer["text"]

    # muted: the next post does not arrive; once the mute ends, posts do again
    await new_post(bot, bot_api, feeds, 1, 2)
    assert len(posts(bot_api, CHAT)) == 1
    assert "Muted until" in await ask(bot_api, "/list", CHAT)
    with transaction(bot.engine) as session:
        feed_id = store.get_feed(session, slug="lumen").id  # type: ignore[union-attr]
        ended = datetime.now(UTC) - timedelta(seconds=1)
        store.mute(session, chat_id=CHAT, feed_id=feed_id, until=ended)
    await new_post(bot, bot_api, feeds, 1, 2, 3)
    assert len(posts(bot_api, CHAT)) == 2 and "webinar number 3" in posts(bot_api, CHAT)[-1]

    answer = await press(bot_api, buttons[3]["callback_data"], CHAT)
    assert "Accelerator" in answer["text"]
    await new_post(bot, bot_api, feeds, 1, 2, 3, 4)
    assert len(posts(bot_api, CHAT)) == 2  # excluded by the word

    assert "Forgot 3 learned weights" in await ask(bot_api, "/tuning reset", CHAT)
    assert weights(bot, CHAT) == {}
    assert "Nothing learned yet" in await ask(bot_api, "/tuning", CHAT)


async def test_in_a_group_only_an_admins_reaction_counts(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    await ask(bot_api, "/subscribe lumen", GROUP)
    await new_post(bot, bot_api, feeds, 1)
    message = message_of(bot_api, GROUP, 1)
    # the bot is not an administrator: Telegram sends no reactions at all
    assert bot_api.push_reaction(GROUP, message, user_id=ADMIN, new=("👎",)) is None
    bot_api.set_member(GROUP, BOT_ID, "administrator")
    bot_api.push_reaction(GROUP, message, user_id=MEMBER, new=("👎",))
    bot_api.push_reaction(GROUP, message, user_id=ADMIN, new=("👎",))
    await bot_api.wait_replies(ADMIN, 1)
    assert weights(bot, GROUP) == {"Lumen Blog": -1, "Hardware": -1, "Events": -1}
    offer = bot_api.sent[-1]
    assert offer.chat_id == ADMIN and "👎 noted" in offer.text
    mute = offer.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    # pressed in the admin's private chat, it mutes the group's subscription
    assert "muted until" in (await press(bot_api, mute, ADMIN))["text"]
    await new_post(bot, bot_api, feeds, 1, 2)
    assert len(posts(bot_api, GROUP)) == 1
    # someone who is not the group's admin cannot use the offer
    answer = await press(bot_api, mute, MEMBER)
    assert "administrators" in answer["text"]
