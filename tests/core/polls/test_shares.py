"""The model's hourly shares (issue 40, item 5): which shares a feed draws on, how many calls
they allow, and the one report of a share refused for the first time in an hour."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bot.core.polls.shares import (
    Fractions,
    Grant,
    Share,
    ShareKind,
    Spent,
    grant,
    hour_of,
    shares_of,
)

SIXTY = Fractions(per_hour=60, chat_feeds=0.5, owner=0.2, feed=0.1)
HOUR = hour_of(datetime(2026, 12, 3, 12, 30, tzinfo=UTC))


def test_an_operator_feed_draws_only_on_the_whole_budget() -> None:
    assert shares_of(5, True, None, SIXTY) == (Share(ShareKind.ALL, "model", 60),)


def test_a_chat_feed_draws_on_every_share() -> None:
    assert shares_of(5, False, 77, SIXTY) == (
        Share(ShareKind.ALL, "model", 60),
        Share(ShareKind.CHAT_FEEDS, "model:chat", 30),
        Share(ShareKind.OWNER, "model:user:77", 12),
        Share(ShareKind.FEED, "model:feed:5", 6),
    )
    unowned = shares_of(5, False, None, SIXTY)
    assert [s.kind for s in unowned] == [ShareKind.ALL, ShareKind.CHAT_FEEDS, ShareKind.FEED]


def test_a_share_is_at_least_one_call_while_there_is_a_budget() -> None:
    assert [s.limit for s in shares_of(1, False, 2, Fractions(per_hour=3))] == [3, 1, 1, 1]
    assert [s.limit for s in shares_of(1, False, 2, Fractions(per_hour=1))] == [1, 1, 1, 1]
    assert [s.limit for s in shares_of(1, False, 2, Fractions(per_hour=0))] == [0, 0, 0, 0]
    assert grant(3, (), {}, HOUR) == (Grant(3, ()), {})  # nothing to draw on: nothing limits


def test_the_narrowest_share_decides_and_is_reported_once_an_hour() -> None:
    shares = shares_of(5, False, 77, SIXTY)
    first, spent = grant(30, shares, {}, HOUR)
    assert first == Grant(6, (shares[3],))
    assert spent["model:feed:5"] == Spent(HOUR, 6, 24) and spent["model"] == Spent(HOUR, 6, 0)
    again, spent = grant(30, shares, spent, HOUR)
    assert again == Grant(0, ())  # still refused, already told
    assert spent["model:feed:5"] == Spent(HOUR, 6, 54)
    nothing, _ = grant(0, shares, spent, HOUR)
    assert nothing == Grant(0, ())


def test_a_new_hour_starts_every_share_afresh() -> None:
    shares = shares_of(5, False, 77, SIXTY)
    _, spent = grant(30, shares, {}, HOUR)
    later, after = grant(4, shares, spent, HOUR + 1)
    assert later == Grant(4, ()) and after["model:feed:5"] == Spent(HOUR + 1, 4, 0)


def test_exactly_filling_a_share_is_not_a_refusal() -> None:
    shares = shares_of(5, False, 77, SIXTY)
    full, spent = grant(6, shares, {}, HOUR)
    assert full == Grant(6, ()) and spent["model:feed:5"] == Spent(HOUR, 6, 0)
    over, _ = grant(1, shares, spent, HOUR)
    assert over == Grant(0, (shares[3],))


def test_hours_are_clock_hours() -> None:
    assert hour_of(datetime(2026, 12, 3, 12, 59, 59, tzinfo=UTC)) == HOUR
    assert hour_of(datetime(2026, 12, 3, 13, 0, tzinfo=UTC)) == HOUR + 1


@given(
    asks=st.lists(st.integers(0, 40), max_size=12),
    per_hour=st.integers(0, 100),
    feed=st.floats(0, 1),
)
def test_no_share_ever_spends_past_its_limit(asks: list[int], per_hour: int, feed: float) -> None:
    fractions = Fractions(per_hour=per_hour, feed=feed)
    shares = shares_of(1, False, 9, fractions)
    spent: dict[str, Spent] = {}
    total = 0
    told: list[str] = []
    for asked in asks:
        result, spent = grant(asked, shares, spent, HOUR)
        assert 0 <= result.granted <= asked
        total += result.granted
        told += [s.name for s in result.spent]
    assert total <= min(s.limit for s in shares) or not asks
    assert all(spent[s.name].used <= s.limit for s in shares if s.name in spent)
    assert len(told) == len(set(told))  # each share told at most once an hour
