"""Following rules (core/polls/follows.py): the period, the limit, when a page is read and
what change of it is news."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.lang import UserError
from bot.core.polls.follows import (
    DEFAULT_DAYS,
    MAX_CHANGED,
    MAX_DAYS,
    PAGE_MARK,
    FollowRequest,
    follow_until,
    may_follow,
    page_change,
    page_due,
    parse_follow,
    reading,
    rebaseline,
)

NOW = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)
LINK = "https://blog.example/post/"
PAGE = (
    "The ferry leaves at 08:15 on weekdays. Tickets are sold at the quay office. "
    "Bicycles travel free of charge."
)


def test_parse_follow() -> None:
    assert parse_follow(LINK) == FollowRequest(LINK, DEFAULT_DAYS)
    assert parse_follow(f"  {LINK}   30 ") == FollowRequest(LINK, 30)
    assert parse_follow(f"{LINK} 60d") == FollowRequest(LINK, 60)
    assert parse_follow(f"{LINK} 1") == FollowRequest(LINK, 1)
    assert parse_follow("HTTP://blog.example/ 2") == FollowRequest("HTTP://blog.example/", 2)


@pytest.mark.parametrize(
    "text", ["", "blog.example/post", f"{LINK} 0", f"{LINK} 61", f"{LINK} x", f"{LINK} ²",
             f"{LINK} 3 4", "javascript:alert(1)", f"{LINK} -3"]
)  # fmt: skip
def test_parse_follow_refuses(text: str) -> None:
    with pytest.raises(UserError):
        parse_follow(text)


def test_the_days_error_names_the_most() -> None:
    with pytest.raises(UserError) as caught:
        parse_follow(f"{LINK} 99")
    assert str(caught.value) == f"A follow lasts from 1 to {MAX_DAYS} days."


def test_follow_until_is_clamped() -> None:
    assert follow_until(NOW, 14) == NOW + timedelta(days=14)
    assert follow_until(NOW, 0) == NOW + timedelta(days=1)
    assert follow_until(NOW, 600) == NOW + timedelta(days=MAX_DAYS)


def test_may_follow() -> None:
    assert may_follow(1, 2, already=False)
    assert not may_follow(2, 2, already=False)
    assert may_follow(2, 2, already=True)


def test_page_due() -> None:
    read = NOW - timedelta(seconds=300)
    assert page_due(None, NOW, 300, in_feed=True)
    assert not page_due(read, NOW, 300, in_feed=True)
    assert page_due(read, NOW, 300, in_feed=False)
    assert not page_due(read + timedelta(seconds=1), NOW, 300, in_feed=False)
    assert page_due(read, NOW, 300, in_feed=True, read=False)
    assert not page_due(read + timedelta(seconds=1), NOW, 300, in_feed=True, read=False)


def test_rebaseline() -> None:
    assert rebaseline(NOW, NOW + timedelta(seconds=1))
    assert not rebaseline(NOW, NOW)
    assert not rebaseline(None, NOW)
    assert not rebaseline(NOW, None)


def test_a_changed_time_is_news() -> None:
    diff = page_change(PAGE, PAGE.replace("08:15", "07:40"), "Ferry")
    assert diff is not None
    assert diff.added == ("The ferry leaves at 07:40 on weekdays.",)
    assert diff.removed == ("The ferry leaves at 08:15 on weekdays.",)
    assert not diff.minor


def test_an_added_sentence_is_news() -> None:
    diff = page_change(PAGE, PAGE + " Dogs must be kept on a lead.", "Ferry")
    assert diff is not None and diff.added == ("Dogs must be kept on a lead.",)
    assert diff.removed == ()


def test_the_same_words_and_minor_edits_are_not() -> None:
    assert page_change(PAGE, PAGE.replace("  ", " ").upper(), "Ferry") is None
    assert page_change(PAGE, PAGE.replace("sold", "sould"), "Ferry") is None
    assert page_change(PAGE, PAGE, "Ferry") is None


def test_a_rewritten_page_is_a_template_not_an_edit() -> None:
    old = " ".join(f"Old sentence number {n} about the quay." for n in range(MAX_CHANGED + 1))
    new = " ".join(f"New line {n} on another theme." for n in range(MAX_CHANGED + 1))
    assert page_change(old, new, "Ferry") is None
    fewer = " ".join(f"New line {n} on another theme." for n in range(MAX_CHANGED))
    assert page_change(old, fewer, "Ferry") is not None


@given(st.text(alphabet="abcdefg .", max_size=200))
def test_a_page_compared_with_itself_is_never_news(text: str) -> None:
    assert page_change(text, text, "t") is None


def test_a_page_without_an_article_is_read_whole_and_compared_only_so() -> None:
    whole = reading(None, "Fares. Price: $49.")
    assert whole == PAGE_MARK + "Fares. Price: $49."
    assert reading("Fares.", "ignored") == "Fares."
    diff = page_change(whole, reading(None, "Fares. Price: $59."), "Fares")
    assert diff is not None and diff.added == ("Price: $59.",)
    assert diff.removed == ("Price: $49.",)
    # one reading of the article, the next of the whole page: a new baseline, not news
    assert page_change("Fares. Price: $49.", reading(None, "Fares. Price: $59."), "t") is None
    assert page_change(whole, "Fares. Price: $59.", "t") is None


def test_the_link_error() -> None:
    with pytest.raises(UserError) as caught:
        parse_follow("")
    assert str(caught.value) == "Send a post's link, and the number of days if not 14."


def test_sentences_moved_around_are_no_message() -> None:
    moved = "Bicycles travel free of charge. Tickets are sold at the quay office. " + (
        "The ferry leaves at 08:15 on weekdays."
    )
    assert page_change(PAGE, moved, "Ferry") is None


def test_the_template_bound_needs_both_sides_over_it() -> None:
    old = " ".join(f"Old sentence number {n} about the quay." for n in range(MAX_CHANGED))
    new = " ".join(f"New line {n} on another theme." for n in range(MAX_CHANGED + 1))
    diff = page_change(old, new, "Ferry")
    assert diff is not None and len(diff.added) == MAX_CHANGED + 1
