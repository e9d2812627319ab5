"""When to poll a feed next: the interval, exponential backoff after errors, Retry-After."""

from __future__ import annotations

from datetime import datetime, timedelta

MAX_BACKOFF = timedelta(hours=24)


def next_check(
    now: datetime,
    interval_seconds: float,
    *,
    consecutive_errors: int = 0,
    retry_after_seconds: float | None = None,
) -> datetime:
    """Interval when healthy; interval·2^errors (≤ 24 h) after errors; never before Retry-After."""
    delay = timedelta(seconds=interval_seconds)
    factor: int = 2 ** min(consecutive_errors, 20)  # 1 when healthy; capped: stays small
    delay = min(delay * factor, max(MAX_BACKOFF, delay))
    if retry_after_seconds is not None:
        delay = max(delay, timedelta(seconds=min(retry_after_seconds, MAX_BACKOFF.total_seconds())))
    return now + delay
