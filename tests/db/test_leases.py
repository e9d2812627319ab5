"""The lease statements (`store/leases.py`) on SQLite and PostgreSQL: a claimed feed or chat is
nobody else's until its lease ends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col

from bot.core.polls.decide import FeedState
from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.store.leases import claim_page
from bot.db.tables import Delivery, Feed
from tests.support.storage import LEASE, NOW, queue


def claim(
    engine: Engine,
    owner: str,
    now: datetime = NOW,
    *,
    limit: int | None = 1000,
    due_only: bool = True,
) -> list[FeedState]:
    with transaction(engine) as session:
        return store.claim_feeds(
            session,
            now=now,
            owner=owner,
            lease_until=now + timedelta(minutes=2),
            limit=limit,
            due_only=due_only,
        )


def test_a_claimed_feed_is_nobody_elses_until_its_lease_ends(
    engine: Engine, feed_ids: list[int]
) -> None:
    first = claim(engine, "a")
    assert [f.id for f in first] == feed_ids[:3]  # the gone feed is never polled
    assert all(isinstance(f, FeedState) for f in first)
    assert claim(engine, "b") == []
    assert [f.id for f in claim(engine, "b", NOW + timedelta(minutes=3))] == feed_ids[:3]
    with transaction(engine) as session:
        store.release_leases(session)
    assert len(claim(engine, "c", limit=2)) == 2


def test_only_due_feeds_are_claimed_unless_all_are_asked_for(
    engine: Engine, feed_ids: list[int]
) -> None:
    with transaction(engine) as session:
        session.exec(
            update(Feed)
            .where(col(Feed.id) == feed_ids[0])
            .values(next_check_at=NOW + timedelta(hours=1))
        )
    assert [f.id for f in claim(engine, "a")] == feed_ids[1:3]
    with transaction(engine) as session:
        store.release_leases(session)
    every = claim(engine, "a", due_only=False)
    assert [f.id for f in every] == [*feed_ids[1:3], feed_ids[0]]  # the most overdue first
    assert every[-1].due_at == NOW + timedelta(hours=1)


def test_a_claim_takes_the_most_overdue_feeds_first(engine: Engine, feed_ids: list[int]) -> None:
    """The scheduler claims a few feeds at a time: they must be the ones waiting longest."""
    with transaction(engine) as session:
        for minutes, feed_id in zip((1, 30, 5), feed_ids[:3], strict=True):
            session.exec(
                update(Feed)
                .where(col(Feed.id) == feed_id)
                .values(next_check_at=NOW - timedelta(minutes=minutes))
            )
    claimed = claim(engine, "a", limit=2)
    assert [f.id for f in claimed] == [feed_ids[1], feed_ids[2]]
    assert [f.due_at for f in claimed] == [NOW - timedelta(minutes=30), NOW - timedelta(minutes=5)]


def test_postgresql_workers_claim_disjoint_feeds_at_the_same_moment(
    db_url: str, feed_ids: list[int]
) -> None:
    """FOR UPDATE SKIP LOCKED: while one worker's claim is uncommitted, another skips its rows."""
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite serializes writers instead (BEGIN IMMEDIATE)")
    engine = make_engine(db_url)
    try:
        with Session(engine) as first:
            mine = store.claim_feeds(first, now=NOW, owner="a", lease_until=LEASE, limit=1)
            theirs = claim(engine, "b")  # runs while `first` still holds its row lock
            first.commit()
        assert len(mine) == 1 and len(theirs) == 2
        assert {f.id for f in mine}.isdisjoint({f.id for f in theirs})
    finally:
        engine.dispose()


def test_delivery_leases_skip_paused_chats_and_only_the_owner_renews(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    queue(engine, feed_ids[0], chats)
    with transaction(engine) as session:
        store.set_paused(session, chat_id=3, paused=True)  # also cancels its queued message
    later = datetime.now(UTC) + timedelta(minutes=1)
    with transaction(engine) as session:
        claimed = store.claim_chats(
            session, now=later, owner="a", lease_until=later + timedelta(minutes=2), limit=10
        )
    assert claimed == [1, 2]
    with transaction(engine) as session:
        assert store.claim_chats(session, now=later, owner="b", lease_until=later, limit=10) == []
        assert store.renew_chat(
            session, chat_id=1, owner="a", lease_until=later + timedelta(minutes=5)
        )
        assert not store.renew_chat(session, chat_id=1, owner="b", lease_until=later)
        assert store.renew_chats(
            session, chat_ids=[1, 2, 3], owner="a", lease_until=later + timedelta(minutes=6)
        ) == {1, 2}
        assert store.renew_chats(session, chat_ids=[1, 2], owner="b", lease_until=later) == set()
        assert store.renew_chats(session, chat_ids=[], owner="a", lease_until=later) == set()
        store.release_chats(session, chat_ids=[1, 2], owner="a")
    with Session(engine) as session:
        queues = store.pending_by_chat(session, chat_ids=[1, 2, 3])
    assert sorted(queues) == [1, 2]


def test_chats_are_claimed_by_their_oldest_due_message_past_a_long_queue(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    """The claim walks due messages in order, a page at a time: a chat with a long queue at
    the front takes one place, the chats behind it are still found, and a chat whose message
    waits for a retry is not claimed until it is due."""
    queue(engine, feed_ids[0], [3] * 30 + [2, 1])
    retry_at = datetime.now(UTC) + timedelta(hours=1)
    with transaction(engine) as session:
        session.exec(
            update(Delivery).where(col(Delivery.chat_id) == 2).values(next_attempt_at=retry_at)
        )
    later = datetime.now(UTC) + timedelta(minutes=1)
    lease = later + timedelta(minutes=2)
    with transaction(engine) as session:
        assert store.claim_chats(session, now=later, owner="a", lease_until=lease, limit=2) == [
            3,
            1,
        ]
    with transaction(engine) as session:
        assert store.claim_chats(session, now=later, owner="b", lease_until=lease, limit=9) == []
    after_retry = retry_at + timedelta(seconds=1)
    with transaction(engine) as session:
        assert store.claim_chats(
            session, now=after_retry, owner="b", lease_until=after_retry, limit=9
        ) == [3, 2, 1]  # the leases of "a" ended meanwhile


def test_a_claim_reads_the_outbox_through_its_queue_index(sqlite_url: str) -> None:
    """Ordering every waiting chat by its oldest message made a claim read the whole outbox
    (a fan-out to N chats cost N² lookups); the walk reads due messages in id order."""
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            statement = claim_page(now=NOW, after=0, size=8)
            compiled = statement.compile(engine, compile_kwargs={"literal_binds": True})
            plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}").all()
    finally:
        engine.dispose()
    steps = " / ".join(str(row[-1]) for row in plan)
    assert "SEARCH delivery USING INDEX ix_delivery_queue" in steps, steps
    assert "TEMP B-TREE" not in steps, steps  # no sort of the whole outbox


def test_pacing_counts_what_is_due_within_the_horizon_and_who_polls(
    engine: Engine, feed_ids: list[int]
) -> None:
    """The scheduler's pace: feeds due before the horizon (overdue ones too, never gone ones),
    and the workers holding leases now (at least one: the asking worker)."""
    with transaction(engine) as session:
        session.exec(
            update(Feed)
            .where(col(Feed.id) == feed_ids[0])
            .values(next_check_at=NOW + timedelta(hours=1))
        )
        assert store.pacing_counts(session, now=NOW, horizon=NOW + timedelta(minutes=5)) == (2, 1)
        assert store.pacing_counts(session, now=NOW, horizon=NOW + timedelta(hours=2)) == (3, 1)
    claim(engine, "a", limit=1)
    claim(engine, "b", limit=1)
    with Session(engine) as session:
        assert store.pacing_counts(session, now=NOW, horizon=NOW)[1] == 2
        later = NOW + timedelta(minutes=3)  # both leases ended
        assert store.pacing_counts(session, now=later, horizon=later)[1] == 1
