"""Channels managed from a private chat (/channel), through PTB and the fake Bot API: Telegram
is asked about rights before every change, the channel gets exactly its own filtered posts, and
removing the bot deactivates it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlmodel import Session

from bot.db import store
from bot.db.tables import Chat
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, lumen_bot, press

USER = 111  # a private chat's id is its user's id
CHANNEL = -1005001
NAME = "lumen_news"


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


def channel_row(bot: RunningBot) -> Chat | None:
    with Session(bot.engine, expire_on_commit=False) as session:
        return session.get(Chat, CHANNEL)


async def test_a_channel_managed_from_a_private_chat_gets_its_own_filtered_posts(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.add_channel(CHANNEL, "Lumen News", username=NAME, admins=(USER,))
    managed = await ask(bot_api, f"/channel @{NAME}")
    assert managed.startswith("📢 <b>Lumen News</b>\n")
    assert "Your commands here now apply to this channel" in managed
    reply = await ask(bot_api, "/subscribe lumen")
    assert reply.startswith("📢 <b>Lumen News</b>\n") and "Subscribed to <b>Lumen Blog</b>" in reply
    assert "Community" in await ask(bot_api, "/filter lumen Community")
    listed = await ask(bot_api, "/list")
    assert listed.startswith("📢 <b>Lumen News</b>") and "Community" in listed
    # Checked with Telegram before each change: the bot's right to post, then the user's.
    members = [c.params for c in bot_api.calls_to("getChatMember")]
    assert {"chat_id": CHANNEL, "user_id": 123456789} in members
    assert {"chat_id": CHANNEL, "user_id": USER} in members

    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    posted = bot_api.texts(CHANNEL)
    assert len(posted) == 1 and "Pune" in posted[0]  # the one Community post
    assert not any("Lisbon" in text for text in bot_api.texts(USER))  # nothing leaked here

    # A deep link tapped meanwhile is for the person, not their channel.
    tapped = await ask(bot_api, "/start lumen")
    assert tapped.startswith("Subscribed to <b>Lumen Blog</b>")
    assert "this private chat again" in await ask(bot_api, "/channel off")
    assert "Lumen Blog" in await ask(bot_api, "/list")
    await ask(bot_api, "/unsubscribe lumen")
    assert "This chat has no subscriptions" in await ask(bot_api, "/list")
    with Session(bot.engine) as session:
        (channel_sub,) = store.chat_subscriptions(session, chat_id=CHANNEL)
    assert not channel_sub[0].categories.is_empty  # the channel keeps its filter


async def test_the_chat_picker_button_and_a_numeric_id_work_too(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    bot_api.add_channel(CHANNEL, "Lumen News", admins=(USER,))  # no public name
    await ask(bot_api, "/channel")
    (shown,) = [s for s in bot_api.sent if s.chat_id == USER]
    button = shown.params["reply_markup"]["keyboard"][0][0]
    assert button["text"] == "Choose a channel"
    assert button["request_chat"]["chat_is_channel"] is True
    assert button["request_chat"]["bot_administrator_rights"]["can_post_messages"] is True

    before = len(bot_api.texts(USER))
    bot_api.push_chat_shared(USER, user_id=USER, shared=CHANNEL)
    (picked,) = (await bot_api.wait_replies(USER, before + 1))[before:]
    assert "Your commands here now apply to this channel" in picked
    assert "this private chat again" in await ask(bot_api, "/channel off")
    assert "now apply" in await ask(bot_api, f"/channel {CHANNEL}")
    assert "Commands here apply to the channel <b>Lumen News</b>" in await ask(bot_api, "/channel")


async def test_refusals_say_what_is_missing(bot: RunningBot, bot_api: FakeBotApi) -> None:
    bot_api.add_channel(-1005002, "Not mine", username="not_mine", admins=(999,))
    refused = await ask(bot_api, "/channel @not_mine")
    assert "Only the administrators of <b>Not mine</b>" in refused
    bot_api.add_channel(-1005003, "Mute", username="mute_news", bot_can_post=False, admins=(USER,))
    refused = await ask(bot_api, "/channel @mute_news")
    assert "add the bot as an administrator of the channel with the right to post" in refused
    bot_api.add_channel(-1005004, "Elsewhere", username="elsewhere", bot="left", admins=(USER,))
    assert "Telegram knows no channel @elsewhere" in await ask(bot_api, "/channel @elsewhere")
    assert "Usage: /channel @name" in await ask(bot_api, "/channel not a name")
    group = await ask(bot_api, "/channel @lumen_news", chat_id=-1001)
    assert "in your private chat" in group
    with Session(bot.engine) as session:
        assert store.managed_chat(session, chat_id=USER) is None

    # Rights are checked again before each change: a demoted admin is stopped at once.
    channel = bot_api.add_channel(CHANNEL, "Lumen News", username=NAME, admins=(USER,))
    assert "now apply" in await ask(bot_api, f"/channel @{NAME}")
    channel.members[USER] = "member"
    refused = await ask(bot_api, "/subscribe lumen")
    assert "Only the administrators of <b>Lumen News</b>" in refused
    channel.members[USER] = "administrator"
    channel.can_post.discard(123456789)
    assert "right to post messages" in await ask(bot_api, "/subscribe lumen")
    with Session(bot.engine) as session:
        assert store.chat_subscriptions(session, chat_id=CHANNEL) == []


async def test_removing_the_bot_from_a_channel_deactivates_it(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.add_channel(CHANNEL, "Lumen News", username=NAME, admins=(USER,))
    await ask(bot_api, f"/channel @{NAME}")
    await ask(bot_api, "/subscribe lumen")
    bot_api.set_bot_rights(CHANNEL, "administrator", can_post=False)  # demoted: cannot post
    await bot_api.wait_for(lambda: (row := channel_row(bot)) is not None and not row.active)
    bot_api.set_bot_rights(CHANNEL, "administrator")  # promoted again
    await bot_api.wait_for(lambda: (row := channel_row(bot)) is not None and row.active)
    bot_api.set_bot_rights(CHANNEL, "left")  # removed
    await bot_api.wait_for(lambda: (row := channel_row(bot)) is not None and not row.active)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert bot_api.texts(CHANNEL) == []


async def test_buttons_and_languages_act_on_the_managed_channel(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.add_channel(CHANNEL, "Lumen News", username=NAME, admins=(USER,))
    await ask(bot_api, f"/channel @{NAME}")
    await ask(bot_api, "/subscribe lumen")
    with Session(bot.engine) as session:
        feed = store.get_feed(session, slug="lumen")
    assert feed is not None
    await press(bot_api, f"backlog:{feed.id}:3", chat_id=USER, user_id=USER)
    await bot_api.wait_for(lambda: len(bot_api.texts(CHANNEL)) == 3)  # the latest 3, there
    await ask(bot_api, "/language es")
    with Session(bot.engine) as session:
        assert store.chat_language(session, chat_id=CHANNEL) == (True, "es")
        assert store.chat_language(session, chat_id=USER)[1] != "es"


async def test_a_channel_gets_its_digest_in_its_language(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.services.digests import run_digests

    bot_api.add_channel(CHANNEL, "Lumen News", username=NAME, admins=(USER,))
    await ask(bot_api, f"/channel @{NAME}")
    await ask(bot_api, "/subscribe lumen")
    await ask(bot_api, "/language es")
    reply = await ask(bot_api, "/digest lumen hourly")
    assert reply.startswith("📢 <b>Lumen News</b>\n") and "cada hora" in reply
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert bot_api.texts(CHANNEL) == []  # held for the digest
    later = datetime.now(UTC) + timedelta(hours=1, minutes=1)
    assert run_digests(bot.engine, clock=lambda: later) == 1
    bot.services.wake.set()
    await bot_api.wait_for(lambda: len(bot_api.texts(CHANNEL)) == 1)
    (digest,) = bot_api.texts(CHANNEL)
    assert digest.startswith("<b>Boletín: Lumen Blog</b> — 3 entradas")
    assert bot_api.texts(USER)[-1].startswith("📢")  # the private chat got only replies


async def test_start_without_feeds_where_only_operators_add(
    db_url: str, bot_api: FakeBotApi
) -> None:
    from tests.support.harness import bot_settings, running_bot

    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, feed_adding="operators")
    async with running_bot(settings):
        reply = await ask(bot_api, "/start")
        assert "the bot's operators add them" in reply and "/subscribe https" not in reply
