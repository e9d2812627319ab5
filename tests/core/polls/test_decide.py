"""The feed decision: each kind of response, with the whole intent compared, so a field set
wrongly on any branch shows up."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from bot.core.polls.decide import (
    FeedIntent,
    FeedState,
    FeedStatus,
    FetchResult,
    PollKind,
    after_parse,
    decide,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
HOUR = 3600.0
BODY = b"<rss><channel><title>x</title></channel></rss>"
BODY_HASH = hashlib.sha256(BODY).hexdigest()


def state(**changes: object) -> FeedState:
    values: dict[str, object] = {
        "id": 7,
        "slug": "quillon",
        "url": "https://quillon.example/feed/",
        "title": "Quillon",
        "etag": '"v1"',
        "last_modified": "Mon, 30 Nov 2026 10:00:00 GMT",
        "trusted": False,
        "body_hash": BODY_HASH,
        "baseline_done": True,
        "error_count": 0,
    }
    values.update(changes)
    return FeedState(**values)  # type: ignore[arg-type]


def ok(body: bytes = BODY, /, **headers: str) -> FetchResult:
    return FetchResult(200, "https://quillon.example/feed/", body=body, headers=headers)


def test_304_keeps_the_validators_and_takes_a_new_etag() -> None:
    intent = decide(state(), FetchResult(304, "u"), NOW, HOUR)
    assert intent == FeedIntent(
        PollKind.NOT_MODIFIED,
        FeedStatus.OK,
        NOW,
        NOW + timedelta(hours=1),
        etag='"v1"',
        last_modified="Mon, 30 Nov 2026 10:00:00 GMT",
        pace_seconds=HOUR,
    )
    assert intent.quiet
    fresh = decide(state(), FetchResult(304, "u", headers={"etag": '"v2"'}), NOW, HOUR)
    assert (fresh.etag, fresh.validators_changed) == ('"v2"', True)


def test_410_retires_the_feed_keeping_its_error_count() -> None:
    intent = decide(state(error_count=2), FetchResult(410, "u"), NOW, HOUR)
    assert intent == FeedIntent(
        PollKind.GONE,
        FeedStatus.GONE,
        NOW,
        NOW + timedelta(hours=1),
        error="HTTP 410 Gone: feed disabled",
        error_count=2,
        etag='"v1"',
        last_modified="Mon, 30 Nov 2026 10:00:00 GMT",
        pace_seconds=HOUR,
    )
    assert not intent.quiet


def test_other_statuses_back_off_and_honour_retry_after() -> None:
    intent = decide(state(error_count=1), FetchResult(503, "u", retry_after=30_000), NOW, HOUR)
    assert intent == FeedIntent(
        PollKind.ERROR,
        FeedStatus.ERROR,
        NOW,
        NOW + timedelta(seconds=30_000),
        error="HTTP 503",
        error_count=2,
        etag='"v1"',
        last_modified="Mon, 30 Nov 2026 10:00:00 GMT",
        pace_seconds=HOUR,
    )
    backoff = decide(state(error_count=1), FetchResult(500, "u"), NOW, HOUR)
    assert backoff.next_check_at == NOW + timedelta(hours=4)


def test_a_transport_error_is_an_error_with_its_reason_cut() -> None:
    intent = decide(state(), "timed out " * 200, NOW, HOUR)
    assert intent.kind is PollKind.ERROR and intent.status is FeedStatus.ERROR
    assert intent.error == ("timed out " * 200)[:1000] and intent.error_count == 1
    assert intent.next_check_at == NOW + timedelta(hours=2)


def test_an_identical_body_is_a_quiet_unchanged_poll() -> None:
    headers = {"etag": '"v1"', "last-modified": "Mon, 30 Nov 2026 10:00:00 GMT"}
    intent = decide(state(), ok(**headers), NOW, HOUR)
    assert intent == FeedIntent(
        PollKind.UNCHANGED,
        FeedStatus.OK,
        NOW,
        NOW + timedelta(hours=1),
        etag='"v1"',
        last_modified="Mon, 30 Nov 2026 10:00:00 GMT",
        validators_changed=False,
        pace_seconds=HOUR,
    )
    assert intent.quiet
    assert decide(state(), ok(etag='"v9"'), NOW, HOUR).validators_changed


def test_a_new_body_is_parsed() -> None:
    body = BODY + b" "
    intent = decide(state(), ok(body, etag='"v2"'), NOW, HOUR)
    assert intent == FeedIntent(
        PollKind.CHANGED,
        FeedStatus.OK,
        NOW,
        NOW + timedelta(hours=1),
        etag='"v2"',
        last_modified=None,
        validators_changed=True,
        new_url=None,
        body_hash=hashlib.sha256(body).hexdigest(),
        parse=True,
        pace_seconds=HOUR,
    )


def test_the_first_poll_is_a_baseline_even_with_a_known_body() -> None:
    intent = decide(state(baseline_done=False), ok(), NOW, HOUR)
    assert (intent.kind, intent.parse, intent.body_hash) == (PollKind.BASELINE, True, BODY_HASH)


def test_a_permanent_redirect_moves_the_feed_even_with_the_same_body() -> None:
    moved = FetchResult(
        200, "https://new.example/feed/", moved_to="https://new.example/feed/", body=BODY
    )
    intent = decide(state(), moved, NOW, HOUR)
    assert (intent.kind, intent.new_url, intent.parse) == (
        PollKind.CHANGED,
        "https://new.example/feed/",
        True,
    )


def test_validators_are_read_from_lower_case_headers() -> None:
    result = ok(etag='"e"', **{"last-modified": "Tue, 01 Dec 2026 00:00:00 GMT"})
    assert (result.etag, result.last_modified) == ('"e"', "Tue, 01 Dec 2026 00:00:00 GMT")
    assert state().validators == ('"v1"', "Mon, 30 Nov 2026 10:00:00 GMT")


def test_the_response_validators_are_kept_on_unchanged_and_changed_polls() -> None:
    modified = "Tue, 01 Dec 2026 00:00:00 GMT"
    same = decide(state(), ok(**{"last-modified": modified}), NOW, HOUR)
    assert (same.kind, same.last_modified, same.validators_changed) == (
        PollKind.UNCHANGED,
        modified,
        True,
    )
    changed = decide(state(), ok(BODY + b"\n", **{"last-modified": modified}), NOW, HOUR)
    assert (changed.kind, changed.last_modified) == (PollKind.CHANGED, modified)


def test_the_feeds_own_interval_replaces_the_setting() -> None:
    own = state(interval_seconds=900)
    assert decide(own, ok(), NOW, HOUR).next_check_at == NOW + timedelta(minutes=15)
    assert decide(own, ok(), NOW, HOUR).pace_seconds == 900
    assert decide(own, "timeout", NOW, HOUR).next_check_at == NOW + timedelta(minutes=30)
    gone = decide(own, FetchResult(410, "u"), NOW, HOUR)
    assert gone.next_check_at == NOW + timedelta(minutes=15)


def test_caching_hints_lengthen_the_interval_up_to_an_hour() -> None:
    quick = state(interval_seconds=300)
    hinted = ok(**{"cache-control": "max-age=1800"})
    assert decide(quick, hinted, NOW, HOUR).next_check_at == NOW + timedelta(minutes=30)
    far = ok(**{"cache-control": "public, max-age=86400"})
    assert decide(quick, far, NOW, HOUR).next_check_at == NOW + timedelta(hours=1)
    not_modified = FetchResult(304, "u", headers={"cache-control": "max-age=1200"})
    assert decide(quick, not_modified, NOW, HOUR).pace_seconds == 1200
    assert decide(state(), far, NOW, 2 * HOUR).pace_seconds == 2 * HOUR  # never shorter
    assert decide(state(interval_seconds=300, ttl_seconds=600), ok(), NOW, HOUR).pace_seconds == 600


def test_a_parsed_ttl_settles_the_pace() -> None:
    feed = state(interval_seconds=300)
    result = ok(BODY + b" ", **{"cache-control": "max-age=400"})
    intent = decide(feed, result, NOW, HOUR)
    settled = after_parse(intent, feed, result, 1200, HOUR)
    assert (settled.pace_seconds, settled.ttl_seconds) == (1200, 1200)
    assert settled.next_check_at == NOW + timedelta(minutes=20)
    without = after_parse(intent, feed, result, None, HOUR)
    assert (without.pace_seconds, without.ttl_seconds) == (400, None)
    assert after_parse(intent, state(), result, None, HOUR).pace_seconds == HOUR


def test_a_permanent_redirect_to_a_304_still_moves_the_feed() -> None:
    moved = FetchResult(304, "https://new.example/feed/", moved_to="https://new.example/feed/")
    intent = decide(state(), moved, NOW, HOUR)
    assert (intent.kind, intent.new_url, intent.quiet) == (
        PollKind.NOT_MODIFIED,
        "https://new.example/feed/",
        False,
    )
