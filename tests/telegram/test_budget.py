"""The shared budget's overall bucket (`bot/telegram/budget.py`): the rate it hands out and the
few slots a moment's idleness may bank."""

from __future__ import annotations

import asyncio

import pytest

from bot.telegram.budget import MemoryBuckets, SharedRateLimiter, overall_capacity, overall_rate


@pytest.mark.parametrize(
    ("per_second", "rate", "capacity"),
    [(30, 25.5, 1.0), (1000, 930.0, 9.3), (100, 93.0, 1.0), (10, 5.5, 1.0)],
)
def test_rate_and_burst_follow_the_limit(per_second: float, rate: float, capacity: float) -> None:
    assert overall_rate(per_second) == pytest.approx(rate)
    assert overall_capacity(overall_rate(per_second)) == pytest.approx(capacity)
    limiter = SharedRateLimiter(MemoryBuckets(), per_second=per_second, group_per_minute=20)
    assert limiter.rate == pytest.approx(rate)
    assert limiter.capacity == pytest.approx(capacity)


async def test_an_idle_moment_banks_ten_milliseconds_of_slots_at_a_high_rate() -> None:
    """At 930/s, 20 ms without sends bank 9 slots (not 18: the cap), taken at once after it;
    before, one slot was banked and a fan-out's idle moments lost the rest for good."""
    fast = SharedRateLimiter(MemoryBuckets(), per_second=1000, group_per_minute=20)
    while await fast.buckets.reserve("overall", fast.rate, fast.capacity) == 0:
        pass  # drain the bucket
    await asyncio.sleep(0.03)  # idle: the next nine slots are due now
    waits = [await fast.buckets.reserve("overall", fast.rate, fast.capacity) for _ in range(20)]
    assert waits[:9] == [0.0] * 9
    assert waits[-1] > 0.005  # the cap: 20 slots are not all banked
    slow = SharedRateLimiter(MemoryBuckets(), per_second=30, group_per_minute=20)
    await slow.buckets.reserve("overall", slow.rate, slow.capacity)
    await asyncio.sleep(0.1)
    waits = [await slow.buckets.reserve("overall", slow.rate, slow.capacity) for _ in range(2)]
    assert waits[0] == 0.0 and waits[1] > 0.02  # at 30/s nothing more than one slot is banked
