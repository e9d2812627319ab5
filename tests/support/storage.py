"""Storage helpers for tests/db: the moment the rows are made at, and queued messages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from bot.core.types import MessageKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.store import OutboxRow

NOW = datetime(2026, 9, 8, 12, 0, tzinfo=UTC)
LEASE = NOW + timedelta(minutes=2)


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
