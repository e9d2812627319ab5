"""The scheduler's pace (`core/polls/pacing.py`): a backlog is caught up within one interval without a
burst, the schedule it leaves heals into a steady rate, and small deployments are never held
back or polled early."""

from __future__ import annotations

import heapq

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.polls.pacing import (
    CATCH_UP,
    FLOOR_PER_SECOND,
    MIN_AHEAD_RATE,
    OWED_SECONDS,
    Pace,
    due_rate,
    lookahead_seconds,
)


def simulate(
    due: list[float], interval: float, seconds: int, room: int = 10**6
) -> tuple[list[int], list[tuple[int, float]], float]:
    """Step a pace once a second over feeds due at `due`; a polled feed is due again an
    interval later. Returns polls per second, each poll's lateness (negative: early) with its
    time, and when the first round (every feed polled once) finished."""
    heap = [(when, n) for n, when in enumerate(due)]
    heapq.heapify(heap)
    pace = Pace(due_rate(len(due), interval, 1), burst=40)
    per_second: list[int] = []
    lateness: list[tuple[int, float]] = []
    first_round: set[int] = set()
    caught_up = float("inf")
    ahead = lookahead_seconds(interval)
    for t in range(seconds):
        pace.grow(1.0)
        allowed = pace.due_allowance(room)
        polled: list[tuple[float, int]] = []
        while len(polled) < allowed and heap and heap[0][0] <= t:
            polled.append(heapq.heappop(heap))
        pace.took_due(len(polled))
        if len(polled) < allowed:
            extra = pace.ahead_allowance(room - len(polled))
            early: list[tuple[float, int]] = []
            while len(early) < extra and heap and heap[0][0] <= t + ahead:
                early.append(heapq.heappop(heap))
            pace.took_ahead(len(early))
            polled += early
        for when, n in polled:
            lateness.append((t, t - when))
            heapq.heappush(heap, (t + interval, n))
            first_round.add(n)
        if len(first_round) == len(due) and caught_up == float("inf"):
            caught_up = t
        per_second.append(len(polled))
    return per_second, lateness, caught_up


def windows(per_second: list[int], start: int, width: int = 30) -> list[float]:
    return [
        sum(per_second[s : s + width]) / width
        for s in range(start, len(per_second) - width + 1, width)
    ]


def test_a_cold_start_catches_up_within_one_interval_and_the_schedule_heals() -> None:
    """100,000 feeds every 300 s, all overdue at once (a restart after downtime): caught up in
    under an interval, never faster than the catch-up pace, and from the second interval on
    every 30-second window is within 10% of the due rate with no feed over 15 s late."""
    feeds, interval = 100_000, 300.0
    per_second, lateness, caught_up = simulate([-1.0] * feeds, interval, 1500)
    steady = feeds / interval
    assert caught_up < interval
    assert max(per_second[1:]) <= CATCH_UP * steady + 1  # no burst past the first claim
    rates = windows(per_second, start=int(interval))
    assert all(abs(rate - steady) <= 0.1 * steady for rate in rates), rates
    assert max(late for t, late in lateness if t >= interval) <= 15


def test_a_spread_schedule_is_kept_on_time() -> None:
    """Warm: feeds due evenly over the interval are polled when due, at the due rate."""
    feeds, interval = 30_000, 300.0
    due = [n * interval / feeds for n in range(feeds)]
    per_second, lateness, _ = simulate(due, interval, 900)
    steady = feeds / interval
    assert all(abs(rate - steady) <= 0.1 * steady for rate in windows(per_second, start=0))
    assert max(late for _, late in lateness) <= 1
    assert min(late for _, late in lateness) >= -lookahead_seconds(interval)


def test_a_small_deployment_is_polled_at_once_and_never_early() -> None:
    """30 feeds every 5 minutes are all polled at once (the burst); 300 are caught up within
    the interval, a burst first; below the ahead rate no feed is ever polled early."""
    per_second, lateness, caught_up = simulate([-1.0] * 30, 300.0, 900)
    assert per_second[0] == 30 and caught_up == 0
    per_second, lateness, caught_up = simulate([-1.0] * 300, 300.0, 900)
    assert per_second[0] == 40
    assert caught_up < 300
    assert min(late for _, late in lateness) >= 0
    assert Pace(rate=0.0, burst=1).catch_up_rate == FLOOR_PER_SECOND


def test_the_due_rate_is_shared_by_the_workers() -> None:
    assert due_rate(100_000, 300, 1) == pytest.approx(333.33, abs=0.01)
    assert due_rate(100_000, 300, 2) == pytest.approx(166.67, abs=0.01)
    assert due_rate(10, 0, 0) == 10.0  # nonsense inputs stay finite
    assert lookahead_seconds(300) == 12.0
    assert lookahead_seconds(60) == 2.4
    assert lookahead_seconds(3600) == 30.0
    assert lookahead_seconds(3) <= 0.05 * 3  # no feed is polled within 95% of its interval


def test_allowances_start_at_the_burst_and_grow_at_the_catch_up_pace() -> None:
    pace = Pace(rate=1000.0, burst=40)
    assert pace.due_allowance(room=100) == 40
    assert pace.due_allowance(room=10) == 10
    pace.took_due(40)
    assert pace.due_allowance(room=1000) == 0
    pace.grow(0.5)
    assert pace.due_allowance(room=1000) == int(0.5 * CATCH_UP * 1000)
    assert pace.ahead_allowance(room=1000) == 500  # half a second of the due rate, unused
    pace.took_due(500)
    assert pace.ahead_allowance(room=1000) == 0  # due feeds used it
    pace.grow(-5)  # a clock step backwards grows nothing
    assert pace.due_allowance(room=1000) == int(0.5 * CATCH_UP * 1000) - 500


def test_owed_grows_only_above_the_ahead_rate_and_is_capped() -> None:
    slow = Pace(rate=MIN_AHEAD_RATE - 0.1, burst=40)
    slow.grow(100)
    assert slow.ahead_allowance(room=1000) == 0
    fast = Pace(rate=MIN_AHEAD_RATE, burst=40)
    fast.grow(100)
    assert fast.ahead_allowance(room=1000) == int(MIN_AHEAD_RATE * OWED_SECONDS)
    fast.took_ahead(5)
    assert fast.ahead_allowance(room=1000) == int(MIN_AHEAD_RATE * OWED_SECONDS) - 5
    fast.took_due(100)
    assert fast.owed == 0


@given(
    rate=st.floats(min_value=0, max_value=5000),
    burst=st.integers(min_value=1, max_value=500),
    steps=st.lists(
        st.tuples(st.floats(min_value=0, max_value=3), st.integers(min_value=0, max_value=2000)),
        max_size=40,
    ),
)
def test_claims_never_outrun_the_pace(
    rate: float, burst: int, steps: list[tuple[float, int]]
) -> None:
    """Whatever the room and timing, what is claimed (due and early) stays within the burst
    plus the catch-up pace times the time passed, and never exceeds the room."""
    pace = Pace(rate=rate, burst=burst)
    claimed, elapsed = 0, 0.0
    for seconds, room in steps:
        pace.grow(seconds)
        elapsed += seconds
        due = pace.due_allowance(room)
        assert 0 <= due <= room
        pace.took_due(due)
        ahead = pace.ahead_allowance(room - due)
        assert 0 <= ahead <= room - due
        pace.took_ahead(ahead)
        claimed += due + ahead
        assert claimed <= burst + pace.catch_up_rate * elapsed + 1e-6
        assert pace.owed <= max(rate * OWED_SECONDS, 0) + 1e-6


def test_idle_time_saves_up_two_seconds_of_catch_up_and_early_claims_spend_tokens() -> None:
    pace = Pace(rate=1000.0, burst=40)
    pace.grow(100)  # a long idle stretch: at most two seconds' worth is saved up
    assert pace.due_allowance(room=10**6) == int(2 * CATCH_UP * 1000)
    pace.took_ahead(5)  # early claims spend the same tokens as due ones
    assert pace.due_allowance(room=10**6) == int(2 * CATCH_UP * 1000) - 5
    short = Pace(rate=100.0, burst=1)
    short.tokens, short.owed = 5.0, 50.0
    assert short.ahead_allowance(room=1000) == 5  # owed, but only what the tokens allow
