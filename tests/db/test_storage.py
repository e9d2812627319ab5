"""Storage, tested directly on SQLite and PostgreSQL (as lemon24/reader's test_storage does):
the lease statements, the typed setters, the outbox states, value objects out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col

from bot.core.decide import FeedState
from bot.core.digest import DigestSchedule, parse_schedule
from bot.core.model import CategoryFilter, KeywordFilter, MessageKind, Reader
from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.store import FeedView, OutboxRow
from bot.db.tables import Feed

NOW = datetime(2026, 9, 8, 12, 0, tzinfo=UTC)
LEASE = NOW + timedelta(minutes=2)


@pytest.fixture
def feeds(engine: Engine) -> list[int]:
    with transaction(engine) as session:
        ids = [
            store.add_feed(
                session, slug=f"f{n}", url=f"https://e.org/{n}", title=f"F{n}", trusted=True
            ).id
            for n in range(4)
        ]
        session.exec(update(Feed).values(next_check_at=NOW - timedelta(minutes=1)))
        session.exec(update(Feed).where(col(Feed.id) == ids[3]).values(status="gone"))
    return ids


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
    engine: Engine, feeds: list[int]
) -> None:
    first = claim(engine, "a")
    assert [f.id for f in first] == feeds[:3]  # the gone feed is never polled
    assert all(isinstance(f, FeedState) for f in first)
    assert claim(engine, "b") == []
    assert [f.id for f in claim(engine, "b", NOW + timedelta(minutes=3))] == feeds[:3]
    with transaction(engine) as session:
        store.release_leases(session)
    assert len(claim(engine, "c", limit=2)) == 2


def test_only_due_feeds_are_claimed_unless_all_are_asked_for(
    engine: Engine, feeds: list[int]
) -> None:
    with transaction(engine) as session:
        session.exec(
            update(Feed)
            .where(col(Feed.id) == feeds[0])
            .values(next_check_at=NOW + timedelta(hours=1))
        )
    assert [f.id for f in claim(engine, "a")] == feeds[1:3]
    with transaction(engine) as session:
        store.release_leases(session)
    assert [f.id for f in claim(engine, "a", due_only=False)] == feeds[:3]


def test_postgresql_workers_claim_disjoint_feeds_at_the_same_moment(
    db_url: str, feeds: list[int]
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


@pytest.fixture
def chats(engine: Engine, feeds: list[int]) -> Iterator[list[int]]:
    with transaction(engine) as session:
        for chat_id in (1, 2, 3):
            store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
            store.subscribe(session, chat_id=chat_id, feed_id=feeds[0])
    yield [1, 2, 3]


def queue(engine: Engine, feed_id: int, chat_ids: list[int]) -> None:
    from bot.db.tables import Item

    with transaction(engine) as session:
        session.add(Item(feed_id=feed_id, key="k", title="t", fingerprint="f"))
        session.flush()
        rows = [
            OutboxRow(chat_id=c, feed_id=feed_id, item_id=1, kind=MessageKind.NEW, text="hi")
            for c in chat_ids
        ]
        store.enqueue(session, rows=rows)


def test_delivery_leases_skip_paused_chats_and_only_the_owner_renews(
    engine: Engine, feeds: list[int], chats: list[int]
) -> None:
    queue(engine, feeds[0], chats)
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
        store.release_chats(session, chat_ids=[1, 2], owner="a")
    with Session(engine) as session:
        queues = store.pending_by_chat(session, chat_ids=[1, 2, 3])
    assert sorted(queues) == [1, 2]


def test_mark_sent_only_moves_a_pending_message(
    engine: Engine, feeds: list[int], chats: list[int]
) -> None:
    queue(engine, feeds[0], [1, 2])
    with Session(engine) as session:
        first, second = (q[0].id for q in store.pending_by_chat(session, chat_ids=[1, 2]).values())
    with transaction(engine) as session:
        assert store.unsubscribe(session, chat_id=2, feed_id=feeds[0]) == 1  # cancels its row
    with engine.begin() as connection:
        assert store.mark_sent(connection, delivery_id=first or 0, now=NOW)
        assert not store.mark_sent(connection, delivery_id=second or 0, now=NOW)
        assert not store.mark_sent(connection, delivery_id=first or 0, now=NOW)  # not twice
    with Session(engine) as session:
        assert store.pending_count(session) == 0


def test_typed_setters_and_value_objects(
    engine: Engine, feeds: list[int], chats: list[int]
) -> None:
    feed = feeds[0]
    with transaction(engine) as session:
        assert store.set_filter(
            session, chat_id=1, feed_id=feed, flt=CategoryFilter(("Blog",), ("Press",))
        )
        assert store.set_keywords(session, chat_id=1, feed_id=feed, words=KeywordFilter(("gpu",)))
        assert store.set_edits(session, chat_id=1, feed_id=feed, on=False)
        assert store.toggle_preview(session, chat_id=1, feed_id=feed)
        assert store.set_digest(
            session, chat_id=1, feed_id=feed, schedule=parse_schedule(["daily", "08:30"]), now=NOW
        )
        assert not store.set_edits(session, chat_id=1, feed_id=feeds[1], on=True)  # not subscribed
    with Session(engine) as session:
        ((reader, shown),) = store.chat_subscriptions(session, chat_id=1)
        (due,) = store.digest_subscriptions(session)
    assert isinstance(reader, Reader) and isinstance(shown, FeedView)
    assert reader.categories == CategoryFilter(("Blog",), ("Press",))
    assert reader.keywords.include == ("gpu",)
    assert (reader.edits, reader.preview, reader.digest) == (False, True, True)
    assert due.schedule == DigestSchedule(
        parse_schedule(["daily", "08:30"]).mode, parse_schedule(["daily", "08:30"]).at
    )
    assert (shown.slug, shown.title) == ("f0", "F0")
