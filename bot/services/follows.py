"""Following posts, as use cases: follow one (by its link or its message's button), stop, list.
What is stored is `bot/db/store/follows.py`; the pages are read by `watch.py`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.polls.follows import DEFAULT_DAYS, follow_until, may_follow
from bot.db.store import follows as stored
from bot.db.store.follows import Followed, Following, Post
from bot.runtime.clock import Clock, utcnow
from bot.services import run


@dataclass(frozen=True, slots=True)
class FollowAnswer:
    """What following a post did (`followed` None: no such post is stored)."""

    followed: Followed | None
    title: str = ""
    link: str | None = None
    until: datetime | None = None


def spellings(link: str) -> list[str]:
    """The ways a feed may have written the same address: with or without the final slash,
    over http or https."""
    bare = link.strip()
    forms = [bare, bare.rstrip("/"), bare.rstrip("/") + "/"]
    swapped = [
        f.replace("https://", "http://", 1) if f.startswith("https://") else
        f.replace("http://", "https://", 1)
        for f in forms
    ]  # fmt: skip
    return list(dict.fromkeys(f for f in [*forms, *swapped] if f))


class Follows:
    def __init__(self, engine: Engine, *, most: int, clock: Clock = utcnow) -> None:
        self.engine, self.most, self.clock = engine, most, clock

    async def follow_link(
        self, chat_id: int, link: str, days: int = DEFAULT_DAYS, thread_id: int | None = None
    ) -> FollowAnswer:
        forms = spellings(link)
        return await run.write(
            self.engine,
            lambda s: self._follow(
                s, stored.post_by_link(s, links=forms, chat_id=chat_id), chat_id, days, thread_id
            ),
        )

    async def follow_post(
        self, chat_id: int, item_id: int, days: int = DEFAULT_DAYS, thread_id: int | None = None
    ) -> FollowAnswer:
        return await run.write(
            self.engine,
            lambda s: self._follow(
                s, stored.post_by_id(s, item_id=item_id), chat_id, days, thread_id
            ),
        )

    def _follow(
        self, session: Session, post: Post | None, chat_id: int, days: int, thread_id: int | None
    ) -> FollowAnswer:
        if post is None:
            return FollowAnswer(None)
        now = self.clock()
        until = follow_until(now, days)
        listed = stored.chat_follows(session, chat_id=chat_id, now=now)
        already = any(f.item_id == post.item_id for f in listed)
        if not may_follow(len(listed), self.most, already=already):
            return FollowAnswer(Followed.LIMIT, post.item.title, post.item.link)
        done = stored.follow(
            session,
            chat_id=chat_id,
            item_id=post.item_id,
            until=until,
            thread_id=thread_id,
            most=self.most,
            now=now,
        )
        return FollowAnswer(done, post.item.title, post.item.link, until)

    async def unfollow(self, chat_id: int, item_id: int) -> bool:
        return await run.write(
            self.engine, lambda s: stored.unfollow(s, chat_id=chat_id, item_id=item_id)
        )

    async def listing(self, chat_id: int) -> list[Following]:
        now = self.clock()
        return await run.read(
            self.engine, lambda s: stored.chat_follows(s, chat_id=chat_id, now=now)
        )
