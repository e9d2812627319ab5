"""The two background loops every process runs: poll feeds, deliver the outbox.

Polling is the steady scheduler (`scheduler.py`). Both survive any one failure: a failed
poll step is logged and the loop carries on a housekeeping period later; a failed
delivery round backs off exponentially (one line per step) until the database answers again.
Stopping lets the message in flight finish, within a grace period. The app starts and stops
them (`bot/telegram/lifecycle.py`); nothing here knows about Telegram.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from bot.core.rules.leaving import Keeping
from bot.db import store
from bot.db.reserve import disk_full, keep_reserve
from bot.runtime import metrics
from bot.runtime.clock import Clock, utcnow
from bot.services.delivery import Deliverer
from bot.services.digests import run_digests
from bot.services.leaving import forget_left
from bot.services.polling import Poller
from bot.services.quiet import release_quiet
from bot.services.ranked import run_ranked_digests
from bot.services.scheduler import Scheduler

log = logging.getLogger(__name__)
SHUTDOWN_GRACE_SECONDS = 5.0
DELIVERY_IDLE_SECONDS = 2.0
POLL_TASK = "feedwatch-poll"


def poll_tick_seconds(interval: int) -> float:
    """How often to do the poll loop's housekeeping (digests, quiet-hour releases, the health
    record, the log line): a fifth of the interval, between 1 and 30 s. Due feeds are looked
    for much more often (`scheduler.TICK_SECONDS`)."""
    return float(min(30, max(1, interval // 5)))


def failure_backoff(failures: int) -> float:
    """0.5 s, 1 s, 2 s … at most a minute between rounds that keep failing."""
    return float(min(0.5 * 2 ** (failures - 1), 60.0))


@dataclass
class Loops:
    poller: Poller
    deliverer: Deliverer
    clock: Clock = utcnow
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # new messages are queued
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    scheduler: Scheduler | None = None  # set when the poll loop starts
    watching: asyncio.Task[None] | None = None  # followed pages and withdrawal checks

    def start(self) -> None:
        self.tasks.append(asyncio.create_task(self._poll_loop(), name=POLL_TASK))
        self.tasks.append(asyncio.create_task(self._delivery_loop(), name="feedwatch-deliver"))

    async def stop(self) -> None:
        """Let the message in flight finish, then stop the loops (bounded by the grace
        period); a poll cycle is cancelled at once (its feeds are polled again later)."""
        self.deliverer.stopping = True
        self.wake.set()
        for task in self.tasks:
            if task.get_name() == POLL_TASK:
                task.cancel()
        if self.watching is not None:
            self.watching.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.watching
        if self.tasks:  # none when startup failed before the loops began
            done, pending = await asyncio.wait(self.tasks, timeout=SHUTDOWN_GRACE_SECONDS)
            for task in pending:
                task.cancel()
            for task in (*done, *pending):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self.tasks.clear()

    async def _poll_loop(self) -> None:
        """The steady scheduler (`scheduler.py`) steps on its short tick; every housekeeping
        period the loop also keeps the disk reserve, releases digests and quiet-hour holds,
        records that polling is alive, and logs what the period polled (one line)."""
        scheduler = self.scheduler = Scheduler(self.poller, on_changes=self.wake.set)
        period = poll_tick_seconds(self.poller.settings.poll_interval_seconds)
        loop = asyncio.get_running_loop()
        housekeeping_at = loop.time()
        full = False  # the disk is full: said once, and once more when space returns
        try:
            while True:
                try:
                    if loop.time() >= housekeeping_at:
                        housekeeping_at = loop.time() + period
                        await self._housekeeping(scheduler)
                    await scheduler.step()
                    if full:
                        log.warning("the database accepts writes again: polling resumed")
                        full = False
                except Exception as exc:  # keep polling whatever happened in one step
                    if not disk_full(exc):
                        log.exception("poll cycle failed")
                    elif not full:
                        full = True
                        log.error("the database's disk is full: polling waits until space returns")
                    await asyncio.sleep(period)  # one line per period while it keeps failing
                    continue
                await scheduler.wait()
        finally:
            await scheduler.drain(cancel=True)

    async def _housekeeping(self, scheduler: Scheduler) -> None:
        engine = self.poller.engine
        await asyncio.to_thread(keep_reserve, engine)
        digests = await asyncio.to_thread(run_digests, engine)
        digests += await run_ranked_digests(engine, self.poller.enricher.models, self.clock)
        digests += await asyncio.to_thread(release_quiet, engine)
        settings = self.poller.settings
        keeping = Keeping(settings.unsubscribe_undo_minutes, settings.left_settings_days)
        if forgotten := await forget_left(engine, keeping, self.clock()):
            log.info("forgot %d subscriptions left over %d days ago", forgotten, keeping.keep_days)
        if digests:
            self.wake.set()
        await scheduler.refresh_pace()
        if self.watching is None or self.watching.done():  # pages read beside the polls
            self.watching = asyncio.create_task(self._watch(), name="feedwatch-watch")
        window = scheduler.take_window()
        if window.polls:
            log.info(window.line())
        if not scheduler.behind:  # what `health` reads: nothing was overdue at the last claim
            await scheduler.flush()
            await asyncio.to_thread(self.poller.record_quiet, [], caught_up=True)

    async def _watch(self) -> None:
        """Followed posts' pages and withdrawal checks (`watch.py`); messages wake delivery."""
        try:
            if await self.poller.watch.run():
                self.wake.set()
        except Exception:  # logged; tried again at the next housekeeping
            log.exception("followed pages and withdrawal checks failed")

    async def _delivery_loop(self) -> None:
        """Deliver, then sleep until something is due. While rounds fail (the database
        refuses writes) the loop backs off exponentially and logs one line per step, one
        traceback in all."""
        deliverer = self.deliverer
        failures = 0
        while not deliverer.stopping:
            try:
                await deliverer.deliver_due()
                idle = await asyncio.to_thread(self._idle_seconds)
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
            await self._pause(idle, wakeable=failures == 0)

    async def _pause(self, seconds: float, *, wakeable: bool) -> None:
        """Sleep `seconds`; new work (`wake`) cuts it short unless we are backing off; a
        stop request always does."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not self.deliverer.stopping and (remaining := deadline - loop.time()) > 0:
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=remaining)
            if wakeable:
                return

    def _idle_seconds(self) -> float:
        """Sleep until the next retry is due, but never longer than the idle period."""
        with Session(self.poller.engine) as session:
            metrics.PENDING.set(store.pending_count(session))
            due = store.next_due_delivery(session)
        if due is None:
            return DELIVERY_IDLE_SECONDS
        wait = (due - self.clock()).total_seconds()
        return min(max(wait, 0.05), DELIVERY_IDLE_SECONDS)
