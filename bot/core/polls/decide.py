"""The feed decision: a fetch result and the feed's stored state in, an intent out.

Like lemon24/reader's `Decider`, this touches nothing (no database, no clock, no network): the
poll pipeline reads `FeedState` from storage, fetches, calls `decide`, and hands the returned
`FeedIntent` to storage. Every rule about what a response means for the feed lives here once:
304 and an identical body are quiet polls, 410 retires the feed, other statuses and transport
errors back off, a permanent redirect moves the feed, and anything else is parsed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from bot.core.polls.schedule import max_age, next_check, pace


class FeedStatus(StrEnum):
    OK = "ok"
    ERROR = "error"
    GONE = "gone"


class PollKind(StrEnum):
    """What one poll of one feed came to (also the `outcome` label of the poll metric)."""

    NOT_MODIFIED = "not-modified"
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    BASELINE = "baseline"
    ERROR = "error"
    GONE = "gone"


QUIET = frozenset({PollKind.NOT_MODIFIED, PollKind.UNCHANGED})


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What the fetcher got (from the edge, as plain data): status, final URL, body, headers."""

    status: int
    url: str
    moved_to: str | None = None
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    retry_after: float | None = None

    @property
    def etag(self) -> str | None:
        return _bounded(self.headers.get("etag"), MAX_ETAG_CHARS)

    @property
    def last_modified(self) -> str | None:
        return _bounded(self.headers.get("last-modified"), MAX_LAST_MODIFIED_CHARS)


# Validators longer than these are nobody's real ones (a date is 29 characters): they are not
# kept, so one feed's hostile header can never fail the batch write of every quiet poll.
MAX_ETAG_CHARS = 1024
MAX_LAST_MODIFIED_CHARS = 256


def _bounded(value: str | None, limit: int) -> str | None:
    return value if value is not None and len(value) <= limit else None


@dataclass(frozen=True, slots=True)
class FeedState:
    """What a poll needs to know about a feed, read from storage (reader's FeedForUpdate)."""

    id: int
    slug: str
    url: str
    title: str
    etag: str | None
    last_modified: str | None
    trusted: bool
    body_hash: str | None
    baseline_done: bool
    error_count: int = 0
    interval_seconds: int | None = None  # the feed's own pace (`feed set --interval`)
    ttl_seconds: int | None = None  # its RSS <ttl>, read at the last parse
    failing_since: datetime | None = None  # the first failed poll of the current failure
    alert: str | None = None  # what operators were last told (core/polls/alerts.py)
    alerted_at: datetime | None = None  # and when
    churn_polls: int | None = (
        None  # consecutive polls that stored every item as new (core/detection/churn.py)
    )
    full_text: bool = (
        False  # new posts' pages are read for their article (core/messages/fulltext.py)
    )
    due_at: datetime | None = None  # when its poll was due (the scheduler's delay)
    added_by: int | None = None  # who added it from a chat (None: an operator's feed)
    edits: bool = True  # its edits are reported (`feed set --edits off`: new posts only)

    @property
    def validators(self) -> tuple[str | None, str | None]:
        return (self.etag, self.last_modified)


@dataclass(frozen=True, slots=True)
class FeedIntent:
    """What storage should make of the feed row after this poll (reader's FeedUpdateIntent).

    `parse` is set when the body is new: the caller parses it, detects changes against the
    stored items, and then stores `body_hash` and `baseline_done`.
    """

    kind: PollKind
    status: FeedStatus
    checked_at: datetime
    next_check_at: datetime
    error: str | None = None
    error_count: int = 0
    etag: str | None = None
    last_modified: str | None = None
    validators_changed: bool = False
    new_url: str | None = None
    body_hash: str | None = None
    parse: bool = False
    pace_seconds: float = 0.0  # the healthy interval this poll settled on
    ttl_seconds: int | None = None  # the body's <ttl>, once parsed

    @property
    def quiet(self) -> bool:
        """Nothing but the schedule (and maybe validators) changes: batched per cycle. A move
        (a permanent redirect, even to a 304) is never quiet: the feed's URL changes."""
        return self.kind in QUIET and self.new_url is None


def decide(
    feed: FeedState,
    result: FetchResult | str,
    now: datetime,
    interval_seconds: float,
) -> FeedIntent:
    """The one place a response is interpreted. `result` is a fetch result or an error line.

    `interval_seconds` is the setting; the feed's own interval replaces it, and the feed's
    caching hints (Cache-Control max-age, RSS ttl) may lengthen it up to an hour."""
    base = feed.interval_seconds or interval_seconds
    if isinstance(result, str):
        return failed(feed, result, now, base)
    interval = pace(base, max_age(result.headers.get("cache-control")), feed.ttl_seconds)
    healthy = next_check(now, interval)
    if result.status == 304:
        etag = result.etag or feed.etag
        return FeedIntent(
            PollKind.NOT_MODIFIED,
            FeedStatus.OK,
            now,
            healthy,
            etag=etag,
            last_modified=feed.last_modified,
            validators_changed=(etag, feed.last_modified) != feed.validators,
            new_url=result.moved_to,
            pace_seconds=interval,
        )
    if result.status == 410:
        return FeedIntent(
            PollKind.GONE,
            FeedStatus.GONE,
            now,
            healthy,
            error="HTTP 410 Gone: feed disabled",
            error_count=feed.error_count,
            etag=feed.etag,
            last_modified=feed.last_modified,
            pace_seconds=interval,
        )
    if result.status != 200:
        return failed(feed, f"HTTP {result.status}", now, base, retry_after=result.retry_after)
    body_hash = hashlib.sha256(result.body).hexdigest()
    validators = (result.etag, result.last_modified)
    if feed.baseline_done and not result.moved_to and body_hash == feed.body_hash:
        return FeedIntent(  # the server ignored our validators
            PollKind.UNCHANGED,
            FeedStatus.OK,
            now,
            healthy,
            etag=result.etag,
            last_modified=result.last_modified,
            validators_changed=validators != feed.validators,
            pace_seconds=interval,
        )
    return FeedIntent(
        PollKind.BASELINE if not feed.baseline_done else PollKind.CHANGED,
        FeedStatus.OK,
        now,
        healthy,
        etag=result.etag,
        last_modified=result.last_modified,
        validators_changed=validators != feed.validators,
        new_url=result.moved_to,
        body_hash=body_hash,
        parse=True,
        pace_seconds=interval,
    )


def after_parse(
    intent: FeedIntent,
    feed: FeedState,
    result: FetchResult,
    ttl_seconds: int | None,
    interval_seconds: float,
) -> FeedIntent:
    """A body's own <ttl> is known only once it is parsed: settle the pace with it."""
    base = feed.interval_seconds or interval_seconds
    interval = pace(base, max_age(result.headers.get("cache-control")), ttl_seconds)
    return replace(
        intent,
        next_check_at=next_check(intent.checked_at, interval),
        pace_seconds=interval,
        ttl_seconds=ttl_seconds,
    )


def failed(
    feed: FeedState,
    reason: str,
    now: datetime,
    interval_seconds: float,
    *,
    retry_after: float | None = None,
) -> FeedIntent:
    """An error: back off exponentially (never before Retry-After), keep the validators."""
    errors = feed.error_count + 1
    return FeedIntent(
        PollKind.ERROR,
        FeedStatus.ERROR,
        now,
        next_check(
            now, interval_seconds, consecutive_errors=errors, retry_after_seconds=retry_after
        ),
        error=reason[:1000],
        error_count=errors,
        etag=feed.etag,
        last_modified=feed.last_modified,
        pace_seconds=interval_seconds,
    )
