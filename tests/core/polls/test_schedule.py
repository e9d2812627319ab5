from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.core.polls.schedule import format_duration, max_age, next_check, pace, parse_duration

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


def test_a_hint_lengthens_the_interval_up_to_an_hour_and_never_shortens_it() -> None:
    assert pace(300) == 300
    assert pace(300, None, 0, -5) == 300
    assert pace(300, 600) == 600
    assert pace(300, 600, 1200, None) == 1200
    assert pace(300, 7200) == 3600
    assert pace(300, 3600) == 3600
    assert pace(7200, 60, 3600) == 7200


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("max-age=600", 600.0),
        ("public, MAX-AGE=1200, must-revalidate", 1200.0),
        ('max-age="90"', 90.0),
        ("s-maxage=100, max-age=0", 0.0),
        ("no-cache", None),
        ("s-maxage=100", None),
        ("max-age=soon", None),
        ("", None),
        (None, None),
    ],
)
def test_max_age_is_read_from_cache_control(header: str | None, seconds: float | None) -> None:
    assert max_age(header) == seconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("60s", 60), ("90s", 90), ("15m", 900), (" 2H ", 7200), ("1d", 86400), ("7d", 604800)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("59s", "an interval is between 1m and 7d"),
        ("8d", "an interval is between 1m and 7d"),
        ("15", "not a duration: '15' (use e.g. 15m, 2h or 1d)"),
        ("15 minutes", "not a duration: '15 minutes' (use e.g. 15m, 2h or 1d)"),
        ("1.5h", "not a duration: '1.5h' (use e.g. 15m, 2h or 1d)"),
    ],
)
def test_bad_durations_say_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_duration(text)
    assert str(caught.value) == reason


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(900, "15m"), (7200, "2h"), (86400, "1d"), (90, "90s"), (3660, "61m"), (59, "59s")],
)
def test_durations_are_shown_in_their_shortest_exact_form(seconds: int, text: str) -> None:
    assert format_duration(seconds) == text
