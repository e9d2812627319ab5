"""Withdrawal rules (core/detection/withdrawal.py): which vanished posts are candidates, what a
page's answer means, and the two checks before a withdrawal is told."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.core.detection.withdrawal import (
    BACK_WATCH,
    GIVE_UP,
    MAX_HOLES,
    RETRY,
    Answer,
    Next,
    Seen,
    Step,
    answer_of,
    holes,
    judge,
    judge_withdrawn,
)

T0 = datetime(2026, 11, 1, tzinfo=UTC)
T1, T2 = T0 + timedelta(minutes=5), T0 + timedelta(minutes=10)
HOUR = timedelta(hours=1)


def day(n: int) -> datetime:
    return T0 - timedelta(days=30 - n)


def seen(item_id: int, at: datetime, published: int) -> Seen:
    return Seen(item_id, at, day(published))


def test_a_post_gone_from_between_others_is_a_candidate() -> None:
    items = [seen(1, T2, 1), seen(2, T2, 2), seen(3, T1, 3), seen(4, T2, 4)]
    assert holes(items) == [3]


def test_the_window_rolling_past_the_oldest_is_not() -> None:
    items = [seen(1, T1, 1), seen(2, T2, 2), seen(3, T2, 3), seen(4, T2, 4)]
    assert holes(items) == []


def test_the_newest_gone_is_not_a_hole_either() -> None:
    items = [seen(1, T2, 1), seen(2, T2, 2), seen(3, T1, 5)]
    assert holes(items) == []


def test_only_the_last_change_counts() -> None:
    # 3 left two changes ago (already judged then): not found again
    items = [seen(1, T2, 1), seen(2, T2, 2), seen(3, T0, 3), seen(4, T1, 9), seen(5, T2, 4)]
    assert holes(items) == []


def test_a_rebuilt_feed_has_no_candidates() -> None:
    kept = [seen(100, T2, 0), seen(101, T2, 50)]
    gone = [seen(i, T1, i) for i in range(1, MAX_HOLES + 2)]
    assert holes(kept + gone) == []
    assert holes(kept + gone[:MAX_HOLES]) == list(range(1, MAX_HOLES + 1))


def test_nothing_stored_or_nothing_gone() -> None:
    assert holes([]) == []
    assert holes([seen(1, T2, 1), seen(2, T2, 2)]) == []
    assert holes([seen(1, T1, 1), seen(2, T1, 2)]) == []


@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=12, unique=True),
    st.integers(0, 12),
    st.integers(0, 12),
)
def test_window_moves_never_make_holes(days: list[int], dropped: int, grown: int) -> None:
    """Posts kept in date order: dropping the oldest and adding newer or older ones (a window
    rolling, growing or shrinking) never makes a candidate."""
    ordered = sorted(days)
    kept = ordered[min(dropped, len(ordered) - 1) :]
    items = [seen(d, T1, d) for d in ordered[: len(ordered) - len(kept)]]
    items += [seen(d, T2, d) for d in kept]
    items += [seen(100 + n, T2, 41 + n) for n in range(grown)]  # newer posts
    assert holes(items) == []


def test_answers() -> None:
    assert answer_of(404) is Answer.GONE and answer_of(410) is Answer.GONE
    assert answer_of(200) is Answer.THERE and answer_of(304) is Answer.THERE
    for status in (None, 500, 502, 503, 403, 401, 429, 301):
        assert answer_of(status) is Answer.UNSURE


def step(answer: Answer, misses: int, *, since: datetime = T0, ok: bool = True) -> Next:
    return judge(answer, misses=misses, since=since, now=T1, recheck=6 * HOUR, feed_ok=ok)


def test_two_gone_answers_hours_apart_withdraw() -> None:
    first = step(Answer.GONE, 0)
    assert first == Next(Step.WAIT, 1, T1 + 6 * HOUR)
    assert step(Answer.GONE, 1) == Next(Step.WITHDRAWN, 2)


def test_the_second_check_is_at_most_a_day_later() -> None:
    late = judge(Answer.GONE, misses=0, since=T0, now=T1, recheck=5 * 24 * HOUR, feed_ok=True)
    assert late.at == T1 + 24 * HOUR


def test_unsure_answers_and_a_failing_feed_wait_without_counting() -> None:
    assert step(Answer.UNSURE, 1) == Next(Step.WAIT, 1, T1 + RETRY)
    assert step(Answer.GONE, 1, ok=False) == Next(Step.WAIT, 1, T1 + RETRY)
    assert step(Answer.GONE, 0, ok=False) == Next(Step.WAIT, 0, T1 + RETRY)
    short = judge(Answer.UNSURE, misses=0, since=T0, now=T1, recheck=HOUR / 60, feed_ok=True)
    assert short.at == T1 + HOUR / 60


def test_a_page_that_answers_clears_and_old_candidates_are_dropped() -> None:
    assert step(Answer.THERE, 1) == Next(Step.CLEARED)
    assert step(Answer.GONE, 1, since=T1 - GIVE_UP - HOUR) == Next(Step.CLEARED)
    assert step(Answer.GONE, 1, since=T1 - GIVE_UP) == Next(Step.WITHDRAWN, 2)


def test_a_withdrawn_post_comes_back() -> None:
    assert judge_withdrawn(Answer.GONE, in_feed=True, since=T0, now=T1) == Next(Step.BACK)
    assert judge_withdrawn(Answer.THERE, in_feed=False, since=T0, now=T1) == Next(Step.BACK)
    assert judge_withdrawn(Answer.UNSURE, in_feed=False, since=T0, now=T1) == Next(Step.WAIT)
    gone = T1 - BACK_WATCH - HOUR
    assert judge_withdrawn(Answer.GONE, in_feed=False, since=gone, now=T1) == Next(Step.CLEARED)
    edge = T1 - BACK_WATCH
    assert judge_withdrawn(Answer.GONE, in_feed=False, since=edge, now=T1) == Next(Step.WAIT)


def test_a_post_dated_like_the_oldest_or_newest_kept_is_not_between_them() -> None:
    assert holes([seen(1, T2, 1), seen(2, T1, 1), seen(3, T2, 5)]) == []
    assert holes([seen(1, T2, 1), seen(2, T1, 5), seen(3, T2, 5)]) == []
