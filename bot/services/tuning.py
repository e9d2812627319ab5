"""Reactions that tune (issue 46): a 👍 or 👎 on a post's message moves the chat's weights of
its feed and categories (core/polls/tuning.py); a 👎's one-tap offers mute the feed for a day,
lower a category further, or exclude a word; /list shows the weights, /tuning reset clears
them."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.polls.tuning import FEWER, MUTE, delta, word_to_exclude
from bot.db import store
from bot.db.store.tuning import CATEGORY, Reacted, Weight
from bot.runtime.clock import Clock, utcnow
from bot.services import run


class Tuner:
    def __init__(self, engine: Engine, clock: Clock = utcnow) -> None:
        self.engine = engine
        self.clock = clock

    async def react(
        self, chat_id: int, message_id: int, old: Sequence[str], new: Sequence[str]
    ) -> tuple[Reacted, int] | None:
        """Apply one person's reaction change; the post and the move (None: not a post's
        message, or no 👍/👎 change)."""
        moved = delta(old, new)
        if moved == 0:
            return None

        def work(session: Session) -> tuple[Reacted, int] | None:
            post = store.reacted_post(session, chat_id=chat_id, message_id=message_id)
            if post is None:
                return None
            store.tune(session, chat_id=chat_id, post=post, delta=moved, now=self.clock())
            return post, moved

        return await run.write(self.engine, work)

    async def post(self, delivery_id: int) -> Reacted | None:
        find = functools.partial(store.delivery_post, delivery_id=delivery_id)
        return await run.read(self.engine, find)

    async def mute(self, chat_id: int, post: Reacted) -> datetime | None:
        """Mute the post's feed for a day; when it ends (None: not subscribed)."""
        until = self.clock() + MUTE
        mute = functools.partial(store.mute, chat_id=chat_id, feed_id=post.feed_id, until=until)
        return until if await run.write(self.engine, mute) else None

    async def fewer(self, chat_id: int, category: str) -> None:
        now = self.clock()
        move = functools.partial(
            store.move,
            chat_id=chat_id,
            kind=CATEGORY,
            name=category.casefold()[:100],
            shown=category,
            delta=FEWER,
            now=now,
        )
        await run.write(self.engine, move)

    async def exclude(self, chat_id: int, post: Reacted) -> str | None:
        """The feed's keywords gain `-word` (the title's word a 👎 offers); the word."""
        word = word_to_exclude(post.title)
        if word is None:
            return None

        def work(session: Session) -> str | None:
            current = store.subscription_keywords(session, chat_id=chat_id, feed_id=post.feed_id)
            if current is None:
                return None
            if word.casefold() not in {w.casefold() for w in current.exclude}:
                words = replace(current, exclude=(*current.exclude, word))
                store.set_keywords(session, chat_id=chat_id, feed_id=post.feed_id, words=words)
            return word

        return await run.write(self.engine, work)

    async def weights(self, chat_id: int) -> list[Weight]:
        return await run.read(self.engine, lambda s: store.weights(s, chat_id=chat_id))

    async def reset(self, chat_id: int) -> int:
        return await run.write(self.engine, lambda s: store.reset_tuning(s, chat_id=chat_id))
