"""Leaving a feed costs nothing by a slip (issue 43, item 3), through PTB and the fake Bot API
in en, es and zh: a bare /unsubscribe asks (a confirmation with one feed, a button per feed
with several); every "Unsubscribed" answer has an Undo that brings back every setting for
`UNSUBSCRIBE_UNDO_MINUTES`; subscribing again within `LEFT_SETTINGS_DAYS` brings them back
too and says so; a left subscription gets nothing meanwhile; members cannot press Undo."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import Session, select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Subscription
from bot.runtime.clock import utcnow
from bot.runtime.i18n import translator
from bot.telegram import texts
from bot.telegram.commands import leaving
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, keyboard, lumen_bot, press, titles

CHAT, GROUP, ADMIN, MEMBER = 111, -1001, 77, 78
# Every per-subscription setting a chat can give a feed by command.
SETTINGS = (
    "/filter lumen Blog, -Press Release",
    "/filter lumen title:corvid -author:bot",
    "/keywords lumen member, -Lisbon",
    "/format lumen title",
    "/edits lumen substantive",
    "/preview lumen link",
    "/silent lumen on",
    "/digest lumen daily 08:30",
)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


def row(bot: RunningBot, chat_id: int = CHAT) -> dict[str, object]:
    """The chat's subscription row as stored, every setting (when it left aside)."""
    with Session(bot.engine) as session:
        sub = session.exec(select(Subscription).where(Subscription.chat_id == chat_id)).one()
        return sub.model_dump(exclude={"left_at"})


def every_row(bot: RunningBot) -> dict[int, dict[str, object]]:
    with Session(bot.engine) as session:
        subs = session.exec(select(Subscription)).all()
        return {s.feed_id: s.model_dump(exclude={"left_at"}) for s in subs}


def following(bot: RunningBot, chat_id: int = CHAT) -> list[str]:
    with Session(bot.engine) as session:
        return [feed.slug for _, feed in store.chat_subscriptions(session, chat_id=chat_id)]


def last_edit(api: FakeBotApi) -> str:
    return str(api.calls_to("editMessageText")[-1].params["text"])


async def customised(bot_api: FakeBotApi, language: str, chat_id: int = CHAT) -> None:
    await ask(bot_api, "/subscribe lumen", chat_id, language=language)
    for line in SETTINGS:
        await ask(bot_api, line, chat_id, language=language)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_unsubscribe_then_undo_restores_every_setting(
    bot: RunningBot, bot_api: FakeBotApi, language: str
) -> None:
    tr = translator(language)
    await customised(bot_api, language)
    before = row(bot)
    assert before["rules"] == ["title:corvid", "-author:bot"] and before["digest"] == "daily"
    reply = await ask(bot_api, "/unsubscribe lumen", CHAT, language=language)
    kept = tr.ngettext(
        "Its settings here are kept for {days} day: <code>/subscribe {slug}</code> brings "
        "them back.",
        "Its settings here are kept for {days} days: <code>/subscribe {slug}</code> brings "
        "them back.",
        30,
    ).format(days=30, slug="lumen")
    left = tr.gettext("Unsubscribed from <b>{title}</b>.").format(title="Lumen Blog")
    assert reply == f"{left}\n{kept}"
    assert following(bot) == []
    ((undo,),) = keyboard(bot_api, CHAT)
    assert undo["text"] == tr.gettext(leaving.UNDO_BUTTON)
    await press(bot_api, undo["callback_data"])
    assert last_edit(bot_api) == tr.gettext(leaving.UNDONE).format(title="Lumen Blog")
    assert following(bot) == ["lumen"] and row(bot) == before
    answer = await press(bot_api, undo["callback_data"])  # nothing left to undo now
    assert answer["text"] == tr.gettext(leaving.TOO_LATE).format(minutes=10)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_subscribing_again_brings_the_settings_back_and_says_so(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, language: str
) -> None:
    tr = translator(language)
    await customised(bot_api, language)
    before = row(bot)
    await ask(bot_api, "/unsubscribe lumen", CHAT, language=language)
    with transaction(bot.engine) as session:  # left 20 days ago: too late to undo
        session.exec(update(Subscription).values(left_at=utcnow() - timedelta(days=20)))
    ((undo,),) = keyboard(bot_api, CHAT)
    answer = await press(bot_api, undo["callback_data"])
    assert answer["text"] == tr.gettext(leaving.TOO_LATE).format(minutes=10)
    assert answer["show_alert"] is True and following(bot) == []
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)  # left: nothing arrives, nothing is held for its digest
    assert titles(bot_api, CHAT) == []
    with Session(bot.engine) as session:
        assert store.pending_count(session) == 0
    restored = tr.gettext(
        "Subscribed to <b>{title}</b> again, with the filters and settings this chat had "
        "for it (see /list)."
    ).format(title="Lumen Blog")
    assert await ask(bot_api, "/subscribe lumen", CHAT, language=language) == restored
    assert row(bot) == before
    with transaction(bot.engine) as session:  # left 31 days ago: forgotten, defaults again
        session.exec(update(Subscription).values(left_at=utcnow() - timedelta(days=31)))
    reply = await ask(bot_api, "/subscribe lumen", CHAT, language=language)
    assert reply != restored and "<b>Lumen Blog</b>" in reply
    assert row(bot)["rules"] is None and row(bot)["digest"] is None


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_a_bare_unsubscribe_asks_first(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, language: str
) -> None:
    tr = translator(language)
    assert await ask(bot_api, "/unsubscribe", CHAT, language=language) == tr.gettext(
        leaving.NOTHING
    )
    await customised(bot_api, language)
    before = row(bot)
    question = await ask(bot_api, "/unsubscribe", CHAT, language=language)
    assert question == tr.gettext(leaving.ASK_ONE).format(title="Lumen Blog")
    assert following(bot) == ["lumen"]  # nothing happened yet
    ((leave, keep),) = keyboard(bot_api, CHAT)
    assert [leave["text"], keep["text"]] == [
        tr.gettext(leaving.LEAVE_BUTTON),
        tr.gettext(leaving.KEEP_BUTTON),
    ]
    await press(bot_api, keep["callback_data"])
    assert last_edit(bot_api) == tr.gettext(leaving.KEPT).format(title="Lumen Blog")
    assert following(bot) == ["lumen"]
    await press(bot_api, leave["callback_data"])
    assert last_edit(bot_api).startswith(
        tr.gettext("Unsubscribed from <b>{title}</b>.").format(title="Lumen Blog")
    )
    assert following(bot) == []
    edited = bot_api.calls_to("editMessageText")[-1].params["reply_markup"]["inline_keyboard"]
    ((undo,),) = edited
    stale = await press(bot_api, leave["callback_data"])  # the question's button again
    assert stale["text"] == tr.gettext(texts.BUTTON_EXPIRED)
    await press(bot_api, undo["callback_data"])
    assert following(bot) == ["lumen"] and row(bot) == before
    # Several feeds: one button each; the one tapped is left, the others stay.
    other = feeds.serve("/other/", blog.rss((blog.PUNE,), title="Other Blog"))
    await bot.services.catalog.add_feed(other, slug="other", trusted=True)
    await ask(bot_api, "/subscribe other", CHAT, language=language)
    question = await ask(bot_api, "/unsubscribe", CHAT, language=language)
    assert question == tr.gettext(leaving.ASK_WHICH)
    buttons = [b for (b,) in keyboard(bot_api, CHAT)]
    assert [b["text"] for b in buttons] == ["✖ Lumen Blog", "✖ Other Blog"]
    await press(bot_api, buttons[1]["callback_data"])
    assert following(bot) == ["lumen"]


async def test_unsubscribe_all_has_one_undo_for_every_feed(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    other = feeds.serve("/other/", blog.rss((blog.PUNE,), title="Other Blog"))
    await bot.services.catalog.add_feed(other, slug="other", trusted=True)
    await customised(bot_api, "en")
    await ask(bot_api, "/subscribe other")
    rows = every_row(bot)
    reply = await ask(bot_api, "/unsubscribe all")
    assert reply == (
        "Unsubscribed from 2 feeds.\n"
        "Their settings are kept for 30 days: subscribing again brings them back."
    )
    ((undo,),) = keyboard(bot_api, CHAT)
    await press(bot_api, undo["callback_data"])
    assert last_edit(bot_api) == "Subscribed again, with every setting this chat had."
    assert every_row(bot) == rows and following(bot) == ["lumen", "other"]


async def test_only_group_admins_unsubscribe_or_undo(bot: RunningBot, bot_api: FakeBotApi) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    bot_api.set_member(GROUP, MEMBER, "member")
    await ask(bot_api, "/subscribe lumen", GROUP, user_id=ADMIN)
    await ask(bot_api, "/unsubscribe lumen", GROUP, user_id=ADMIN)
    ((undo,),) = keyboard(bot_api, GROUP)
    refused = await press(bot_api, undo["callback_data"], GROUP, MEMBER)
    assert refused["text"] == texts.ADMINS_ONLY and following(bot, GROUP) == []
    await press(bot_api, undo["callback_data"], GROUP, ADMIN)
    assert following(bot, GROUP) == ["lumen"]
    await ask(bot_api, "/unsubscribe", GROUP, user_id=MEMBER)  # told once: admins only
    assert following(bot, GROUP) == ["lumen"]


async def test_a_managed_channel_is_asked_left_and_restored_from_the_private_chat(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    channel = -1005001
    bot_api.add_channel(channel, "Lumen News", username="lumen_news", admins=(CHAT,))
    await ask(bot_api, "/channel @lumen_news")
    await ask(bot_api, "/subscribe lumen")
    await ask(bot_api, "/format lumen title")
    before = row(bot, channel)
    question = await ask(bot_api, "/unsubscribe")
    assert question == (
        "📢 <b>Lumen News</b>\n"
        "Unsubscribe from <b>Lumen Blog</b>? This chat would get no more of its posts."
    )
    ((leave, _keep),) = keyboard(bot_api, CHAT)
    await press(bot_api, leave["callback_data"])
    assert last_edit(bot_api).startswith("📢 <b>Lumen News</b>\nUnsubscribed from")
    assert following(bot, channel) == [] and following(bot) == []
    edited = bot_api.calls_to("editMessageText")[-1].params["reply_markup"]["inline_keyboard"]
    ((undo,),) = edited
    await press(bot_api, undo["callback_data"])
    assert following(bot, channel) == ["lumen"] and row(bot, channel) == before


async def test_the_lists_cross_offers_undo_in_the_list(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    other = feeds.serve("/other/", blog.rss((blog.PUNE,), title="Other Blog"))
    await bot.services.catalog.add_feed(other, slug="other", trusted=True)
    await customised(bot_api, "es")
    await ask(bot_api, "/subscribe other", CHAT, language="es")
    before = every_row(bot)
    await ask(bot_api, "/list", CHAT, language="es")
    cross = next(
        b
        for row in keyboard(bot_api, CHAT)
        for b in row
        if b["callback_data"].startswith("unsub:") and b["callback_data"] != "unsub:0"
    )
    await press(bot_api, cross["callback_data"])
    edited = bot_api.calls_to("editMessageText")[-1].params
    assert "Lumen Blog" not in edited["text"]
    (undo,) = edited["reply_markup"]["inline_keyboard"][-1]
    assert undo["text"] == "↩ Deshacer: Lumen Blog" and following(bot) == ["other"]
    await press(bot_api, undo["callback_data"])
    relisted = bot_api.calls_to("editMessageText")[-1].params
    assert "Lumen Blog" in relisted["text"] and "Other Blog" in relisted["text"]
    assert following(bot) == ["lumen", "other"] and every_row(bot) == before
    late = await press(bot_api, undo["callback_data"])
    assert late["text"] == translator("es").gettext(leaving.TOO_LATE).format(minutes=10)
