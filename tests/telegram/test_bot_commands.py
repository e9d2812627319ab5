"""Every chat command through real PTB ↔ the fake Bot API, on real databases."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlmodel import Session, select

from bot.core.messages.render import telegram_length
from bot.db import store
from bot.db.tables import Chat, Subscription
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import GROUP_ADMIN as ADMIN
from tests.support.harness import PRIVATE_CHAT as PRIVATE
from tests.support.harness import (
    RunningBot,
    ask,
    bot_settings,
    keyboard,
    lumen_bot,
    press,
    running_bot,
)

GROUP = -1001
MEMBER, OPERATOR = 88, 4242


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.AFTER_POSTS) as running:
        yield running


async def test_help_explains_every_command(bot: RunningBot, bot_api: FakeBotApi) -> None:
    reply = await ask(bot_api, "/help")
    for name in ("/subscribe", "/unsubscribe", "/list", "/feeds", "/categories", "/filter"):
        assert name in reply
    # It fits a phone screen (issue 25: it was 2,269 characters); details come per command.
    assert telegram_length(reply) <= 1500
    assert "<code>/help filter</code>" in reply
    detail = await ask(bot_api, "/help filter")
    # Examples name this bot's own feed, and no developer word ("SLUG") reaches the chat.
    assert "<code>/filter lumen Blog, -Community</code>" in detail
    assert "lumen-blog" not in reply + detail and "SLUG" not in reply + detail
    assert "<i>feed name</i>" in detail
    menus = {c.params.get("language_code"): c for c in bot_api.calls_to("setMyCommands")}
    menu = menus[None]  # the default menu, in English
    assert {c["command"] for c in menu.params["commands"]} >= {"start", "subscribe", "filter"}
    assert {"description": "what this bot does", "command": "start"} in menu.params["commands"]


async def test_start_fits_one_screen_with_a_button_per_feed(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    reply = await ask(bot_api, "/start")
    assert telegram_length(reply) < 600
    assert reply.startswith("<b>Feedwatch</b> tells this chat")
    assert "/help for every command." in reply
    (row,) = keyboard(bot_api, PRIVATE)
    assert row[0]["text"] == "＋ Lumen Blog"
    answer = await press(bot_api, row[0]["callback_data"], chat_id=PRIVATE)
    assert "text" not in answer  # no alert: the reply is a message
    replies = await bot_api.wait_replies(PRIVATE, 2)
    assert replies[1].startswith("Subscribed to <b>Lumen Blog</b>")
    with Session(bot.engine) as session:
        assert session.exec(select(Subscription.chat_id)).all() == [PRIVATE]
    assert "expired" in (await press(bot_api, "sub:999", chat_id=PRIVATE))["text"]


async def test_start_without_feeds_and_with_many(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        empty = await ask(bot_api, "/start")
        assert "Send a blog's address to follow it" in empty
        for n in range(10):
            url = feeds.serve(f"/f{n}/", blog.rss((blog.PUNE,), title=f"Feed {n}"))
            await running.services.catalog.add_feed(url, slug=f"f{n}", trusted=True)
        many = await ask(bot_api, "/start")
        assert "(the first few of 10; /feeds lists them all)" in many
        assert telegram_length(many) < 600
        assert len(keyboard(bot_api, PRIVATE)) == 8


async def test_deep_links_subscribe_in_one_tap(bot: RunningBot, bot_api: FakeBotApi) -> None:
    """t.me/<bot>?start=lumen sends `/start lumen`; ?startgroup=lumen sends it in the group."""
    reply = await ask(bot_api, "/start lumen")
    assert reply.startswith("Subscribed to <b>Lumen Blog</b>")
    assert keyboard(bot_api, PRIVATE)  # the same backlog buttons as /subscribe
    assert "already subscribed" in await ask(bot_api, "/start lumen")
    assert "no feed named <code>nope</code>" in await ask(bot_api, "/start nope")
    bot_api.set_member(GROUP, ADMIN, "administrator")
    in_group = await ask(bot_api, "/start@feedwatch_test_bot lumen", chat_id=GROUP)
    assert in_group.startswith("Subscribed to <b>Lumen Blog</b>")
    bot_api.set_member(GROUP, MEMBER, "member")
    refused = await ask(bot_api, "/start@feedwatch_test_bot lumen", chat_id=GROUP, user_id=MEMBER)
    assert "administrators" in refused
    with Session(bot.engine) as session:
        chats = session.exec(select(Subscription.chat_id)).all()
    assert sorted(chats) == [GROUP, PRIVATE]


async def test_feeds_lists_slug_and_title(bot: RunningBot, bot_api: FakeBotApi) -> None:
    reply = await ask(bot_api, "/feeds")
    assert "<code>lumen</code> — Lumen Blog" in reply


async def test_subscribe_list_unsubscribe(bot: RunningBot, bot_api: FakeBotApi) -> None:
    assert "Subscribed to <b>Lumen Blog</b>" in await ask(bot_api, "/subscribe")
    assert "already subscribed" in await ask(bot_api, "/subscribe lumen")
    assert "<code>lumen</code> — Lumen Blog: all posts" in await ask(bot_api, "/list")
    assert "Unsubscribed from <b>Lumen Blog</b>" in await ask(bot_api, "/unsubscribe lumen")
    assert "no subscriptions" in await ask(bot_api, "/list")
    await ask(bot_api, "/subscribe lumen")
    assert "Unsubscribed from 1 feed." in await ask(bot_api, "/unsubscribe all")


async def test_wrong_or_missing_arguments_get_the_right_form(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    assert "no feed named <code>nope</code>" in await ask(bot_api, "/subscribe nope")
    assert "This chat has no subscriptions." in await ask(bot_api, "/unsubscribe")
    assert "Usage: /filter <i>feed name</i> CATEGORY" in await ask(bot_api, "/filter")
    assert "Usage: /filter <i>feed name</i> CATEGORY" in await ask(bot_api, "/filter lumen")
    assert "no feed named" in await ask(bot_api, "/categories <b>x</b>")
    assert "not subscribed" in await ask(bot_api, "/filter lumen Blog")
    await ask(bot_api, "/subscribe lumen")
    assert "A lone '-' needs a category" in await ask(bot_api, "/filter lumen Blog, -")
    second = feeds.serve("/second/", blog.rss((blog.PUNE,), title="Second"))
    await bot.services.catalog.add_feed(second, slug="second", trusted=True)
    assert "Which feed?" in await ask(bot_api, "/subscribe")


async def test_categories_most_frequent_first(bot: RunningBot, bot_api: FakeBotApi) -> None:
    reply = await ask(bot_api, "/categories lumen")
    lines = reply.splitlines()
    assert lines[0] == "<b>Categories on Lumen Blog</b>"
    assert lines[1] == "Blog (9)"
    assert "Announcements (2)" in lines and "Press Release (1)" in lines


async def test_filter_set_note_and_clear(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/subscribe lumen")
    reply = await ask(bot_api, "/filter lumen blog, -Community, - Press Release, Cooking")
    assert "Filter for <b>Lumen Blog</b>: blog, Cooking, -Community, -Press Release." in reply
    assert "Note: Cooking has not been seen on this feed yet." in reply
    assert "blog, Cooking, -Community, -Press Release" in await ask(bot_api, "/list")
    assert ": all posts." in await ask(bot_api, "/filter lumen off")


async def test_group_changes_need_an_admin(bot: RunningBot, bot_api: FakeBotApi) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    refused = await ask(bot_api, "/subscribe lumen", chat_id=GROUP, user_id=MEMBER)
    assert refused == "Only this group's administrators can change its subscriptions and filters."
    refused = await ask(bot_api, "/filter lumen Blog", chat_id=GROUP, user_id=MEMBER + 1)
    assert "Only this group's administrators" in refused  # another member is told too
    # The same member again within the window: refused silently (told once already); the chat's
    # updates keep their order, so the admin's reply below is the next message in the group.
    bot_api.push_command("/filter lumen Blog", chat_id=GROUP, user_id=MEMBER)
    ok = await ask(bot_api, "/subscribe@feedwatch_test_bot lumen", chat_id=GROUP, user_id=ADMIN)
    assert ok.startswith("Subscribed")
    assert "all posts" in await ask(
        bot_api, "/list", chat_id=GROUP, user_id=MEMBER
    )  # reading is fine
    anonymous = {"id": GROUP, "type": "supergroup", "title": "Test group"}
    reply = await ask(
        bot_api, "/unsubscribe lumen", chat_id=GROUP, user_id=1087968824, sender_chat=anonymous
    )
    assert reply.startswith("Unsubscribed")
    bot_api.set_member(GROUP, 99, "creator")
    assert (await ask(bot_api, "/subscribe lumen", chat_id=GROUP, user_id=99)).startswith(
        "Subscribed"
    )


async def test_commands_for_another_bot_are_ignored(bot: RunningBot, bot_api: FakeBotApi) -> None:
    bot_api.push_command("/help@some_other_bot", chat_id=PRIVATE)
    reply = await ask(bot_api, "/feeds")  # updates are handled in order: help would come first
    assert bot_api.texts(PRIVATE) == [reply]
    assert "Watched feeds" in reply


async def test_operators_add_and_remove_feeds(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    other = feeds.serve("/other/", blog.rss((blog.PUNE,), title="Other Blog"))
    assert "Only the bot's operators" in await ask(bot_api, f"/addfeed {other}")
    assert "Only the bot's operators" in await ask(bot_api, "/removefeed lumen")
    op = OPERATOR
    assert "Usage: /addfeed URL [<i>feed name</i>]" in await ask(bot_api, "/addfeed", chat_id=op)
    # A loopback URL from a chat is refused (SSRF) unless ALLOW_PRIVATE_FEED_URLS is set.
    refused = await ask(bot_api, f"/addfeed {other} other", chat_id=op)
    assert "Could not add the feed" in refused and "leads to a private network" in refused
    assert "127.0.0.1" not in refused  # the chat gets a sentence, not the exception
    bot.services.poller.fetcher.allow_private = True
    added = await ask(bot_api, f"/addfeed {other} other", chat_id=op)
    assert "Now watching <b>Other Blog</b> as <code>other</code> (1 item so far)" in added
    with Session(bot.engine) as session:
        other_feed = store.get_feed(session, slug="other")
    assert other_feed is not None and not other_feed.trusted  # polled through the SSRF guard
    assert "This feed is watched already" in await ask(bot_api, f"/addfeed {other}", chat_id=op)
    assert "Stopped watching <code>other</code>" in await ask(
        bot_api, "/removefeed other", chat_id=op
    )
    assert "no feed named" in await ask(bot_api, "/removefeed other", chat_id=op)


async def test_removal_from_a_chat_deactivates_it(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/subscribe lumen")
    bot_api.push_update(
        {
            "my_chat_member": {
                "chat": {"id": PRIVATE, "type": "private", "first_name": "Ada"},
                "from": {"id": PRIVATE, "is_bot": False, "first_name": "Ada"},
                "date": 0,
                "old_chat_member": {
                    "status": "member",
                    "user": {"id": 1, "is_bot": True, "first_name": "B"},
                },
                "new_chat_member": {
                    "status": "kicked",
                    "until_date": 0,
                    "user": {"id": 1, "is_bot": True, "first_name": "B"},
                },
            }
        }
    )

    def inactive() -> bool:
        with Session(bot.engine) as session:
            chat = session.get(Chat, PRIVATE)
            return chat is not None and not chat.active

    await bot_api.wait_for(inactive)


async def test_group_upgrade_keeps_subscriptions_under_the_new_id(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    await ask(bot_api, "/subscribe lumen", chat_id=GROUP, chat_type="group")
    bot_api.push_migration(GROUP, -100555, user_id=ADMIN)

    def moved() -> bool:
        with Session(bot.engine) as session:
            subs = session.exec(select(Subscription.chat_id)).all()
            return list(subs) == [-100555]

    await bot_api.wait_for(moved)


async def test_a_failing_handler_answers_instead_of_staying_silent(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    with bot.engine.begin() as conn:  # a real database fault: the subscription table is gone
        conn.exec_driver_sql("DROP TABLE subscription")
    reply = await ask(bot_api, "/list")
    assert reply.startswith("Sorry, something went wrong")


async def test_subscription_limit_per_chat(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(
        db_url, bot_api, poll_interval_seconds=3600, max_subscriptions_per_chat=1
    )
    async with running_bot(settings) as running:
        for slug in ("one", "two"):
            url = feeds.serve(f"/{slug}/", blog.rss((blog.PUNE,), title=slug))
            await running.services.catalog.add_feed(url, slug=slug, trusted=True)
        assert (await ask(bot_api, "/subscribe one")).startswith("Subscribed")
        assert "the most allowed" in await ask(bot_api, "/subscribe two")
        with Session(running.engine) as session:
            assert store.count_subscriptions(session, chat_id=PRIVATE) == 1


async def test_without_operators_addfeed_says_how_to_become_one(
    db_url: str, bot_api: FakeBotApi
) -> None:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, bot_admin_ids="")
    async with running_bot(settings):
        reply = await ask(bot_api, "/addfeed https://example.org/feed/")
        assert f"Your Telegram user id is <code>{PRIVATE}</code>" in reply
        assert f"<code>BOT_ADMIN_IDS={PRIVATE}</code>" in reply
        # Not "nobody can add feeds" (issue 25): pasting a blog's address works for anyone.
        assert "nobody" not in reply and reply.endswith("by sending its address.")
        spanish = await ask(bot_api, "/addfeed https://example.org/feed/", language="es")
        assert f"<code>BOT_ADMIN_IDS={PRIVATE}</code>" in spanish
        assert spanish.startswith("Este bot aún no tiene operador")
        bot_api.set_member(-1001, ADMIN, "administrator")
        in_group = await ask(bot_api, "/addfeed https://example.org/feed/", chat_id=-1001)
        assert "Only the bot's operators" in in_group and "BOT_ADMIN_IDS" not in in_group
