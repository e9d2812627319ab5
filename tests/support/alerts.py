"""A feed and a poll intent for the alert rules' tests (tests/core)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.core.polls.decide import FeedIntent, FeedState, FeedStatus, PollKind

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


DAY = timedelta(days=1)


FEED = FeedState(
    7, "quillon", "https://q.example/feed", "Quillon <Notes>", None, None, False, None, True
)


def intent(
    status: FeedStatus, *, error: str | None = None, new_url: str | None = None, at: datetime = NOW
) -> FeedIntent:
    kind = {
        FeedStatus.OK: PollKind.CHANGED,
        FeedStatus.ERROR: PollKind.ERROR,
        FeedStatus.GONE: PollKind.GONE,
    }[status]
    return FeedIntent(kind, status, at, at + DAY, error=error, new_url=new_url)
