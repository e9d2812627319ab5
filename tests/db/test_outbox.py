"""The outbox states (`store/outbox.py`): a message is marked sent once, and only while it is
pending."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from bot.db import store
from bot.db.engine import transaction
from tests.support.storage import NOW, queue


def test_mark_sent_only_moves_a_pending_message(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    queue(engine, feed_ids[0], [1, 2])
    with Session(engine) as session:
        first, second = (q[0].id for q in store.pending_by_chat(session, chat_ids=[1, 2]).values())
    with transaction(engine) as session:
        assert store.unsubscribe(session, chat_id=2, feed_id=feed_ids[0]) == 1  # cancels its row
    with engine.begin() as connection:
        assert store.mark_sent(connection, delivery_id=first or 0, now=NOW)
        assert not store.mark_sent(connection, delivery_id=second or 0, now=NOW)
        assert not store.mark_sent(connection, delivery_id=first or 0, now=NOW)  # not twice
    with Session(engine) as session:
        assert store.pending_count(session) == 0
