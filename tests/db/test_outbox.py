"""The outbox states (`store/outbox.py`): a message is marked sent once, and only while it is
pending."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from bot.db import direct, store
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
    with direct.begin(engine) as tx:
        assert store.mark_sent(tx, [(first or 0, NOW, 7), (second or 0, NOW, 8)]) == [
            True,
            False,
        ]
        assert store.mark_sent(tx, [(first or 0, NOW, 9)]) == [False]  # not twice
        assert store.mark_sent(tx, []) == []
    with Session(engine) as session:
        assert store.original_message_id(session, chat_id=1, item_id=1) == 7  # its id is kept
    with Session(engine) as session:
        assert store.pending_count(session) == 0
