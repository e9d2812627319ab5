"""'Sent' marks share a transaction (`services/marks.py`, issue 30): the chats whose messages were
accepted at the same moment are marked in one commit; each still learns whether its message was
still pending, and a database that refuses the write fails every waiting mark (each chat keeps
its mark and tries again: nothing is sent twice)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session, select

from bot.core.polls.duplicates import Story as StoryValue
from bot.db import direct, store
from bot.db.engine import make_engine, transaction
from bot.db.tables import Delivery, DeliveryStatus, Story
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


@pytest.fixture
def commits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each committed write of the marks (they run on the DBAPI cursor: no engine events)."""
    found: list[int] = []
    real = direct.begin

    @contextmanager
    def counted(engine: Engine) -> Iterator[direct.Direct]:
        with real(engine) as tx:
            yield tx
        found.append(1)

    monkeypatch.setattr(direct, "begin", counted)
    return found


async def test_concurrent_marks_share_one_commit(
    engine: Engine, deliveries: list[int], commits: list[int]
) -> None:
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
    engine: Engine, deliveries: list[int], commits: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Marks a few ms apart share a commit while other messages await Telegram's answer (a
    fan-out paced at 930/s had 1.45 marks a write without the wait); with nothing else out, a
    mark is written at once."""
    monkeypatch.setattr(marks_module, "WINDOW", 0.3)  # wide, so a loaded machine keeps the order

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


async def test_a_mark_and_its_story_go_to_the_driver_as_the_orm_would_write_them(
    engine: Engine, deliveries: list[int]
) -> None:
    """The per-message write skips SQLAlchemy's execution (no statement event fires: a
    `Connection` was a fifth of a message's CPU at 30 a second, issue 30), yet each value goes
    through its column type: the time reads back aware and equal, the story's list as a list."""
    statements: list[str] = []

    def seen(_c: object, _cur: object, statement: str, *_a: object) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    when = datetime(2026, 9, 8, 12, 30, 15, 123456, tzinfo=UTC)
    story = store.NewStory(1, 1, StoryValue("https://m.example/a", "A title", "An opening"))
    marks = SentMarks(engine)
    assert await marks.mark(deliveries[0], when, 77, story) is True
    assert await marks.mark(deliveries[1], when, None) is True
    event.remove(engine, "before_cursor_execute", seen)
    assert statements == []
    with Session(engine) as session:
        first, second = (session.get(Delivery, d) for d in deliveries[:2])
        told = session.exec(select(Story).where(Story.delivery_id == deliveries[0])).one()
    assert first is not None and second is not None
    assert (first.status, first.sent_at, first.message_id) == (DeliveryStatus.SENT, when, 77)
    assert (second.status, second.message_id) == (DeliveryStatus.SENT, None)
    assert (told.chat_id, told.link, told.title, told.also) == (1, story.story.link, "A title", [])
    assert told.created_at == when
    # Marked again with the same values (a commit that did not answer): still recorded so.
    assert await marks.mark(deliveries[1], when, None) is True
    assert await marks.mark(deliveries[1], when, 5) is False


async def test_a_failed_write_leaves_nothing_and_the_pool_usable(
    engine: Engine, deliveries: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A story that cannot be written rolls the marks of its transaction back (a mark without
    its story would never be compared again), and the connection goes back to the pool."""
    story = store.NewStory(1, 1, StoryValue(None, "T", ""))

    def refuse(tx: direct.Direct, stories: object, now: datetime) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "add_stories", refuse)
    marks = SentMarks(engine)
    with pytest.raises(RuntimeError, match="disk full"):
        await marks.mark(deliveries[0], NOW, 1, story)
    monkeypatch.undo()
    with Session(engine) as session:
        assert store.pending_count(session) == 4
    assert await marks.mark(deliveries[0], NOW, 1, story) is True
