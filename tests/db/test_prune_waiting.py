"""Pruning past `MAX_ITEMS_PER_FEED` never loses a waiting message silently (issue 40): an item
whose message is still to be sent, or held for a digest or quiet hours, is kept until its
message goes, past the cap by at most the cap again; past that the oldest go and a warning
says how many messages went with them. On the old main every pruned item took its pending and
held messages with it, without a word."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from bot.core.types import MessageKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.store import OutboxRow
from bot.db.tables import Delivery, DeliveryStatus, Item
from tests.support.storage import NOW

LONG_AGO = NOW - timedelta(days=365)


def items(engine: Engine, feed_id: int, count: int, statuses: dict[int, str]) -> list[int]:
    """`count` items absent from the feed's document, item 0 the oldest; item n has a message
    to chat 1 in `statuses[n]` when given."""
    with transaction(engine) as session:
        made = [
            Item(feed_id=feed_id, key=f"i{n}", title=f"Post {n}", fingerprint="f",
                 first_seen_at=NOW - timedelta(hours=200 - n),
                 last_seen_at=NOW - timedelta(hours=100 - n))
            for n in range(count)
        ]  # fmt: skip
        session.add_all(made)
        session.flush()
        ids = [item.id or 0 for item in made]
        rows = [
            OutboxRow(1, feed_id, ids[n], MessageKind.NEW, f"post {n}", held=status == "held")
            for n, status in statuses.items()
        ]
        store.enqueue(session, rows=rows)
        for n, status in statuses.items():
            if status not in ("held", "pending"):
                session.exec(
                    update(Delivery).where(col(Delivery.item_id) == ids[n]).values(status=status)
                )
    return ids


def keys(engine: Engine, feed_id: int) -> set[str]:
    with Session(engine) as session:
        return set(session.exec(select(Item.key).where(Item.feed_id == feed_id)).all())


def waiting(engine: Engine) -> int:
    with Session(engine) as session:
        rows = session.exec(select(Delivery.status)).all()
    return sum(1 for s in rows if s in (DeliveryStatus.PENDING, DeliveryStatus.HELD))


def prune(engine: Engine, feed_id: int, keep: int, since: datetime = LONG_AGO) -> int:
    with transaction(engine) as session:
        return store.prune_items(
            session,
            feed_id=feed_id,
            unseen_since=since,
            keep=keep,
            seen_at=NOW,
        )


def test_items_whose_messages_wait_are_kept_past_the_cap(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    feed = feed_ids[0]
    statuses = {0: "pending", 1: "held", 2: "sent", 3: "digested", 4: "cancelled", 5: "failed"}
    items(engine, feed, 30, statuses)
    assert prune(engine, feed, keep=20) == 8  # items 2-9: 10 past the cap, 2 still waiting
    assert keys(engine, feed) == {f"i{n}" for n in (0, 1, *range(10, 30))}
    assert waiting(engine) == 2
    with transaction(engine) as session:  # both go out (or become a digest) …
        session.exec(update(Delivery).values(status=DeliveryStatus.SENT))
    assert prune(engine, feed, keep=20) == 2  # … and their posts follow on the next poll
    assert keys(engine, feed) == {f"i{n}" for n in range(10, 30)}


def test_long_absent_items_wait_for_their_messages_too(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    feed = feed_ids[0]
    items(engine, feed, 5, {0: "held", 1: "sent"})
    assert prune(engine, feed, keep=20, since=NOW) == 4  # all absent since NOW but item 0
    assert keys(engine, feed) == {"i0"} and waiting(engine) == 1


def test_past_twice_the_cap_the_oldest_go_with_a_warning(
    engine: Engine, feed_ids: list[int], chats: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    feed = feed_ids[0]
    items(engine, feed, 50, dict.fromkeys(range(50), "held"))
    caplog.set_level(logging.WARNING)
    assert prune(engine, feed, keep=20) == 10
    assert keys(engine, feed) == {f"i{n}" for n in range(10, 50)}  # 20, and 20 more waiting
    assert waiting(engine) == 40
    assert "10 waiting message(s) of 10 post(s) dropped" in caplog.text
    assert "MAX_ITEMS_PER_FEED (20)" in caplog.text
