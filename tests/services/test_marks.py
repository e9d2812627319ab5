"""'Sent' marks share a transaction (`services/marks.py`, issue 30): the chats whose messages were
accepted at the same moment are marked in one commit; each still learns whether its message was
still pending, and a database that refuses the write fails every waiting mark (each chat keeps
its mark and tries again: nothing is sent twice)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session

from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.services import marks as marks_module
from bot.services.marks import SentMarks
from tests.support.storage import NOW, queue


def pending_ids(engine: Engine, chat_ids: list[int]) -> list[int]:
    with Session(engine) as session:
        queues = store.pending_by_chat(session, chat_ids=chat_ids)
    return [queues[c][0].id or 0 for c in chat_ids]


@pytest.fixture
def deliveries(engine: Engine) -> list[int]:
    with transaction(engine) as session:
        feed = store.add_feed(session, slug="m", url="https://m.example/", title="M", trusted=True)
        for chat_id in (1, 2, 3, 4):
            store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
            store.subscribe(session, chat_id=chat_id, feed_id=feed.id or 0)
    queue(engine, feed.id or 0, [1, 2, 3, 4])
    return pending_ids(engine, [1, 2, 3, 4])


async def test_concurrent_marks_share_one_commit(engine: Engine, deliveries: list[int]) -> None:
    commits: list[int] = []
    event.listen(engine, "commit", lambda connection: commits.append(1))
    with transaction(engine) as session:  # chat 4 left while its message was in flight
        store.unsubscribe(session, chat_id=4, feed_id=1)
    commits.clear()
    marks = SentMarks(engine)
    results = await asyncio.gather(*(marks.mark(d, NOW, 100 + n) for n, d in enumerate(deliveries)))
    assert results == [True, True, True, False]
    assert len(commits) == 1
    with Session(engine) as session:
        assert store.pending_count(session) == 0
    later = NOW + timedelta(seconds=1)
    assert await marks.mark(deliveries[0], later, 100) is False  # never marked twice
    assert len(commits) == 2  # alone, a mark is its own commit
    # The same mark again (its commit failed to answer, say) is already recorded: idempotent.
    assert await marks.mark(deliveries[1], NOW, 101) is True
    with Session(engine) as session:
        assert store.original_message_id(session, chat_id=1, item_id=1) == 100


async def test_a_refused_write_fails_every_waiting_mark(tmp_path: Path) -> None:
    empty = make_engine(f"sqlite:///{tmp_path / 'no-tables.db'}")  # every UPDATE is refused
    marks = SentMarks(empty)
    results = await asyncio.gather(
        *(marks.mark(n, NOW, None) for n in (1, 2, 3)), return_exceptions=True
    )
    assert all(isinstance(r, Exception) and "no such table" in str(r) for r in results)
    empty.dispose()


async def test_while_sends_are_out_a_write_waits_for_their_marks(
    engine: Engine, deliveries: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Marks a few ms apart share a commit while other messages await Telegram's answer (a
    fan-out paced at 930/s had 1.45 marks a write without the wait); with nothing else out, a
    mark is written at once."""
    monkeypatch.setattr(marks_module, "WINDOW", 0.3)  # wide, so a loaded machine keeps the order
    commits: list[int] = []
    event.listen(engine, "commit", lambda connection: commits.append(1))

    async def spaced(marks: SentMarks, ids: list[int]) -> list[bool]:
        async def one(n: int, delivery_id: int) -> bool:
            await asyncio.sleep(0.03 * n)
            return await marks.mark(delivery_id, NOW, 100 + n)

        return await asyncio.gather(*(one(n, d) for n, d in enumerate(ids)))

    out = [1]
    assert await spaced(SentMarks(engine, sending=lambda: len(out)), deliveries[:3]) == [True] * 3
    assert len(commits) == 1
    commits.clear()
    started = asyncio.get_running_loop().time()
    assert await SentMarks(engine).mark(deliveries[3], NOW, 104) is True
    assert len(commits) == 1 and asyncio.get_running_loop().time() - started < 0.3
