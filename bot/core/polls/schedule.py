"""When to poll a feed next: its interval (its own, else the setting, lengthened by its own
caching hints up to an hour), exponential backoff after errors, Retry-After."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

MAX_BACKOFF = timedelta(hours=24)
# The state row the poller writes when a cycle finishes and `health` reads (another process).
LAST_CYCLE_KEY = "last_poll_cycle_finished"


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


# A feed's own hints (Cache-Control max-age, RSS <ttl>) may slow its polling down to this, never
# further, and never speed it up past the interval set for it.
MAX_HINTED = timedelta(hours=1)
_MAX_AGE = re.compile(r"(?:^|,)\s*max-age\s*=\s*\"?(\d{1,10})\"?\s*(?:,|$)", re.IGNORECASE)
_DURATION = re.compile(r"^\s*(\d{1,6})\s*([smhd])\s*$", re.IGNORECASE)
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MIN_INTERVAL = timedelta(minutes=1)
MAX_INTERVAL = timedelta(days=7)


def pace(base_seconds: float, *hints: float | None) -> float:
    """The interval to poll at: `base_seconds` (the feed's own, else the setting), lengthened by
    the largest hint up to one hour."""
    hinted = max((h for h in hints if h is not None and h > 0), default=0.0)
    return max(base_seconds, min(hinted, MAX_HINTED.total_seconds()))


def max_age(cache_control: str | None) -> float | None:
    """`max-age` of a Cache-Control header, in seconds (None when absent or unreadable)."""
    found = _MAX_AGE.search(cache_control or "")
    return float(found.group(1)) if found else None


def parse_duration(text: str) -> int:
    """`90s`, `15m`, `2h`, `1d` → seconds, between one minute and a week."""
    found = _DURATION.match(text)
    if found is None:
        raise ValueError(f"not a duration: {text!r} (use e.g. 15m, 2h or 1d)")
    seconds = int(found.group(1)) * _UNIT[found.group(2).lower()]
    if not MIN_INTERVAL.total_seconds() <= seconds <= MAX_INTERVAL.total_seconds():
        raise ValueError("an interval is between 1m and 7d")
    return seconds


def format_duration(seconds: float) -> str:
    """The shortest exact `Nd`/`Nh`/`Nm`/`Ns` form (`900` → `15m`)."""
    whole = int(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole >= size and whole % size == 0:
            return f"{whole // size}{unit}"
    return f"{whole}s"
