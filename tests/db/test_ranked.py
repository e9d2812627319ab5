"""The ranked digest's storage (`store/ranked.py`, `set_digest_all`): every feed of a chat on
one schedule with its `digest_top`, off again; held posts taken compare-and-set, so a digest
another worker queued first is not queued twice."""

from __future__ import annotations

from datetime import time

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.core.messages.digest import DAILY, DigestSchedule
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Delivery, DeliveryStatus
from tests.support.storage import NOW


def test_digest_all_sets_every_feed_and_the_chats_top(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    with transaction(engine) as session:
        store.subscribe(session, chat_id=1, feed_id=feed_ids[1])
    daily = DigestSchedule(DAILY, time(8))
    with transaction(engine) as session:
        assert store.set_digest_all(session, chat_id=1, schedule=daily, top=3, now=NOW) == (
            2,
            "UTC",
        )
        assert store.set_digest_all(session, chat_id=99, schedule=daily, top=3, now=NOW) == (
            0,
            "UTC",
        )
    with Session(engine) as session:
        assert store.chat_digest_top(session, chat_id=1) == 3
        assert store.chat_digest_top(session, chat_id=2) is None
        assert store.chat_digest_top(session, chat_id=99) is None
        due = [d for d in store.digest_subscriptions(session) if d.audience.chat_id == 1]
    assert sorted(d.audience.feed_id for d in due) == sorted(feed_ids[:2])
    assert all(d.top == 3 and d.schedule == daily and d.last == NOW for d in due)
    with transaction(engine) as session:
        assert store.set_digest_all(session, chat_id=1, schedule=None, top=3, now=NOW) == (2, "UTC")
    with Session(engine) as session:
        assert store.chat_digest_top(session, chat_id=1) is None
        assert not [d for d in store.digest_subscriptions(session) if d.audience.chat_id == 1]


def test_held_posts_are_taken_once(engine: Engine, feed_ids: list[int], chats: list[int]) -> None:
    with transaction(engine) as session:
        rows = [
            Delivery(chat_id=1, feed_id=feed_ids[0], kind="new", text="x", status=status)
            for status in (DeliveryStatus.HELD, DeliveryStatus.HELD, DeliveryStatus.PENDING)
        ]
        session.add_all(rows)
        session.flush()
        ids = [r.id or 0 for r in rows]
    with transaction(engine) as session:
        assert store.take_held(session, delivery_ids=ids) == set(ids[:2])
    with transaction(engine) as session:
        assert store.take_held(session, delivery_ids=ids) == set()  # the other worker's try
        assert store.take_held(session, delivery_ids=[]) == set()
    with Session(engine) as session:
        statuses = session.exec(select(Delivery.status).order_by(col(Delivery.id))).all()
    assert statuses == [DeliveryStatus.DIGESTED, DeliveryStatus.DIGESTED, DeliveryStatus.PENDING]
