"""Languages end to end: the client's language at first contact, /language, translated replies,
buttons, command menus and notifications, through PTB and the fake Bot API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import Session

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Chat
from bot.runtime.i18n import translator
from bot.services.digests import run_digests
from bot.telegram import texts
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, keyboard, lumen_bot, press
from tests.support.telegram_html import assert_valid_telegram_html

ENGLISH_CHAT, SPANISH_CHAT, CHINESE_CHAT, GROUP, ADMIN, MEMBER = 111, 222, 333, -1001, 77, 88


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


def stored_language(bot: RunningBot, chat_id: int) -> str | None:
    with Session(bot.engine) as session:
        chat = session.get(Chat, chat_id)
        return chat.language if chat is not None else None


async def test_first_contact_picks_the_client_language_and_keeps_it(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    reply = await ask(bot_api, "/help", SPANISH_CHAT, language="es-419")
    assert reply.startswith("<b>Feedwatch</b> vigila feeds de blogs")
    assert "<b>Comandos</b>" in reply and "/language" in reply
    assert "/language en|zh|es" in await ask(bot_api, "/help language", SPANISH_CHAT)
    assert_valid_telegram_html(reply)
    assert stored_language(bot, SPANISH_CHAT) == "es"
    # someone with an English client later: the chat's language stays Spanish
    assert (await ask(bot_api, "/feeds", SPANISH_CHAT)).startswith("<b>Feeds vigilados</b>")
    assert (await ask(bot_api, "/help", CHINESE_CHAT, language="zh-hans")).startswith(
        "<b>Feedwatch</b> 关注博客的订阅源"
    )
    assert (await ask(bot_api, "/help", ENGLISH_CHAT, language="pt-br")).startswith(
        "<b>Feedwatch</b> watches blog feeds"
    )
    assert stored_language(bot, ENGLISH_CHAT) == "en"


async def test_a_chat_from_before_languages_gets_one_at_its_next_command(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    with transaction(bot.engine) as session:  # BEGIN IMMEDIATE, as the bot writes
        store.upsert_chat(session, chat_id=SPANISH_CHAT, type_="private", title="Ana")
    assert stored_language(bot, SPANISH_CHAT) is None  # as migration 0006 leaves older chats
    assert (await ask(bot_api, "/feeds", SPANISH_CHAT, language="es")).startswith(
        "<b>Feeds vigilados</b>"
    )
    assert stored_language(bot, SPANISH_CHAT) == "es"


async def test_the_apology_speaks_the_client_language_without_the_database(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    with bot.engine.begin() as conn:  # a real database fault: the chat table is gone
        conn.exec_driver_sql("DROP TABLE chat")
    reply = await ask(bot_api, "/list", SPANISH_CHAT, language="es")
    assert reply == translator("es").gettext(texts.SOMETHING_WRONG)
    assert reply.startswith("Lo siento, algo falló")


async def test_a_group_speaks_the_language_of_whoever_added_the_bot(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    bot_api.push_bot_added(GROUP, by=ADMIN, language="es", title="Grupo")
    await bot_api.wait_for(lambda: stored_language(bot, GROUP) == "es")
    (hello,) = await bot_api.wait_replies(GROUP, 1)  # one line on how to start, in Spanish
    assert hello.startswith("¡Hola!")
    bot_api.set_member(GROUP, MEMBER, "member")
    refused = await ask(bot_api, "/subscribe lumen", GROUP, language="zh", user_id=MEMBER)
    assert refused == translator("es").gettext(texts.ADMINS_ONLY)
    assert refused.startswith("Solo los administradores")


async def test_language_command_shows_changes_and_refuses(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    shown = await ask(bot_api, "/language", ENGLISH_CHAT)
    assert shown.startswith("Language: English. Usage: /language en|zh|es")
    names = [b["text"] for row in keyboard(bot_api, ENGLISH_CHAT) for b in row]
    assert names == ["English", "中文", "Español"]
    assert await ask(bot_api, "/language zh", ENGLISH_CHAT) == "语言：中文。"
    assert stored_language(bot, ENGLISH_CHAT) == "zh"
    assert (await ask(bot_api, "/help", ENGLISH_CHAT)).startswith("<b>Feedwatch</b> 关注")
    wrong = await ask(bot_api, "/language klingon", ENGLISH_CHAT)
    assert wrong.startswith("未知的语言。用法：/language en|zh|es")
    assert stored_language(bot, ENGLISH_CHAT) == "zh"
    assert await ask(bot_api, "/language English", ENGLISH_CHAT) == "Language: English."

    await press(bot_api, "lang:es", chat_id=ENGLISH_CHAT)
    assert stored_language(bot, ENGLISH_CHAT) == "es"
    edits = [c.params["text"] for c in bot_api.calls_to("editMessageText")]
    assert edits[-1] == "Idioma: Español."

    await ask(bot_api, "/help", GROUP, user_id=ADMIN)
    bot_api.set_member(GROUP, MEMBER, "member")
    refused = await ask(bot_api, "/language es", GROUP, user_id=MEMBER)
    assert refused == texts.ADMINS_ONLY
    answer = await press(bot_api, "lang:es", chat_id=GROUP, user_id=MEMBER)
    assert answer["show_alert"] and answer["text"] == texts.ADMINS_ONLY
    assert stored_language(bot, GROUP) == "en"


async def test_every_reply_is_translated(bot: RunningBot, bot_api: FakeBotApi) -> None:
    """The same conversation in English and in Spanish: no reply may come back in English."""
    script = [
        "/help",
        "/feeds",
        "/list",
        "/export",
        "/subscribe lumen",
        "/subscribe lumen",
        "/subscribe nosuch",
        "/list",
        "/categories lumen",
        "/filter lumen",
        "/filter lumen -",
        "/filter lumen Community, Nonexistent",
        "/keywords lumen ,,,",
        "/keywords lumen compiler",
        "/keywords lumen off",
        "/edits lumen maybe",
        "/edits lumen off",
        "/edits lumen on",
        "/edits lumen substantive",
        "/preview lumen on",
        "/preview lumen off",
        "/pause",
        "/list",
        "/resume",
        "/digest lumen weekly",
        "/digest lumen daily 25:00",
        "/digest lumen daily 08:30",
        "/digest lumen hourly",
        "/digest lumen off",
        "/timezone Mars/Olympus",
        "/timezone Europe/Madrid",
        "/language",
        "/language xx",
        "/addfeed http://127.0.0.1/feed",
        "/removefeed lumen",
        "/unsubscribe",
        "/unsubscribe lumen",
        "/unsubscribe lumen",
        "/unsubscribe all",
    ]
    for line in script:
        english = await ask(bot_api, line, ENGLISH_CHAT)
        spanish = await ask(bot_api, line, SPANISH_CHAT, language="es")
        assert_valid_telegram_html(spanish)
        assert spanish != english, f"{line!r} answered in English: {spanish!r}"
    subscribed = [
        s for s in bot_api.sent if s.chat_id == SPANISH_CHAT and "reply_markup" in s.params
    ]
    backlog = subscribed[0].params["reply_markup"]["inline_keyboard"]
    assert [row[0]["text"] for row in backlog] == ["Solo entradas nuevas", "También las últimas 3"]
    menus = {
        c.params.get("language_code"): c.params["commands"]
        for c in bot_api.calls_to("setMyCommands")
    }
    assert set(menus) == {None, "es", "zh"}
    assert {"command": "start", "description": "qué hace este bot"} in menus["es"]
    assert [c["command"] for c in menus["zh"]] == [c["command"] for c in menus[None]]


def notifications(api: FakeBotApi, chat_id: int) -> list[str]:
    return [t for t in api.texts(chat_id) if "blog.lumen.example" in t]


async def test_notifications_and_digests_speak_each_chat_language(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    for chat_id, language in ((ENGLISH_CHAT, "en"), (SPANISH_CHAT, "es"), (CHINESE_CHAT, "zh")):
        await ask(bot_api, "/subscribe lumen", chat_id, language=language)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    feeds.serve("/feed/", blog.rss(blog.edited_corvid()))
    await cycle(bot, bot_api)
    expected: dict[int, tuple[str, str]] = {
        ENGLISH_CHAT: ("<b>Updated: ", "<b>Added:</b>"),
        SPANISH_CHAT: ("<b>Actualizado: ", "<b>Añadido:</b>"),
        CHINESE_CHAT: ("<b>已更新：", "<b>新增：</b>"),
    }
    for chat_id, (updated, added) in expected.items():
        messages = notifications(bot_api, chat_id)
        assert len(messages) == 4, messages  # three new posts, then the edit
        assert all(not m.startswith(updated) for m in messages[:3])
        assert messages[3].startswith(updated) and added in messages[3]
        assert blog.EDITED_SENTENCE in messages[3]
    published = blog.LISBON.published
    assert published is not None
    assert f"{published.day} {published:%b %Y}" in notifications(bot_api, ENGLISH_CHAT)[2]
    assert (
        f"{published.year}年{published.month}月{published.day}日"
        in (notifications(bot_api, CHINESE_CHAT)[2])
    )

    # a Spanish digest
    await ask(bot_api, "/digest lumen hourly", SPANISH_CHAT, language="es")
    fresh = replace(blog.PUNE, guid="fresh", title="Nuevo encuentro", slug="nuevo-encuentro")
    feeds.serve("/feed/", blog.rss((fresh, *blog.edited_corvid())))
    await cycle(bot, bot_api)
    later = datetime.now(UTC) + timedelta(hours=1, minutes=1)
    assert run_digests(bot.engine, clock=lambda: later) == 1
    bot.services.wake.set()

    def digest() -> Any:
        return next((t for t in bot_api.texts(SPANISH_CHAT) if t.startswith("<b>Boletín:")), None)

    await bot_api.wait_for(lambda: digest() is not None)
    assert digest().startswith("<b>Boletín: Lumen Blog</b> — 1 entrada\n")
    assert "Nuevo encuentro</a>" in digest()
    assert any("Nuevo encuentro" in t for t in notifications(bot_api, ENGLISH_CHAT))  # at once
