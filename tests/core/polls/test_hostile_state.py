"""Hardening round 3, the pure rules: bounded validators, churn, moves told once a day, dates
past year 9999 and NULs in ids (issue 23, items 2, 3, 9 and 10)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from bot.core.detection.churn import (
    CHURN_MIN_ITEMS,
    CHURN_POLLS,
    SLOW_MIN_SECONDS,
    ChurnStep,
    churn_step,
    slowed_pace,
)
from bot.core.feeds.entries import item_key
from bot.core.feeds.jsonfeed import read_json_feed
from bot.core.polls.alerts import MOVED_QUIET, AlertKind, AlertStep, alert_step
from bot.core.polls.decide import (
    MAX_ETAG_CHARS,
    MAX_LAST_MODIFIED_CHARS,
    FeedIntent,
    FeedState,
    FeedStatus,
    FetchResult,
    PollKind,
)
from tests.support.alerts import DAY, FEED, NOW, intent


def test_validators_past_their_real_size_are_not_kept() -> None:
    fits = FetchResult(
        200,
        "https://a.example/",
        headers={"etag": "e" * MAX_ETAG_CHARS, "last-modified": "m" * MAX_LAST_MODIFIED_CHARS},
    )
    assert fits.etag == "e" * MAX_ETAG_CHARS
    assert fits.last_modified == "m" * MAX_LAST_MODIFIED_CHARS
    hostile = FetchResult(
        200,
        "https://a.example/",
        headers={
            "etag": "e" * (MAX_ETAG_CHARS + 1),
            "last-modified": "m" * (MAX_LAST_MODIFIED_CHARS + 1),
        },
    )
    assert hostile.etag is None and hostile.last_modified is None
    assert FetchResult(200, "https://a.example/").etag is None


def test_churn_is_three_polls_in_a_row_of_almost_every_item_new() -> None:
    assert churn_step(0, 20, 20) == ChurnStep(1, False, False)
    assert churn_step(1, 18, 20) == ChurnStep(2, False, False)  # 90% counts
    assert churn_step(2, 20, 20) == ChurnStep(CHURN_POLLS, True, True)  # told once, now
    assert churn_step(CHURN_POLLS, 20, 20) == ChurnStep(CHURN_POLLS + 1, False, True)
    assert churn_step(5, 17, 20) == ChurnStep(0, False, False)  # a normal poll ends it
    small = CHURN_MIN_ITEMS - 1
    assert churn_step(2, small, small) == ChurnStep(0, False, False)  # a small feed's news
    assert churn_step(2, CHURN_MIN_ITEMS, CHURN_MIN_ITEMS).alert


def test_a_churning_feed_is_polled_four_times_slower_and_at_most_hourly() -> None:
    assert slowed_pace(300) == SLOW_MIN_SECONDS
    assert slowed_pace(7200) == 4 * 7200


def moved(at: datetime) -> FeedIntent:
    return FeedIntent(
        PollKind.CHANGED, FeedStatus.OK, at, at + DAY, new_url="https://b.example/feed"
    )


def test_a_feed_that_keeps_moving_is_told_at_most_once_a_day() -> None:
    first = alert_step(FEED, moved(NOW), DAY)
    assert first.send is AlertKind.MOVED
    told = replace(FEED, alert=AlertKind.MOVED, alerted_at=NOW)
    # The healthy poll between two moves keeps the state, so the next move is not news.
    between = alert_step(told, intent(FeedStatus.OK, at=NOW + timedelta(minutes=5)), DAY)
    assert between == AlertStep(AlertKind.MOVED, None, None)
    again = alert_step(told, moved(NOW + timedelta(minutes=10)), DAY)
    assert again.send is None
    # A day later the state clears, and a move after that is told again.
    later = NOW + MOVED_QUIET
    cleared = alert_step(told, intent(FeedStatus.OK, at=later), DAY)
    assert cleared == AlertStep(None, None, None)
    assert alert_step(replace(told, alert=None), moved(later), DAY).send is AlertKind.MOVED


def test_failing_after_a_move_counts_from_its_own_first_failure() -> None:
    told = replace(FEED, alert=AlertKind.MOVED, alerted_at=NOW)
    step = alert_step(told, intent(FeedStatus.ERROR, at=NOW + DAY), DAY)
    assert step.failing_since == NOW + DAY


def test_a_json_feed_date_past_year_9999_is_no_date() -> None:
    body = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "Far",
            "items": [
                {"id": "a", "content_text": "x", "date_published": "9999-12-31T23:00:00-05:00"},
                {"id": "b", "content_text": "y", "date_published": "10000-01-01T00:00:00Z"},
                {"id": "c", "content_text": "z", "date_published": "2026-12-01T08:00:00Z"},
            ],
        }
    ).encode()
    dates = [entry.published for entry in read_json_feed(body).entries]
    assert dates == [None, None, datetime(2026, 12, 1, 8, tzinfo=UTC)]


def test_a_nul_is_never_part_of_an_item_key() -> None:
    assert item_key(["tag:a.example,2026:\x00post-1"], "t", None) == "tag:a.example,2026:post-1"
    assert item_key(["\x00", "https://a.example/p"], "t", None) == "https://a.example/p"
    body = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "N\x00ul",
            "items": [{"id": "x\x00y", "title": "T\x00itle", "content_text": "b\x00ody"}],
        }
    ).encode()
    feed = read_json_feed(body)
    (entry,) = feed.entries
    assert "\x00" not in entry.key + entry.title + feed.title
    assert entry.key == "xy"


def test_state_from_storage_carries_churn_and_alert_time() -> None:
    state = FeedState(1, "s", "https://a.example/", "T", None, None, False, None, True)
    assert state.churn_polls is None and state.alerted_at is None
