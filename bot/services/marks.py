"""'Sent' marks written together (group commit).

A message is marked sent only after Telegram accepted it, and a chat's next message waits for
that mark, so a crash repeats at most one message per chat in flight. What may be shared is the
write: every chat whose message was accepted at about the same moment joins one transaction (one
thread hop, one commit) instead of each paying its own. With one chat at a time nothing
changes; with several, the marks of a fan-out cost a fraction of a commit each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Engine

from bot.db import direct, store

Mark = store.SentMark  # delivery id, when, Telegram's message id


WINDOW = 0.004  # seconds a write waits for marks still on their way, while sends are out


def _none() -> int:
    return 0


class SentMarks:
    def __init__(self, engine: Engine, *, sending: Callable[[], int] = _none) -> None:
        self.engine = engine
        self.sending = sending  # how many other messages are awaiting Telegram's answer
        self._waiting: list[tuple[Mark, asyncio.Future[bool]]] = []
        self._stories: dict[int, store.NewStory] = {}  # a new post's story, by delivery id
        self._writing: asyncio.Task[None] | None = None

    async def mark(
        self,
        delivery_id: int,
        now: datetime,
        message_id: int | None,
        story: store.NewStory | None = None,
    ) -> bool:
        """Record the message as sent (and the story it tells, in the same transaction); False
        when it was no longer pending (cancelled while in flight). Raises what the database
        raised: the caller keeps the mark and tries again."""
        if story is not None:
            self._stories[delivery_id] = story
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append(((delivery_id, now, message_id), future))
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_waiting())
        return await future

    async def _write_waiting(self) -> None:
        while self._waiting:
            # The other chats' accepted messages join this batch. While sends are out, the
            # write waits a few ms for their answers (PostgreSQL's commit_delay): a fan-out
            # paced at 930/s had 1.45 marks a write, each a commit and a thread hop.
            await asyncio.sleep(WINDOW if self.sending() else 0)
            batch, self._waiting = self._waiting, []
            try:
                pending = await asyncio.to_thread(self._write, [mark for mark, _ in batch])
            except Exception as exc:  # every mark of the batch is kept by its chat
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), still_pending in zip(batch, pending, strict=True):
                if not future.done():
                    future.set_result(still_pending)

    def _write(self, marks: list[Mark]) -> list[bool]:
        """On the DBAPI cursor (`db/direct.py`): at 30 messages a second each message pays a
        write of its own, and SQLAlchemy's `Connection` was about a fifth of a message's CPU."""
        with direct.begin(self.engine) as tx:
            pending = store.mark_sent(tx, marks)
            stories = [
                (mark[0], self._stories[mark[0]])
                for mark, still in zip(marks, pending, strict=True)
                if still and mark[0] in self._stories
            ]
            store.add_stories(tx, stories, marks[0][1])
        for mark in marks:
            self._stories.pop(mark[0], None)
        return pending
