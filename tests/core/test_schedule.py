from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.core.schedule import next_check

NOW = datetime(2026, 9, 8, tzinfo=UTC)


def test_healthy_feeds_wait_one_interval() -> None:
    assert next_check(NOW, 300) == NOW + timedelta(seconds=300)


def test_errors_back_off_exponentially_capped_at_a_day() -> None:
    assert next_check(NOW, 300, consecutive_errors=1) == NOW + timedelta(seconds=600)
    assert next_check(NOW, 300, consecutive_errors=3) == NOW + timedelta(seconds=2400)
    assert next_check(NOW, 300, consecutive_errors=30) == NOW + timedelta(hours=24)


def test_retry_after_is_a_lower_bound() -> None:
    assert next_check(NOW, 300, retry_after_seconds=3600) == NOW + timedelta(seconds=3600)
    assert next_check(NOW, 300, retry_after_seconds=5) == NOW + timedelta(seconds=300)


def test_backoff_stops_doubling_after_twenty_errors() -> None:
    now = datetime(2026, 11, 30, tzinfo=UTC)
    tiny = 0.000_001  # so that 2**20 intervals stay under the 24-hour ceiling
    assert next_check(now, tiny, consecutive_errors=30) == now + timedelta(seconds=tiny * 2**20)
    assert next_check(now, tiny, consecutive_errors=0) == now + timedelta(seconds=tiny)
