"""A quiet poll's next check counts from its own poll, not from when its batch is written
(issue 30: in a long cycle every 304 was pushed back by the cycle's length), and quiet polls are
written per claim batch, so their leases end with their poll."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.polls.decide import FeedIntent, FeedStatus, PollKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed
from bot.services.quiet_polls import QuietPoll, record_quiet

POLLED = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_the_next_check_counts_from_the_poll_not_from_the_write(engine: Engine) -> None:
    with transaction(engine) as session:
        feed = store.add_feed(
            session, slug="q", url="https://q.example/feed", title="Q", trusted=True
        )
    assert feed.id is not None
    intent = FeedIntent(
        PollKind.NOT_MODIFIED,
        FeedStatus.OK,
        POLLED,
        POLLED + timedelta(minutes=5),
        pace_seconds=300,
    )
    written = POLLED + timedelta(minutes=2)  # the cycle went on for two more minutes
    record_quiet(engine, [QuietPoll(feed.id, intent)], written)
    with Session(engine) as session:
        row = session.exec(select(Feed).where(Feed.id == feed.id)).one()
    assert row.next_check_at.replace(tzinfo=UTC) == POLLED + timedelta(minutes=5)
    assert row.lease_until is None
