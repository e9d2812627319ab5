"""Run the real bot (PTB Application, handlers, poll and delivery loops) in the test's event loop,
talking HTTP to the fake Bot API and to the local feed server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from telegram.ext import Application

from bot.config import Settings
from bot.db.engine import make_engine
from bot.fetch import Fetcher
from bot.runtime import make_fetcher
from bot.telegram.app import build_application, startup
from bot.telegram.shared import KEY, Shared
from tests.conftest import make_settings
from tests.fakes.bot_api import FakeBotApi
from tests.fakes.feed_server import FeedServer
from tests.fixtures import blog
from tests.telegram_html import assert_valid_telegram_html

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
            await app.updater.start_polling(poll_interval=0, timeout=1)
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
