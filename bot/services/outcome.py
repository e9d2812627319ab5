"""What one poll of one feed came to, for the cycle's report and the command line. Its own
module so that a quiet poll needs nothing of the changed path (`poll_result.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.polls.decide import PollKind
from bot.core.types import Change


@dataclass
class PollOutcome:
    """What happened to one feed in one poll."""

    slug: str
    outcome: PollKind
    changes: tuple[Change, ...] = ()
    error: str | None = None
    items: int = 0
    feed_title: str = ""
