"""Wiring only: the PTB application, its rate limiter, handlers and start-up work.

Running and stopping it is `bot.telegram.lifecycle`; the engine's loops (poll, deliver) are
`bot.services.loops`, started here; what each command does is in `bot.telegram.commands`.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Engine
from telegram import Bot, BotCommand, Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    MessageReactionHandler,
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest

from bot.net.fetch import Fetcher
from bot.runtime.config import Settings
from bot.runtime.i18n import DEFAULT as DEFAULT_LANGUAGE
from bot.runtime.i18n import LANGUAGES, translator
from bot.services.delivery import Deliverer
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher, worker_identity
from bot.telegram import commands
from bot.telegram.budget import SharedRateLimiter, buckets_for
from bot.telegram.buttons import route
from bot.telegram.commands import (
    adding,
    channels,
    importing,
    membership,
    operators,
    reactions,
    start,
)
from bot.telegram.context import Context, load_managed, throttle
from bot.telegram.guard import ChatOrderedProcessor, Guard
from bot.telegram.messenger import TelegramMessenger
from bot.telegram.request import AiohttpRequest
from bot.telegram.shared import KEY, Shared
from bot.telegram.spec import Who

log = logging.getLogger(__name__)


def file_base_url(api_base_url: str) -> str:
    """`https://api.telegram.org/bot` → `https://api.telegram.org/file/bot` (the same for a
    self-hosted Bot API server)."""
    head, _, tail = api_base_url.rstrip("/").rpartition("/")
    return f"{head}/file/{tail}"


def build_application(
    settings: Settings,
    engine: Engine,
    fetcher: Fetcher,
    *,
    get_updates_request: BaseRequest | None = None,
) -> Application[Any, Any, Any, Any, Any, Any]:
    limiter = SharedRateLimiter(
        buckets_for(engine),
        settings.telegram_rate_per_second,
        settings.telegram_group_rate_per_minute,
    )
    builder = ApplicationBuilder().request(AiohttpRequest(connection_pool_size=64))
    if get_updates_request is not None:
        builder = builder.get_updates_request(get_updates_request)
    application = (
        builder.token(settings.token)
        .base_url(settings.telegram_api_base_url)
        .base_file_url(file_base_url(settings.telegram_api_base_url))
        .rate_limiter(limiter)
        .post_init(startup)
        .concurrent_updates(ChatOrderedProcessor())
        .context_types(ContextTypes(context=Context))
        .build()
    )
    owner = worker_identity()
    poller = Poller(engine, fetcher, settings, owner=owner)
    svc = Shared(
        settings=settings,
        engine=engine,
        poller=poller,
        guard=Guard(commands_per_minute=settings.commands_per_minute),
        commands=commands.TABLE,
    )
    svc.deliverer = Deliverer(
        engine,
        TelegramMessenger(application.bot),
        max_attempts=settings.delivery_max_attempts,
        concurrency=settings.delivery_concurrency,
        retry_base=settings.delivery_retry_seconds,
        lease_seconds=settings.lease_seconds,
        owner=owner,
    )
    application.bot_data[KEY] = svc
    add_handlers(application)
    return application


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every route in one place: the throttle first, the managed channel next, then commands
    (operator ones only for operators), buttons by pattern, membership changes, files, errors."""
    svc: Shared = application.bot_data[KEY]
    application.add_handler(TypeHandler(Update, throttle), group=-2)
    application.add_handler(TypeHandler(Update, load_managed), group=-1)
    operators_only = filters.User(user_id=svc.settings.bot_admin_ids)
    for command in commands.TABLE:
        if command.who is Who.OPERATORS:
            handler = CommandHandler(command.name, command.handler, filters=operators_only)
        else:
            handler = CommandHandler(command.name, command.handler)
        application.add_handler(handler)
    for_operators = [c.name for c in commands.TABLE if c.who is Who.OPERATORS]
    application.add_handler(CommandHandler(for_operators, operators.refuse))
    for action, callback in commands.BUTTONS.items():
        application.add_handler(CallbackQueryHandler(callback, pattern=route(action)))
    application.add_handler(CallbackQueryHandler(commands.EXPIRED_BUTTON))
    application.add_handler(
        ChatMemberHandler(membership.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, membership.on_migrate))
    application.add_handler(MessageReactionHandler(reactions.on_reaction))
    private = filters.ChatType.PRIVATE
    application.add_handler(
        MessageHandler(filters.StatusUpdate.CHAT_SHARED & private, channels.on_chat_shared)
    )
    application.add_handler(
        MessageHandler(filters.TEXT & ~filters.COMMAND & private, adding.on_pasted_address)
    )
    application.add_handler(
        MessageHandler(filters.Document.ALL & filters.UpdateType.MESSAGE, importing.on_document)
    )
    application.add_handler(MessageHandler(filters.COMMAND & private, start.on_other_text))
    application.add_error_handler(membership.on_error)


async def startup(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """post_init: register the command menu, then start polling feeds and delivering."""
    model = bool(application.bot_data[KEY].settings.model_api_url)
    await register_commands(application.bot, model=model)
    application.bot_data[KEY].start_loops()


async def register_commands(bot: Bot, *, model: bool = True) -> None:
    """The command menu, once by default (English) and once per translated client language;
    without a language model, not the commands that need one."""
    for language in LANGUAGES:
        tr = translator(language)
        menu = [BotCommand(c.name, tr.gettext(c.about)) for c in commands.TABLE.menu(model=model)]
        code = None if language == DEFAULT_LANGUAGE else language
        await bot.set_my_commands(menu, language_code=code)


async def deliver_once(settings: Settings, engine: Engine) -> int:
    """Send what is due now and return (for `poll --once`, which holds the poller lock)."""
    fetcher = make_fetcher(settings)
    application = build_application(settings, engine, fetcher)
    try:
        async with application:
            svc: Shared = application.bot_data[KEY]
            assert svc.deliverer is not None
            return await svc.deliverer.deliver_due()
    finally:
        await fetcher.aclose()
