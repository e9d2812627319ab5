"""'Sent' marks written together (group commit).

A message is marked sent only after Telegram accepted it, and a chat's next message waits for
that mark, so a crash repeats at most one message per chat in flight. What may be shared is the
write: every chat whose message was accepted at about the same moment joins one transaction (one
thread hop, one commit) instead of each paying its own. With one chat at a time nothing
changes; with several, the marks of a fan-out cost a fraction of a commit each.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from sqlalchemy import Engine

from bot.db import store
from bot.db.engine import writer

Mark = store.SentMark  # delivery id, when, Telegram's message id


class SentMarks:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._waiting: list[tuple[Mark, asyncio.Future[bool]]] = []
        self._writing: asyncio.Task[None] | None = None

    async def mark(self, delivery_id: int, now: datetime, message_id: int | None) -> bool:
        """Record the message as sent; False when it was no longer pending (cancelled while in
        flight). Raises what the database raised: the caller keeps the mark and tries again."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append(((delivery_id, now, message_id), future))
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_waiting())
        return await future

    async def _write_waiting(self) -> None:
        while self._waiting:
            await asyncio.sleep(0)  # the other chats' accepted messages join this batch
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
        with writer(self.engine).begin() as connection:
            return store.mark_sent(connection, marks)
