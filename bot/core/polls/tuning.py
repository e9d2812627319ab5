"""Reactions that tune (issue 46): what a 👍 or 👎 on a post's message changes.

Why: readers want to steer what they get from the message itself (miniflux #1879), and nothing
may change silently. A 👍 adds 1 to the chat's weight of the post's feed and of each of its
categories, a 👎 takes 1 away; taking a reaction back undoes it (Telegram sends the old and the
new reactions of one person, so a 👍 changed to 👎 is −2). Weights stay within ±`LIMIT`, so a
burst of reactions cannot bury a feed for good; /list and /tuning show them,
/tuning reset clears them. A 👎 also offers one tap each: mute the feed for `MUTE` (it expires
by itself), fewer posts about a category (`FEWER` more off its weight), exclude a word of the
title (the feed's keywords gain `-word`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta

UP = "👍"
DOWN = "👎"
LIMIT = 10
MUTE = timedelta(days=1)
FEWER = -3
_WORD = re.compile(r"[^\W\d_][\w'-]{3,}")
_COMMON = frozenset(
    [
        "this",
        "that",
        "with",
        "from",
        "your",
        "have",
        "about",
        "what",
        "when",
        "will",
        "into",
        "more",
        "their",
        "them",
        "then",
        "than",
        "how",
        "why",
        "new",
        "now",
        "our",
        "out",
        "over",
        "after",
    ]
)


def delta(old: Iterable[str], new: Iterable[str]) -> int:
    """How one person's reaction change moves the weights (see the module)."""
    before, after = set(old), set(new)
    return _score(after) - _score(before)


def _score(emoji: set[str]) -> int:
    return (UP in emoji) - (DOWN in emoji)


def bounded(weight: int) -> int:
    return max(-LIMIT, min(LIMIT, weight))


def word_to_exclude(title: str) -> str | None:
    """The word a 👎 offers to exclude: the title's longest word of 4+ letters that is not a
    common one (ties: the first); None when it has none."""
    best: str | None = None
    for word in _WORD.findall(title):
        if word.casefold() in _COMMON:
            continue
        if best is None or len(word) > len(best):
            best = word
    return best
