"""Who may spend the operator's model calls this hour: shares per feed and per person.

`MODEL_MAX_CALLS_PER_HOUR` is the whole budget, counted per clock hour across every process
(storage keeps one row per share). An operator's feed draws only on the whole budget: it
comes first. A chat-added feed also draws on three shares of it, each a fraction: all
chat-added feeds together (so operator feeds always keep the rest), everything one person
added, and the feed itself. One feed gaining ten posts a poll in three languages once spent
199 calls in two minutes and left every other chat with extractive summaries for the hour;
with the defaults it spends a tenth of the hour and the others keep theirs.

The first refusal of a share in an hour is reported once (`Grant.spent`), whichever process
meets it: operators hear which feed spent it, once, not on every poll.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum


class ShareKind(StrEnum):
    ALL = "all"  # the whole hour's budget
    CHAT_FEEDS = "chat-feeds"  # every chat-added feed together
    OWNER = "owner"  # every feed one person added
    FEED = "feed"  # one chat-added feed


@dataclass(frozen=True, slots=True)
class Share:
    kind: ShareKind
    name: str  # the storage row's name: one per share, shared by every process
    limit: int  # calls per clock hour


@dataclass(frozen=True, slots=True)
class Fractions:
    """The settings: the whole budget and each share's fraction of it."""

    per_hour: int
    chat_feeds: float = 0.5
    owner: float = 0.2
    feed: float = 0.1


@dataclass(frozen=True, slots=True)
class Spent:
    """One share's use in one clock hour (`hour`: hours since 1970, UTC)."""

    hour: int
    used: int = 0
    refused: int = 0


@dataclass(frozen=True, slots=True)
class Grant:
    granted: int
    spent: tuple[Share, ...] = ()  # shares refused for the first time this hour


def shares_of(
    feed_id: int, trusted: bool, added_by: int | None, fractions: Fractions
) -> tuple[Share, ...]:
    """The shares a feed's calls draw on: the whole budget, and for a chat-added feed the
    chat feeds', its adder's and its own."""
    whole = Share(ShareKind.ALL, "model", fractions.per_hour)
    if trusted:
        return (whole,)
    found = [
        whole,
        Share(ShareKind.CHAT_FEEDS, "model:chat", _part(fractions, fractions.chat_feeds)),
    ]
    if added_by is not None:
        found.append(
            Share(ShareKind.OWNER, f"model:user:{added_by}", _part(fractions, fractions.owner))
        )
    found.append(Share(ShareKind.FEED, f"model:feed:{feed_id}", _part(fractions, fractions.feed)))
    return tuple(found)


def grant(
    asked: int, shares: Sequence[Share], spent: Mapping[str, Spent], hour: int
) -> tuple[Grant, dict[str, Spent]]:
    """How many of `asked` calls this hour's shares allow, and each share's use after them.
    A share refused for the first time this hour is named in the grant."""
    now = {s.name: _this_hour(spent.get(s.name), hour) for s in shares}
    room = min((s.limit - now[s.name].used for s in shares), default=asked)
    granted = max(0, min(asked, room))
    short = asked - granted
    after: dict[str, Spent] = {}
    first: list[Share] = []
    for share in shares:
        was = now[share.name]
        full = was.used + granted >= share.limit
        refused = was.refused + (short if full else 0)
        if short and full and was.refused == 0:
            first.append(share)
        after[share.name] = replace(was, used=was.used + granted, refused=refused)
    return Grant(granted, tuple(first)), after


def hour_of(moment: datetime) -> int:
    """The clock hour a moment falls in (an aware datetime), as storage counts it."""
    return int(moment.timestamp() // 3600)


def _this_hour(found: Spent | None, hour: int) -> Spent:
    if found is None or found.hour != hour:
        return Spent(hour)
    return found


def _part(fractions: Fractions, fraction: float) -> int:
    """A share's calls an hour: at least one while there is any budget."""
    if fractions.per_hour <= 0:
        return 0
    return max(1, int(fractions.per_hour * fraction))
