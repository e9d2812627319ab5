"""The running bot: PTB application, handlers, the poll job and the delivery loop.

`run` = Telegram long polling + feed polling + delivery; `worker` = the last two only.
Start-up work happens in `post_init` (menu via setMyCommands, background loops), and shutdown
lets the message in flight finish before the process exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine
from telegram import Bot, BotCommand, Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import metrics
from bot.config import Settings, SettingsError
from bot.db import store
from bot.db.engine import transaction
from bot.delivery import Deliverer
from bot.digests import run_digests
from bot.fetch import Fetcher
from bot.i18n import DEFAULT as DEFAULT_LANGUAGE
from bot.i18n import LANGUAGES, translator
from bot.pipeline import Poller
from bot.runlock import acquire_poller_lock
from bot.runtime import make_fetcher, open_database, worker_identity
from bot.telegram import buttons, handlers, texts
from bot.telegram.guard import ChatOrderedProcessor, Guard
from bot.telegram.services import KEY, Services

log = logging.getLogger(__name__)
SHUTDOWN_GRACE_SECONDS = 8.0
DELIVERY_IDLE_SECONDS = 2.0


def poll_tick_seconds(interval: int) -> float:
    """How often to look for due feeds: often enough that per-feed schedules are kept."""
    return float(min(30, max(1, interval // 5)))


def group_bucket(per_minute: float) -> tuple[float, float]:
    """(burst, period) of a leaky bucket that never lets more than `per_minute` messages into
    any 60-second window, as Telegram counts them: a bucket of size B refilled at B per P
    seconds admits B + 60·B/P messages per minute; half as burst, the rest spread with 5% slack.
    """
    burst = max(1.0, per_minute // 2)
    refill = max(per_minute - burst, 1.0)
    return burst, 60.0 * burst / refill * 1.05


def file_base_url(api_base_url: str) -> str:
    """`https://api.telegram.org/bot` → `https://api.telegram.org/file/bot` (the same for a
    self-hosted Bot API server)."""
    head, _, tail = api_base_url.rstrip("/").rpartition("/")
    return f"{head}/file/{tail}"


def build_application(
    settings: Settings, engine: Engine, fetcher: Fetcher
) -> Application[Any, Any, Any, Any, Any, Any]:
    # aiolimiter lets a full period's worth through at once; a tenth-of-a-second period keeps
    # bursts small, so no one-second window ever sees much more than the configured rate.
    period = 0.1 if settings.telegram_rate_per_second >= 10 else 1.0
    group_burst, group_period = group_bucket(settings.telegram_group_rate_per_minute)
    limiter: AIORateLimiter = AIORateLimiter(
        overall_max_rate=settings.telegram_rate_per_second * period,
        overall_time_period=period,
        group_max_rate=group_burst,
        group_time_period=group_period,
        max_retries=0,  # RetryAfter reaches the delivery loop, which waits and retries
    )
    application = (
        ApplicationBuilder()
        .token(settings.token)
        .base_url(settings.telegram_api_base_url)
        .base_file_url(file_base_url(settings.telegram_api_base_url))
        .rate_limiter(limiter)
        .post_init(startup)
        .post_stop(_post_stop)
        .concurrent_updates(ChatOrderedProcessor())
        .build()
    )
    owner = worker_identity()
    poller = Poller(engine, fetcher, settings, owner=owner)
    svc = Services(
        settings=settings,
        engine=engine,
        poller=poller,
        guard=Guard(commands_per_minute=settings.commands_per_minute),
    )
    svc.deliverer = Deliverer(
        engine,
        application.bot,
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
    commands = {
        "start": handlers.cmd_help,
        "help": handlers.cmd_help,
        "feeds": handlers.cmd_feeds,
        "subscribe": handlers.cmd_subscribe,
        "unsubscribe": handlers.cmd_unsubscribe,
        "list": handlers.cmd_list,
        "categories": handlers.cmd_categories,
        "filter": handlers.cmd_filter,
        "keywords": handlers.cmd_keywords,
        "edits": handlers.cmd_edits,
        "preview": handlers.cmd_preview,
        "pause": handlers.cmd_pause,
        "resume": handlers.cmd_resume,
        "export": handlers.cmd_export,
        "digest": handlers.cmd_digest,
        "timezone": handlers.cmd_timezone,
        "language": handlers.cmd_language,
        "addfeed": handlers.cmd_addfeed,
        "removefeed": handlers.cmd_removefeed,
    }
    application.add_handler(TypeHandler(Update, handlers.throttle), group=-1)
    for name, callback in commands.items():
        application.add_handler(CommandHandler(name, callback))
    application.add_handler(
        ChatMemberHandler(handlers.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handlers.on_migrate))
    application.add_handler(CallbackQueryHandler(buttons.on_button))
    application.add_handler(
        MessageHandler(filters.Document.ALL & filters.ChatType.PRIVATE, handlers.on_document)
    )
    application.add_error_handler(handlers.on_error)


async def startup(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """post_init: register the command menu, then start polling feeds and delivering."""
    await register_commands(application.bot)
    start_background(application)


async def register_commands(bot: Bot) -> None:
    """The command menu, once by default (English) and once per translated client language."""
    for language in LANGUAGES:
        tr = translator(language)
        commands = [BotCommand(name, tr.gettext(about)) for name, about in texts.COMMANDS]
        code = None if language == DEFAULT_LANGUAGE else language
        await bot.set_my_commands(commands, language_code=code)


def start_background(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    svc: Services = application.bot_data[KEY]
    svc.tasks.append(asyncio.create_task(_poll_loop(svc), name="feedwatch-poll"))
    svc.tasks.append(asyncio.create_task(_delivery_loop(svc), name="feedwatch-deliver"))


async def _post_stop(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    await stop_background(application.bot_data[KEY])


async def stop_background(svc: Services) -> None:
    """Let the message in flight finish, then stop the loops (bounded by the grace period)."""
    if svc.deliverer is not None:
        svc.deliverer.stopping = True
    svc.wake.set()
    for job in list(svc.jobs):  # an import stops between feeds; those added so far stay
        job.cancel()
    poll_task = next((t for t in svc.tasks if t.get_name() == "feedwatch-poll"), None)
    if poll_task is not None:
        poll_task.cancel()
    if svc.tasks:  # none when startup failed before the loops began
        done, pending = await asyncio.wait(svc.tasks, timeout=SHUTDOWN_GRACE_SECONDS)
        for task in pending:
            task.cancel()
        for task in (*done, *pending):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        svc.tasks.clear()
    await svc.poller.fetcher.aclose()


async def _poll_loop(svc: Services) -> None:
    tick = poll_tick_seconds(svc.settings.poll_interval_seconds)
    while True:
        try:
            report = await svc.poller.poll_due()
            digests = await asyncio.to_thread(run_digests, svc.engine)
            if report.new or report.edited or digests:
                svc.wake.set()
        except Exception:  # keep polling whatever happened in one cycle
            log.exception("poll cycle failed")
        await asyncio.sleep(tick)


async def _delivery_loop(svc: Services) -> None:
    """Deliver, then sleep until something is due. While rounds fail (the database refuses
    writes) the loop backs off exponentially and logs one line per step, one traceback in all."""
    assert svc.deliverer is not None
    deliverer = svc.deliverer
    failures = 0
    while not deliverer.stopping:
        try:
            await deliverer.deliver_due()
            idle = await _idle_seconds(svc)
        except Exception as exc:
            failures += 1
            idle = failure_backoff(failures)
            if failures == 1:
                log.exception("delivery round failed; retrying in %.1f s", idle)
            else:
                reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                log.error("delivery round failed again (%s); retrying in %.1f s", reason, idle)
        else:
            if failures:
                log.info("delivery recovered after %d failed rounds", failures)
            failures = 0
        await _pause(svc, idle, wakeable=failures == 0)


async def _pause(svc: Services, seconds: float, *, wakeable: bool) -> None:
    """Sleep `seconds`; new work (`wake`) cuts it short unless we are backing off; a stop
    request always does."""
    assert svc.deliverer is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not svc.deliverer.stopping and (remaining := deadline - loop.time()) > 0:
        svc.wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(svc.wake.wait(), timeout=remaining)
        if wakeable:
            return


def failure_backoff(failures: int) -> float:
    """0.5 s, 1 s, 2 s … at most a minute between rounds that keep failing."""
    return float(min(0.5 * 2 ** (failures - 1), 60.0))


async def _idle_seconds(svc: Services) -> float:
    """Sleep until the next retry is due, but never longer than the idle period."""
    metrics.PENDING.set(await svc.read(store.pending_count))
    due = await svc.read(store.next_due_delivery)
    if due is None:
        return DELIVERY_IDLE_SECONDS
    wait = (due - datetime.now(UTC)).total_seconds()
    return min(max(wait, 0.05), DELIVERY_IDLE_SECONDS)


async def check_telegram(settings: Settings) -> None:
    """Fail at start with one line when the token is refused or the Bot API is unreachable
    (PTB would log a traceback for each), never showing the token itself."""
    try:
        async with Bot(settings.token, base_url=settings.telegram_api_base_url):
            return
    except InvalidToken:
        raise SettingsError(
            "TELEGRAM_BOT_TOKEN was rejected by Telegram: check it with @BotFather"
        ) from None
    except NetworkError as exc:
        raise SettingsError(
            f"cannot reach the Telegram Bot API at {settings.telegram_api_base_url}: {exc.message}"
        ) from None


def run_bot(settings: Settings, *, updates: bool = True, webhook: bool = False) -> int:
    """`python -m bot run` / `worker`."""
    settings.token  # noqa: B018 - fail early, one line, when the token is missing
    if webhook and (not settings.webhook_url or settings.webhook_secret is None):
        raise SettingsError("--webhook needs WEBHOOK_URL and WEBHOOK_SECRET")
    asyncio.run(check_telegram(settings))
    lock = acquire_poller_lock(settings.database_url)
    engine = open_database(settings)
    if lock.exclusive:  # the only poller: leases left by a killed predecessor can go at once
        with transaction(engine) as session:
            store.release_leases(session)
    fetcher = make_fetcher(settings)
    application = build_application(settings, engine, fetcher)
    if settings.metrics_port:
        metrics.serve(settings.metrics_port)
    stop_signals = (signal.SIGINT, signal.SIGTERM)
    if updates and webhook:
        assert settings.webhook_url and settings.webhook_secret
        log.info(
            "feedwatch starting: webhook on %s:%s", settings.webhook_listen, settings.webhook_port
        )
        application.run_webhook(
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            url_path=urlsplit(settings.webhook_url).path.lstrip("/"),
            webhook_url=settings.webhook_url,
            secret_token=settings.webhook_secret.get_secret_value(),
            allowed_updates=Update.ALL_TYPES,
            stop_signals=stop_signals,
        )
        return 0
    if updates:
        log.info(
            "feedwatch starting: long polling, feeds every %s s", settings.poll_interval_seconds
        )
        application.run_polling(allowed_updates=Update.ALL_TYPES, stop_signals=stop_signals)
        return 0
    return asyncio.run(_run_worker(application))


async def _run_worker(application: Application[Any, Any, Any, Any, Any, Any]) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("feedwatch worker starting (no Telegram updates)")
    async with application:
        start_background(application)
        await stop.wait()
        await stop_background(application.bot_data[KEY])
    return 0


async def deliver_once(settings: Settings, engine: Engine) -> int:
    """Send what is due now and return (for `poll --once`, which holds the poller lock)."""
    fetcher = make_fetcher(settings)
    application = build_application(settings, engine, fetcher)
    try:
        async with application:
            svc: Services = application.bot_data[KEY]
            assert svc.deliverer is not None
            return await svc.deliverer.deliver_due()
    finally:
        await fetcher.aclose()
