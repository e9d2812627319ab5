"""The steady poll schedule: due feeds claimed in small batches on a short tick, most overdue
first, so polls spread over the interval instead of arriving in bursts.

Why not cycles: a cycle that claims everything due, polls it all, then sleeps, polls in bursts.
At 100,000 feeds every 5 minutes the rate swung between 0 and 600 polls/s, the most overdue feed
waited 30-40 s, and after a cold start one giant cycle ran past its own leases. Here at most
`capacity` polls are in flight (waiting on the fetch gate included); whenever half of them have
finished, and on every tick, the scheduler claims as many due feeds as there is room for and
the pace allows (`core/polls/pacing.py`: a backlog at a little above the due rate, holes filled with
feeds due shortly), oldest first. Quiet polls (304, the same body) are written in one batch
per tick.
Several workers share the load through the same leases: each claims only what it can start now.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.core.polls.decide import FeedState, PollKind
from bot.core.polls.pacing import Pace, due_rate, lookahead_seconds
from bot.core.types import ChangeKind
from bot.db import store
from bot.db.reserve import disk_full
from bot.services import run
from bot.services.outcome import PollOutcome
from bot.services.polling import Poller
from bot.services.quiet_polls import QuietPoll

log = logging.getLogger("bot.services.polling")
TICK_SECONDS = 1.0


def capacity_for(concurrency: int) -> int:
    """Polls in flight: enough queued behind the fetch gate that it never idles between claims
    (four per slot), few enough that a claim's lease is never close to running out."""
    return max(20, 4 * concurrency)


async def claim_paced(poller: Poller, pace: Pace, room: int) -> tuple[list[FeedState], bool]:
    """Due feeds, as many as the room and the pace allow; then, if that left nothing due
    behind and the due rate is owed polls, feeds due within the lookahead. Returns the feeds
    and whether due ones may remain."""
    allowed = pace.due_allowance(room)
    feeds = await asyncio.to_thread(poller.claim, limit=allowed)
    pace.took_due(len(feeds))
    behind = len(feeds) == allowed
    ahead = pace.ahead_allowance(room - len(feeds)) if not behind else 0
    if ahead > 0:
        seconds = lookahead_seconds(poller.settings.poll_interval_seconds)
        early = await asyncio.to_thread(poller.claim, limit=ahead, ahead=seconds)
        pace.took_ahead(len(early))
        feeds += early
    return feeds, behind


def late(now: datetime, due: datetime) -> float:
    """Seconds past due (SQLite hands back naive UTC, PostgreSQL aware)."""
    return (now - (due if due.tzinfo else due.replace(tzinfo=UTC))).total_seconds()


@dataclass
class Window:
    """What the scheduler did since it last reported: one log line per housekeeping period
    (counters, not outcomes: hundreds of polls a second would pile up)."""

    kinds: Counter[PollKind] = field(default_factory=Counter)
    new: int = 0
    edited: int = 0
    worst_delay: float = 0.0
    started: float = field(default_factory=time.monotonic)

    def add(self, outcome: PollOutcome) -> None:
        self.kinds[outcome.outcome] += 1
        for change in outcome.changes:
            if change.kind is ChangeKind.NEW:
                self.new += 1
            elif change.kind is ChangeKind.EDITED:
                self.edited += 1

    @property
    def polls(self) -> int:
        return sum(self.kinds.values())

    def line(self) -> str:
        seconds = max(time.monotonic() - self.started, 1e-9)
        errors = self.kinds[PollKind.ERROR] + self.kinds[PollKind.GONE]
        feeds = "1 feed" if self.polls == 1 else f"{self.polls} feeds"
        return (
            f"polling: {feeds} in {seconds:.0f} s ({self.polls / seconds:.1f}/s), "
            f"{self.kinds[PollKind.NOT_MODIFIED]} not modified, "
            f"{self.kinds[PollKind.UNCHANGED]} unchanged, {self.new} new, {self.edited} "
            f"edited, {errors} errors; most overdue {self.worst_delay:.1f} s late"
        )


@dataclass
class Scheduler:
    """Claims, starts and records polls steadily; `run` until cancelled."""

    poller: Poller
    on_changes: Callable[[], None] = lambda: None  # new or edited posts are queued
    tick: float = TICK_SECONDS
    capacity: int = 0  # 0: `capacity_for(poll_concurrency)`
    _in_flight: set[asyncio.Task[PollOutcome]] = field(default_factory=set)
    _quiet: list[QuietPoll] = field(default_factory=list)
    _room: asyncio.Event = field(default_factory=asyncio.Event)
    _backlog: bool = False  # the last claim filled the room: claim again once half is free
    _behind: bool = False
    _grown_at: float = field(default_factory=time.monotonic)
    _flushed_at: float = field(default_factory=time.monotonic)
    pace: Pace | None = None
    _gate: asyncio.Semaphore | None = None
    window: Window = field(default_factory=Window)

    def __post_init__(self) -> None:
        concurrency = self.poller.settings.poll_concurrency
        self.capacity = self.capacity or capacity_for(concurrency)
        self._gate = asyncio.Semaphore(concurrency)

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def behind(self) -> bool:
        """The last claim took all it was allowed: more feeds may be due than are polled."""
        return self._behind

    async def run(self) -> None:
        try:
            while True:
                await self.step()
                await self.wait()
        finally:
            await self.drain(cancel=True)

    async def refresh_pace(self) -> None:
        """The due rate, from the feeds due within the next interval and the workers sharing
        them (at start, then every housekeeping period)."""
        interval = self.poller.settings.poll_interval_seconds
        now = self.poller.clock()
        due, workers = await run.read(
            self.poller.engine,
            lambda s: store.pacing_counts(s, now=now, horizon=now + timedelta(seconds=interval)),
        )
        if self.pace is None:
            self.pace = Pace(due_rate(due, interval, workers), burst=self.capacity)
        else:
            self.pace.rate = due_rate(due, interval, workers)

    async def step(self) -> int:
        """Write the quiet polls so far, then claim and start as many due feeds as there is
        room for and the pace allows (`core/polls/pacing.py`); in a hole in the schedule, feeds due
        shortly. Returns how many were claimed."""
        await self.flush(now=False)
        if self.pace is None:
            await self.refresh_pace()
        assert self.pace is not None
        clock = time.monotonic()
        self.pace.grow(clock - self._grown_at)
        self._grown_at = clock
        room = self.capacity - len(self._in_flight)
        if self.pace.due_allowance(room) <= 0:
            return 0
        feeds, self._behind = await claim_paced(self.poller, self.pace, room)
        # The room, not the pace, held the claim back (due feeds, or early ones filling a
        # hole): claim again as soon as half of it is free, not a tick later.
        self._backlog = len(feeds) == room
        now = self.poller.clock()
        for feed in feeds:
            if feed.due_at is not None:
                self.window.worst_delay = max(self.window.worst_delay, late(now, feed.due_at))
            task = asyncio.create_task(self._poll(feed), name=f"poll {feed.slug}"[:60])
            self._in_flight.add(task)
            task.add_done_callback(self._finished)
        return len(feeds)

    async def wait(self) -> None:
        """Until the next tick, or sooner once half the room is free while feeds wait."""
        self._room.clear()
        if self._backlog and len(self._in_flight) <= self.capacity // 2:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._room.wait(), timeout=self.tick)

    async def flush(self, *, now: bool = True) -> None:
        """Write the quiet polls gathered so far in one transaction; with `now=False` only
        once a tick has passed or a capacity's worth is waiting (fewer, larger writes). The
        search rows of the polls committed meanwhile go with them (`indexing.py`)."""
        if not self._quiet and not self.poller.indexer.pending:
            return
        waited = time.monotonic() - self._flushed_at
        if not now and waited < self.tick and len(self._quiet) < self.capacity:
            return
        batch, self._quiet = self._quiet, []
        self._flushed_at = time.monotonic()
        await asyncio.to_thread(self.poller.record_quiet, batch)

    async def drain(self, *, cancel: bool = False) -> None:
        """Wait for (or cancel) the polls in flight, then write their quiet results: a stop
        keeps what was polled (a cancelled poll's feed is polled again when its lease ends)."""
        if cancel:
            for task in self._in_flight:
                task.cancel()
        if self._in_flight:
            await asyncio.gather(*self._in_flight, return_exceptions=True)
        if self._quiet or self.poller.indexer.pending:
            batch, self._quiet = self._quiet, []
            try:  # on a stop this runs while cancelled: a plain call, not a thread
                self.poller.record_quiet(batch)
            except Exception as exc:
                if not disk_full(exc):
                    log.exception("quiet polls: could not write %d on the way out", len(batch))

    def take_window(self) -> Window:
        window, self.window = self.window, Window()
        return window

    async def _poll(self, feed: FeedState) -> PollOutcome:
        assert self._gate is not None
        async with self._gate:
            return await self.poller.poll_one(feed, self._quiet)

    def _finished(self, task: asyncio.Task[PollOutcome]) -> None:
        self._in_flight.discard(task)
        if self._backlog and len(self._in_flight) <= self.capacity // 2:
            self._room.set()
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:  # `poll_one` keeps one feed's faults its own; this is a bug
            log.error("poll task failed", exc_info=exc)
            return
        outcome = task.result()
        self.window.add(outcome)
        if outcome.changes:
            self.on_changes()
