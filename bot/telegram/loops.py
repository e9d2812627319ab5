"""The two background loops every process runs: poll feeds, deliver the outbox.

Both survive any one failure: a failed poll cycle is logged and the next tick runs; a failed
delivery round backs off exponentially (one line per step) until the database answers again.
Stopping lets the message in flight finish, within a grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from telegram.ext import Application

from bot import metrics
from bot.db import store
from bot.db.reserve import disk_full
from bot.services.digests import run_digests
from bot.services.quiet import release_quiet
from bot.telegram.services import KEY, Services

log = logging.getLogger(__name__)
SHUTDOWN_GRACE_SECONDS = 5.0
DELIVERY_IDLE_SECONDS = 2.0


def poll_tick_seconds(interval: int) -> float:
    """How often to look for due feeds: often enough that per-feed schedules are kept."""
    return float(min(30, max(1, interval // 5)))


def start_background(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    svc: Services = application.bot_data[KEY]
    svc.tasks.append(asyncio.create_task(_poll_loop(svc), name="feedwatch-poll"))
    svc.tasks.append(asyncio.create_task(_delivery_loop(svc), name="feedwatch-deliver"))


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
    await svc.poller.full_text.cancel()  # pages still coming: their posts keep the excerpt
    await svc.poller.models.aclose()
    await svc.poller.fetcher.aclose()


async def _poll_loop(svc: Services) -> None:
    tick = poll_tick_seconds(svc.settings.poll_interval_seconds)
    full = False  # the disk is full: said once, and once more when space returns
    while True:
        try:
            report = await svc.poller.poll_due()
            digests = await asyncio.to_thread(run_digests, svc.engine)
            digests += await asyncio.to_thread(release_quiet, svc.engine)
            if report.new or report.edited or digests:
                svc.wake.set()
            if full:
                log.warning("the database accepts writes again: polling resumed")
                full = False
        except Exception as exc:  # keep polling whatever happened in one cycle
            if not disk_full(exc):
                log.exception("poll cycle failed")
            elif not full:
                full = True
                log.error("the database's disk is full: polling waits until space returns")
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
    wait = (due - svc.clock()).total_seconds()
    return min(max(wait, 0.05), DELIVERY_IDLE_SECONDS)
