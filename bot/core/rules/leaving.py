"""Leaving a feed costs nothing by a slip (`/unsubscribe`). A subscription that ends is marked
as left, not deleted: for `undo_minutes` the answer's Undo brings it back as it was, and for
`keep_days` subscribing again brings back the chat's settings for that feed (filters, rules,
format, edits, digest, topic…). Then housekeeping forgets it. Left subscriptions get nothing
and count for nothing meanwhile (no routing, no limit, not in /list).

Why: a bare `/unsubscribe` in a one-feed chat used to delete the rules set a minute before;
rebuilding them from memory is the cost of a slip, so the bot keeps them instead."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


@dataclass(frozen=True, slots=True)
class Keeping:
    """How long a left subscription can be undone, and how long its settings are kept."""

    undo_minutes: int = 10
    keep_days: int = 30

    def undo_since(self, now: datetime) -> datetime:
        """Subscriptions left at or after this can still be undone."""
        return now - timedelta(minutes=self.undo_minutes)

    def kept_since(self, now: datetime) -> datetime:
        """Subscriptions left before this are forgotten; after it, resubscribing restores."""
        return now - timedelta(days=self.keep_days)


def returning_topic(kept: int | None, asked: int | None) -> int | None:
    """The forum topic of a restored subscription: where it was subscribed again, when that
    was a topic; from the chat's main thread, the topic it had (it is one of its settings)."""
    return asked if asked is not None else kept


def stamp(left_at: datetime) -> int:
    """`left_at` as whole seconds since the epoch: what an Undo of several feeds carries."""
    return int(left_at.timestamp())


def stamped(value: int) -> tuple[datetime, datetime]:
    """The second a stamp stands for: subscriptions left together lie in [start, end)."""
    start = datetime.fromtimestamp(value, UTC)
    return start, start + timedelta(seconds=1)
