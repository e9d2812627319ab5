"""Quiet hours' pure rules (issue 29): the window's syntax, and whether a moment falls in it
in the chat's time zone, across midnight."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.rules.quiet import QuietHours, QuietSyntaxError, parse_quiet, stored


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, 1, hour, minute, tzinfo=UTC)


def test_the_syntax() -> None:
    assert parse_quiet("22:00-07:00") == QuietHours(time(22), time(7))
    assert str(parse_quiet(" 7:05 – 9:30 ")) == "07:05-09:30"
    assert str(parse_quiet("23:00~06:00")) == "23:00-06:00"
    assert str(parse_quiet("22:59-23:00")) == "22:59-23:00"  # the last hour and minute exist
    assert str(parse_quiet("00:00-07:59")) == "00:00-07:59"
    for bad, reason in (
        ("22-07", "HH:MM-HH:MM"),
        ("25:00-07:00", "00:00 to 23:59"),
        ("22:60-07:00", "00:00 to 23:59"),
        ("22:00-24:00", "00:00 to 23:59"),
        ("24:00-07:00", "00:00 to 23:59"),
        ("22:00-07:60", "00:00 to 23:59"),
        ("08:00-08:00", "differ"),
        ("", "HH:MM-HH:MM"),
    ):
        with pytest.raises(QuietSyntaxError, match=reason):
            parse_quiet(bad)


def test_a_window_across_midnight() -> None:
    night = parse_quiet("22:00-07:00")
    assert (
        night.holds(at(22), "UTC") and night.holds(at(3), "UTC") and night.holds(at(6, 59), "UTC")
    )
    assert not night.holds(at(7), "UTC") and not night.holds(at(21, 59), "UTC")
    assert not night.holds(at(12), "UTC")


def test_a_window_within_a_day() -> None:
    lunch = parse_quiet("12:00-13:30")
    assert lunch.holds(at(12), "UTC") and lunch.holds(at(13, 29), "UTC")
    assert not lunch.holds(at(13, 30), "UTC") and not lunch.holds(at(11, 59), "UTC")


def test_read_in_the_chats_zone() -> None:
    night = parse_quiet("22:00-07:00")
    assert night.holds(at(15), "Asia/Shanghai")  # 23:00 there
    assert not night.holds(at(23), "Asia/Shanghai")  # 07:00 there
    assert night.holds(at(23), "Not/AZone")  # unknown: read as UTC


def test_stored_values() -> None:
    assert stored(None) is None and stored("") is None and stored("garbage") is None
    assert stored("22:00-07:00") == QuietHours(time(22), time(7))


@given(st.times(), st.times(), st.datetimes(timezones=st.just(UTC)))
def test_a_moment_is_in_a_window_or_in_its_complement(
    start: time, end: time, moment: datetime
) -> None:
    start, end = start.replace(second=0, microsecond=0), end.replace(second=0, microsecond=0)
    if start == end:
        return
    window, rest = QuietHours(start, end), QuietHours(end, start)
    assert window.holds(moment, "UTC") != rest.holds(moment, "UTC")
