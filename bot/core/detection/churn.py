"""A feed that gives its posts new identities on every poll (churn).

Such a feed (hostile, or a broken generator that puts a timestamp in every GUID) looked like a
whole new window of posts each poll: stored silently as history, it added 10.7 MB per poll to
the database. Storage keeps at most `MAX_ITEMS_PER_FEED` items per feed whatever happens; this
rule notices the pattern, tells the operators once, and polls the feed less often.

A milder habit, re-issues (`reissued`): an aggregator (a planet) re-publishes the same upstream
entries under new dates every few hours (weather forecasts, photo feeds): 62 "Updated:"
messages in 30 builds of one planet. Detection stays as it is; `feed add` tells the operator
when items of the document were stamped together by one build within the last day, so the
feed can be set to new posts only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, time, timedelta

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


REISSUE_WINDOW = timedelta(days=1)
REISSUE_MIN_ITEMS = 3  # two pages sharing a theme's default date is no habit


def reissued(dates: Iterable[datetime | None]) -> tuple[int, int]:
    """(items that look re-issued, all items): those dated within a day of the document's
    newest item that share their timestamp, to the second, with another item; counted when
    there are at least `REISSUE_MIN_ITEMS` of them, else 0.

    Items stamped together were issued by one build (a planet's forecasts re-dated every six
    hours, posts a scraper dates with its build time), while a busy news site's posts carry
    their own times. A date without a time (midnight) says nothing of a build: several posts
    of one day share it. Measured from the document's own newest date, not the clock, so a
    planet rebuilt hours ago reads the same. Of the 195 recorded versions of issue 44, it
    flags the planet and the feed whose scraper re-dates its posts, and none of the others."""
    every = list(dates)
    dated = [d for d in every if d is not None]
    if not dated:
        return (0, len(every))
    newest = max(dated)
    near = Counter(d for d in dated if newest - d <= REISSUE_WINDOW and d.time() != time(0, 0))
    together = sum(n for n in near.values() if n >= 2)
    return (together if together >= REISSUE_MIN_ITEMS else 0, len(every))
