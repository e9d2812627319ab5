"""Run the real bot (PTB Application, handlers, poll and delivery loops) in the test's event loop,
talking HTTP to the fake Bot API and to the local feed server."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session
from telegram import Update
from telegram.ext import Application

from bot.db import store
from bot.db.engine import make_engine
from bot.net.fetch import Fetcher
from bot.runtime.config import Settings
from bot.services.wiring import make_fetcher
from bot.telegram.app import build_application, startup
from bot.telegram.shared import KEY, Shared
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings
from tests.support.telegram_html import assert_valid_telegram_html

PRIVATE_CHAT = 111
OPERATOR_ID = 4242  # BOT_ADMIN_IDS in `bot_settings`
GROUP_ADMIN = 77  # who `ask` sends group commands as (tests make them an administrator)


@dataclass
class RunningBot:
    app: Application[Any, Any, Any, Any, Any, Any]
    services: Shared
    engine: Engine
    settings: Settings


def bot_settings(db_url: str, api: FakeBotApi, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "telegram_bot_token": api.token,
        "telegram_api_base_url": api.base_url,
        "poll_interval_seconds": 1,
        "telegram_rate_per_second": 1000.0,
        "delivery_retry_seconds": 0.1,
        "bot_admin_ids": "4242",
        "commands_per_minute": 10_000,  # scripted conversations are faster than people
    }
    values.update(overrides)
    return make_settings(db_url, **values)


@asynccontextmanager
async def running_bot(
    settings: Settings, *, updates: bool = True, fetcher: Fetcher | None = None
) -> AsyncIterator[RunningBot]:
    """`fetcher`: one built by the test (the SSRF tests' loopback-only network)."""
    engine = make_engine(settings.database_url)
    fetcher = fetcher or make_fetcher(settings)
    app = build_application(settings, engine, fetcher)
    await app.initialize()
    try:
        await startup(app)
        if updates:
            assert app.updater is not None
            # as `python -m bot run` asks (lifecycle.py): reactions are not sent by default
            await app.updater.start_polling(
                poll_interval=0, timeout=1, allowed_updates=Update.ALL_TYPES
            )
        await app.start()
        yield RunningBot(app=app, services=app.bot_data[KEY], engine=engine, settings=settings)
    finally:
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        await app.bot_data[KEY].stop()
        await app.shutdown()
        engine.dispose()


@asynccontextmanager
async def lumen_bot(
    db_url: str,
    api: FakeBotApi,
    feeds: FeedServer,
    posts: tuple[blog.Post, ...],
    **overrides: object,
) -> AsyncIterator[RunningBot]:
    """A running bot that watches the Lumen Blog fixture (serving `posts`) as `lumen`."""
    settings = bot_settings(db_url, api, **{"poll_interval_seconds": 3600, **overrides})
    async with running_bot(settings) as running:
        url = feeds.serve("/feed/", blog.rss(posts))
        await running.services.catalog.add_feed(url, slug="lumen", trusted=True)
        yield running


async def ask(api: FakeBotApi, text: str, chat_id: int = PRIVATE_CHAT, **kwargs: Any) -> str:
    """Send a command and return the bot's reply (checked to be valid Telegram HTML)."""
    before = len(api.texts(chat_id))
    api.push_command(
        text,
        chat_id=chat_id,
        user_id=kwargs.pop("user_id", chat_id if chat_id > 0 else GROUP_ADMIN),
        **kwargs,
    )
    replies = await api.wait_replies(chat_id, before + 1)
    reply = replies[before]
    assert_valid_telegram_html(reply)
    return reply


def posts(api: FakeBotApi, chat_id: int) -> list[str]:
    """Notification messages (not command replies) a chat received, in order."""
    return [t for t in api.texts(chat_id) if t.startswith(("<b><a href", "<b>Updated:"))]


def titles(api: FakeBotApi, chat_id: int) -> list[str]:
    out = []
    for text in posts(api, chat_id):
        head = text.split("\n", 1)[0]
        title = head.split('">', 1)[1].split("</a>", 1)[0]
        out.append(("Updated: " if head.startswith("<b>Updated:") else "") + title)
    return out


async def command(api: FakeBotApi, text: str, chat_id: int, user_id: int | None = None) -> None:
    before = len(api.texts(chat_id))
    api.push_command(text, chat_id=chat_id, user_id=user_id or chat_id)
    await api.wait_replies(chat_id, before + 1)


async def cycle(bot: RunningBot, api: FakeBotApi) -> None:
    """Poll every feed now, then wait until the outbox is empty."""
    await bot.services.poller.poll_due(all_feeds=True)
    bot.services.wake.set()
    await drained(bot, api)


async def drained(bot: RunningBot, api: FakeBotApi) -> None:
    """Wait until every message is marked sent: the fake Bot API has a message a moment
    before the bot has written that Telegram accepted it (who was sent a post decides who
    hears of its edits)."""

    def empty() -> bool:
        with Session(bot.engine) as session:
            return store.pending_count(session) == 0

    await api.wait_for(empty, timeout=15)


_ids = itertools.count(1)


def keyboard(api: FakeBotApi, chat_id: int) -> list[list[dict[str, Any]]]:
    with api.lock:
        sent = [s for s in api.sent if s.chat_id == chat_id and "reply_markup" in s.params]
    rows: list[list[dict[str, Any]]] = sent[-1].params["reply_markup"]["inline_keyboard"]
    return rows


async def press(
    api: FakeBotApi,
    data: str,
    chat_id: int = PRIVATE_CHAT,
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


def page(*links: tuple[str, str, str]) -> bytes:
    """A blog's homepage announcing feeds as `(type, href, title)` in its head."""
    tags = "".join(
        f'<link rel="alternate" type="{kind}" href="{href}" title="{title}">'
        for kind, href, title in links
    )
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Home</title>"
        f"{tags}</head><body><h1>Welcome</h1><p>Posts about compilers.</p></body></html>"
    ).encode()


HTML = {"content_type": "text/html; charset=utf-8"}


async def answer(
    api: FakeBotApi, text: str, chat_id: int = PRIVATE_CHAT, user_id: int | None = None
) -> str:
    """Send `text`; wait for the reply that settles it (a "Looking for…" note is edited into
    the answer when the work is slow) and return the answer as the chat sees it."""
    before = len(api.texts(chat_id))
    api.push_command(text, chat_id=chat_id, user_id=user_id or chat_id)

    def settled() -> bool:
        shown = api.shown(chat_id)[before:]
        return bool(shown) and not shown[-1].startswith("Looking for a feed")

    await api.wait_for(settled)
    reply = api.shown(chat_id)[-1]
    assert_valid_telegram_html(reply)
    return reply
