"""Coming back after leaving a feed (core/rules/leaving.py): the Undo under "Unsubscribed", and
housekeeping that forgets subscriptions left longer ago than the chat's settings are kept.
(Leaving itself, and subscribing again with the kept settings, are `subscribing`'s.)"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.rules.leaving import Keeping, stamped
from bot.db import store
from bot.runtime.clock import Clock, utcnow
from bot.services import run


class Undone(StrEnum):
    DONE = "done"
    EXPIRED = "expired"  # left longer ago than the Undo works (or not left at all)
    LIMIT = "limit"  # the chat has subscribed to others meanwhile, up to its limit


class Returns:
    def __init__(
        self, engine: Engine, *, max_per_chat: int, keeping: Keeping, clock: Clock = utcnow
    ) -> None:
        self.engine, self.max_per_chat, self.keeping, self.clock = (
            engine,
            max_per_chat,
            keeping,
            clock,
        )

    async def undo(self, chat_id: int, feed_id: int | None, stamp: int | None = None) -> Undone:
        """Undo leaving one feed, or (`feed_id` None) the feeds left together at `stamp`,
        while the Undo still works and the chat has room for them."""
        since = self.keeping.undo_since(self.clock())
        start, until = stamped(stamp) if stamp is not None else (since, None)
        since = max(since, start)

        def work(session: Session) -> Undone:
            found = store.left_since(
                session, chat_id=chat_id, feed_id=feed_id, since=since, until=until
            )
            if not found:
                return Undone.EXPIRED
            had = store.count_subscriptions(session, chat_id=chat_id)
            if had + len(found) > self.max_per_chat:
                return Undone.LIMIT
            store.restore(session, chat_id=chat_id, feed_id=feed_id, since=since, until=until)
            return Undone.DONE

        return await run.write(self.engine, work)


async def forget_left(engine: Engine, keeping: Keeping, now: datetime) -> int:
    """Housekeeping: subscriptions left longer ago than the keeping time are deleted."""
    before = keeping.kept_since(now)
    return await run.write(engine, lambda s: store.forget_left(s, before=before))
