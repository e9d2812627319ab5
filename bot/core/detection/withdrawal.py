"""Withdrawals: a post taken back by its site, told from a feed's window moving past it.

Why: a retracted post stays in every chat as if it stood. But a post leaving a feed usually
means nothing: the window rolled past it (the oldest go), grew or shrank, or the whole feed is
down or rebuilt. So a post is only a candidate when it vanished from between posts that stay
(a newer and an older one are still in the feed), and only a few at once (a feed rebuilt under
new identities loses many); a candidate is withdrawn only when its page answers 404 or 410 on
two checks hours apart (the first soon after, the second `recheck` later, at most a day), with
the feed itself still answering. A timeout, a 5xx or any other answer proves nothing: the check
is tried again later, and a candidate that never gets a clear answer within `GIVE_UP` is
dropped. A withdrawn post that appears again (in its feed, or its page answers) is "back".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

MAX_HOLES = 3  # more posts vanishing from between others at once: the feed was rebuilt
GIVE_UP = timedelta(days=2)  # a candidate with no clear answer by then is dropped
BACK_WATCH = timedelta(days=7)  # a withdrawn post's page is looked at again for this long
RETRY = timedelta(minutes=15)  # after a timeout or a 5xx, the least wait before trying again


@dataclass(frozen=True, slots=True)
class Seen:
    """A stored post of a feed as the rule needs it: when it was last in the feed and its
    place in time (published, else first seen)."""

    item_id: int
    seen_at: datetime
    when: datetime


def holes(items: Sequence[Seen]) -> list[int]:
    """Posts that left the feed at its last change while a newer and an older post stayed:
    the ids of those posts, or none when more than `MAX_HOLES` did (a rebuilt feed)."""
    if not items:
        return []
    latest = max(i.seen_at for i in items)
    present = [i.when for i in items if i.seen_at == latest]
    earlier = [i.seen_at for i in items if i.seen_at < latest]
    if not present or not earlier:
        return []
    previous = max(earlier)  # the poll before: what was in the feed until the last change
    found = [
        i.item_id for i in items if i.seen_at == previous and min(present) < i.when < max(present)
    ]
    return found if len(found) <= MAX_HOLES else []


class Answer(StrEnum):
    """What a post's page said, as far as withdrawal goes."""

    GONE = "gone"  # 404 or 410
    THERE = "there"  # 200 (or a not-modified)
    UNSURE = "unsure"  # a timeout, a 5xx, anything else: proves nothing


def answer_of(status: int | None) -> Answer:
    """`status`: the page's HTTP status, None when the fetch failed (timeout, refused)."""
    if status in (404, 410):
        return Answer.GONE
    if status in (200, 304):
        return Answer.THERE
    return Answer.UNSURE


class Step(StrEnum):
    WAIT = "wait"  # check again at `Next.at`
    WITHDRAWN = "withdrawn"  # tell the chats: withdrawn
    CLEARED = "cleared"  # not withdrawn: forget the candidate
    BACK = "back"  # a withdrawn post is on the site again: tell the chats


@dataclass(frozen=True, slots=True)
class Next:
    step: Step
    misses: int = 0
    at: datetime | None = None


def judge(
    answer: Answer,
    *,
    misses: int,
    since: datetime,
    now: datetime,
    recheck: timedelta,
    feed_ok: bool,
) -> Next:
    """A candidate's next step after one page check. `misses`: 404/410 answers so far;
    `since`: when it left the feed; `feed_ok`: the feed itself answered at its last poll."""
    if answer is Answer.THERE:
        return Next(Step.CLEARED)
    if now - since > GIVE_UP:
        return Next(Step.CLEARED)
    if answer is Answer.UNSURE or not feed_ok:
        return Next(Step.WAIT, misses, now + min(RETRY, recheck))
    if misses >= 1:
        return Next(Step.WITHDRAWN, misses + 1)
    return Next(Step.WAIT, 1, now + min(recheck, timedelta(days=1)))


def judge_withdrawn(answer: Answer, *, in_feed: bool, since: datetime, now: datetime) -> Next:
    """A withdrawn post: back when it is in its feed again or its page answers; watched for
    `BACK_WATCH`, then left alone."""
    if in_feed or answer is Answer.THERE:
        return Next(Step.BACK)
    if now - since > BACK_WATCH:
        return Next(Step.CLEARED)
    return Next(Step.WAIT)
