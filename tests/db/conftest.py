"""Rows the storage tests start from: four feeds (one gone, all due) and three chats
following the first."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import col

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed
from tests.support.storage import NOW


@pytest.fixture
def feed_ids(engine: Engine) -> list[int]:
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


@pytest.fixture
def chats(engine: Engine, feed_ids: list[int]) -> Iterator[list[int]]:
    with transaction(engine) as session:
        for chat_id in (1, 2, 3):
            store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
            store.subscribe(session, chat_id=chat_id, feed_id=feed_ids[0])
    yield [1, 2, 3]
