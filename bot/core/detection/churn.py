"""A feed that gives its posts new identities on every poll (churn).

Such a feed (hostile, or a broken generator that puts a timestamp in every GUID) looked like a
whole new window of posts each poll: stored silently as history, it added 10.7 MB per poll to
the database. Storage keeps at most `MAX_ITEMS_PER_FEED` items per feed whatever happens; this
rule notices the pattern, tells the operators once, and polls the feed less often.
"""

from __future__ import annotations

from dataclasses import dataclass

CHURN_MIN_ITEMS = 10  # a small feed's few new posts are never churn
CHURN_SHARE = 0.9  # of the document's items new in one poll
CHURN_POLLS = 3  # in a row: one such poll is a migration, three are a habit
SLOW_FACTOR = 4
SLOW_MIN_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class ChurnStep:
    """What this poll makes of the feed's churn count."""

    polls: int  # consecutive polls that stored (almost) every item as new
    alert: bool  # the operators hear of it now (once, when the habit is established)
    slowed: bool  # polled at `slowed_pace` until a poll looks normal again


def churn_step(previous: int, inserted: int, present: int) -> ChurnStep:
    """`inserted`: items stored as never seen before in this poll, of `present` in the
    document (re-keyed items are not inserted)."""
    churning = inserted >= CHURN_MIN_ITEMS and inserted >= CHURN_SHARE * present
    polls = previous + 1 if churning else 0
    return ChurnStep(polls, polls == CHURN_POLLS, polls >= CHURN_POLLS)


def slowed_pace(pace_seconds: float) -> float:
    return max(pace_seconds * SLOW_FACTOR, SLOW_MIN_SECONDS)
