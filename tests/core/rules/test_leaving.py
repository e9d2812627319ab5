"""How long a left subscription can be undone and keeps its settings (core/rules/leaving.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.core.rules.leaving import Keeping, returning_topic, stamp, stamped

NOW = datetime(2026, 12, 3, 16, 30, 15, 250_000, tzinfo=UTC)


def test_the_windows_count_back_from_now() -> None:
    keeping = Keeping()
    assert (keeping.undo_minutes, keeping.keep_days) == (10, 30)
    assert keeping.undo_since(NOW) == NOW - timedelta(minutes=10)
    assert keeping.kept_since(NOW) == NOW - timedelta(days=30)
    other = Keeping(undo_minutes=3, keep_days=2)
    assert other.undo_since(NOW) == datetime(2026, 12, 3, 16, 27, 15, 250_000, tzinfo=UTC)
    assert other.kept_since(NOW) == datetime(2026, 12, 1, 16, 30, 15, 250_000, tzinfo=UTC)


def test_a_restored_subscription_goes_where_it_was_asked_for_else_where_it_was() -> None:
    assert returning_topic(7, None) == 7
    assert returning_topic(7, 9) == 9
    assert returning_topic(None, 9) == 9
    assert returning_topic(None, None) is None


def test_a_stamp_is_the_second_it_was_left_in() -> None:
    assert stamp(NOW) == 1_796_315_415
    start, end = stamped(stamp(NOW))
    assert start == datetime(2026, 12, 3, 16, 30, 15, tzinfo=UTC)
    assert end == datetime(2026, 12, 3, 16, 30, 16, tzinfo=UTC)


@given(st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2200, 1, 1)))
def test_every_moment_lies_in_its_own_stamp(moment: datetime) -> None:
    left_at = moment.replace(tzinfo=UTC)
    start, end = stamped(stamp(left_at))
    assert start <= left_at < end and end - start == timedelta(seconds=1)
