"""Running and stopping a process: `run` (Telegram updates + loops), `worker` (loops only).

A stop request (SIGTERM from `docker stop`, which waits 10 s) always ends the process in time:
each shutdown step has its own bound, and a watchdog ends the process at the deadline whatever
the network does. PTB's own `run_polling` can sleep up to 30 s between failed polls before it
notices a stop, so the updater is driven here. A Telegram outage is one line per retry step
and one when Telegram answers again, not a traceback per failed poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Awaitable
from typing import Any
from urllib.parse import urlsplit

from telegram import Bot, Update
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import Application
from telegram.request import HTTPXRequest

from bot.db import store
from bot.db.engine import transaction
from bot.db.runlock import acquire_poller_lock
from bot.runtime import eventloop, metrics
from bot.runtime.config import Settings, SettingsError
from bot.services.polling import preload
from bot.services.wiring import make_fetcher, open_database, settle_heap
from bot.telegram.app import build_application, startup
from bot.telegram.hookserver import connection_cap
from bot.telegram.shared import KEY
from bot.telegram.webhook import WebhookServer

log = logging.getLogger(__name__)
STOP_DEADLINE_SECONDS = 9.0  # docker stop sends SIGKILL after 10 s
STEP_SECONDS = {"updater": 2.0, "application": 2.0, "loops": 5.0, "shutdown": 1.5}


class TelegramOutage:
    """Logs a getUpdates outage once per retry step and once when Telegram answers again."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.failures = 0

    def failed(self, exc: TelegramError) -> None:
        """PTB's `error_callback`: called once per failed poll, i.e. once per backoff step."""
        self.failures += 1
        if self.since is None:
            self.since = time.monotonic()
            log.warning("Telegram is unreachable (%s); retrying with backoff", exc)
        else:
            waited = time.monotonic() - self.since
            log.warning("Telegram still unreachable after %.0f s (%s)", waited, exc)

    def answered(self) -> None:
        if self.since is not None:
            waited = time.monotonic() - self.since
            log.info("Telegram answers again after %.0f s (%d failed polls)", waited, self.failures)
            self.since, self.failures = None, 0


class WatchedRequest(HTTPXRequest):
    """The getUpdates connection, telling the outage tracker when Telegram answers again."""

    def __init__(self, outage: TelegramOutage) -> None:
        super().__init__(connection_pool_size=1)
        self.outage = outage

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        status, payload = await super().do_request(*args, **kwargs)
        if status == 200:
            self.outage.answered()
        return status, payload


def arm_watchdog(seconds: float = STOP_DEADLINE_SECONDS) -> threading.Timer:
    """Last resort: end the process at the deadline. Delivery is crash-safe (at most the
    message in flight is sent twice), so this costs no more than a SIGKILL would."""

    def expire() -> None:
        log.error("stopping took longer than %.0f s; exiting now", seconds)
        logging.shutdown()
        os._exit(0)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    return timer


async def bounded(step: str, work: Awaitable[Any]) -> None:
    """One shutdown step, given up (and logged) when it outlasts its share of the deadline."""
    try:
        await asyncio.wait_for(work, timeout=STEP_SECONDS[step])
    except TimeoutError:
        log.warning("shutdown: %s did not stop within %.0f s; going on", step, STEP_SECONDS[step])
    except Exception as exc:
        log.warning("shutdown: %s failed: %s", step, exc)


def stop_requested() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM (installed on the running loop)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


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
    """`python -m bot run` (`--webhook`) and `python -m bot worker`."""
    settings.token  # noqa: B018 - fail early, one line, when the token is missing
    if webhook and (not settings.webhook_url or settings.webhook_secret is None):
        raise SettingsError("--webhook needs WEBHOOK_URL and WEBHOOK_SECRET")
    eventloop.run(check_telegram(settings), settings.event_loop)
    lock = acquire_poller_lock(settings.database_url)
    engine = open_database(settings)
    if lock.exclusive:  # the only poller: leases left by a killed predecessor can go at once
        with transaction(engine) as session:
            store.release_leases(session)
    outage = TelegramOutage()
    polling = updates and not webhook
    application = build_application(
        settings,
        engine,
        make_fetcher(settings),
        get_updates_request=WatchedRequest(outage) if polling else None,
    )
    if settings.metrics_port:
        metrics.serve(settings.metrics_port, settings.metrics_listen)
    preload()
    settle_heap()
    return eventloop.run(
        serve(application, settings, updates=updates, webhook=webhook, outage=outage),
        settings.event_loop,
    )


async def serve(
    application: Application[Any, Any, Any, Any, Any, Any],
    settings: Settings,
    *,
    updates: bool,
    webhook: bool,
    outage: TelegramOutage,
) -> int:
    """Start, run until SIGINT/SIGTERM, stop within the deadline. Exit status 0 either way."""
    stop = stop_requested()
    try:
        if await first_or_stop(_start(application, settings, updates, webhook, outage), stop):
            await stop.wait()
    finally:
        watchdog = arm_watchdog()
        updater = application.updater
        if updater is not None and updater.running:
            await bounded("updater", updater.stop())
        hook = application.bot_data[KEY].webhook
        if hook is not None:
            await bounded("webhook", hook.close())
        if application.running:
            await bounded("application", application.stop())
        await bounded("loops", application.bot_data[KEY].stop())
        await bounded("shutdown", application.shutdown())
        watchdog.cancel()
    return 0


async def _start(
    application: Application[Any, Any, Any, Any, Any, Any],
    settings: Settings,
    updates: bool,
    webhook: bool,
    outage: TelegramOutage,
) -> None:
    await application.initialize()
    if not updates:
        log.info("feedwatch worker starting (no Telegram updates, %s)", eventloop.running())
        application.bot_data[KEY].start_loops()
        return
    await startup(application)  # the command menu, then the loops
    assert application.updater is not None
    if webhook:
        assert settings.webhook_url and settings.webhook_secret
        cap = connection_cap(settings.webhook_max_connections)
        log.info(
            "feedwatch starting: webhook on %s:%s, at most %d connections (%s)",
            settings.webhook_listen,
            settings.webhook_port,
            cap,
            eventloop.running(),
        )
        secret = settings.webhook_secret.get_secret_value()
        hook = WebhookServer(
            urlsplit(settings.webhook_url).path,
            application.bot,
            application.update_queue,
            secret,
            cap,
        )
        hook.listen(settings.webhook_listen, settings.webhook_port)
        application.bot_data[KEY].webhook = hook
        await application.bot.set_webhook(
            settings.webhook_url,
            secret_token=secret,
            allowed_updates=Update.ALL_TYPES,
            max_connections=min(cap, 100),  # Telegram's own range is 1-100
        )
    else:
        log.info(
            "feedwatch starting: long polling, feeds every %s s (%s)",
            settings.poll_interval_seconds,
            eventloop.running(),
        )
        await application.updater.start_polling(
            allowed_updates=Update.ALL_TYPES, error_callback=outage.failed
        )
    await application.start()


async def first_or_stop(work: Awaitable[None], stop: asyncio.Event) -> bool:
    """Run `work` unless a stop request comes first (start-up can hang on a dead network)."""
    task = asyncio.ensure_future(work)
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    stopper.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        return False
    task.result()
    return True
