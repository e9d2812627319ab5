"""How many feeds the scheduler may claim now: the pace that keeps polls smooth.

Why a pace at all: a feed's next check counts from its own poll, so however a worker polls in
one interval, the feeds come due the same way in the next. A cold start that polls its backlog
as fast as it can leaves a burst followed by a hole, and the pattern repeats every interval. So
the backlog is worked through at a little above the due rate (`CATCH_UP` times it: all caught
up within one interval, never a burst), and when fewer feeds are due than the due rate asks
for (a hole), the next ones due within `LOOKAHEAD_SHARE` of the interval are polled a little
early (4%: no feed is fetched twice within 95% of its interval). Constant-rate
polls make constant-rate due times: the schedule heals itself. Small deployments are not held
back: a claim may always fill the in-flight capacity (a few dozen feeds are polled at once),
and below `MIN_AHEAD_RATE` no feed is ever polled early.
"""

from __future__ import annotations

from dataclasses import dataclass

CATCH_UP = 1.06  # the backlog's pace against the due rate: caught up in 0.94 of an interval
FLOOR_PER_SECOND = 10.0  # a backlog is never worked through slower than this
LOOKAHEAD_SHARE = 0.04  # a hole is filled with feeds due within this share of the interval
MAX_LOOKAHEAD_SECONDS = 30.0  # (10% made a feed polled every 3 s come 0.16 s early)
OWED_SECONDS = 1.0  # a hole is owed at most this many seconds of the due rate
MIN_AHEAD_RATE = 10.0  # below this due rate holes cost nothing: no feed is polled early


def due_rate(due_within_interval: int, interval_seconds: float, workers: int) -> float:
    """Feeds per second this worker should poll: those due within the next interval (overdue
    ones included) spread over it, shared by the workers polling the same database."""
    return due_within_interval / max(interval_seconds, 1.0) / max(workers, 1)


def lookahead_seconds(interval_seconds: float) -> float:
    return min(interval_seconds * LOOKAHEAD_SHARE, MAX_LOOKAHEAD_SECONDS)


@dataclass
class Pace:
    """Two allowances that grow with time: `tokens` for due feeds (at the catch-up pace, with a
    burst of `burst`), and `owed`, what the due rate asked for that due feeds did not use."""

    rate: float  # the due rate (feeds per second), from `due_rate`
    burst: int  # claims never need to be smaller than this (the scheduler's capacity)
    tokens: float = 0.0
    owed: float = 0.0

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    @property
    def catch_up_rate(self) -> float:
        return max(FLOOR_PER_SECOND, CATCH_UP * self.rate)

    def grow(self, elapsed: float) -> None:
        """Time passed: both allowances grow, each to its cap."""
        elapsed = max(elapsed, 0.0)
        cap = max(float(self.burst), 2 * self.catch_up_rate)
        self.tokens = min(self.tokens + self.catch_up_rate * elapsed, cap)
        if self.rate >= MIN_AHEAD_RATE:
            self.owed = min(self.owed + self.rate * elapsed, self.rate * OWED_SECONDS)

    def due_allowance(self, room: int) -> int:
        """How many due feeds may be claimed now (at most `room`)."""
        return max(0, min(room, int(self.tokens)))

    def took_due(self, count: int) -> None:
        self.tokens -= count
        self.owed = max(0.0, self.owed - count)

    def ahead_allowance(self, room: int) -> int:
        """How many feeds not yet due may be claimed now, to fill a hole (at most `room`)."""
        return max(0, min(room, int(self.owed), int(self.tokens)))

    def took_ahead(self, count: int) -> None:
        self.tokens -= count
        self.owed -= count
