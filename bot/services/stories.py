"""One story, one message (issue 46): before a new post's message goes out, is it a story the
chat was already sent from another feed (core/polls/duplicates.py)? Then the first message
gains an "Also in" line, edited in place, and this one is not sent (`/duplicates fold`, the
default); or it goes out as a quiet reply to the first (`/duplicates show`). An edit Telegram
refuses (the first message deleted, grown past the limit) sends the post as usual.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.messages.notices import with_also
from bot.core.polls.duplicates import WINDOW
from bot.core.polls.duplicates import Story as StoryValue
from bot.core.types import MessageKind
from bot.db import store
from bot.db.store import Queued
from bot.runtime.clock import Clock
from bot.runtime.i18n import translator
from bot.services import run
from bot.services.messenger import Messenger, Outgoing, Reply

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a new post's message: nothing special (None), counted as the earlier
    message (`folded`), or sent as a quiet reply to it (`reply_to`)."""

    folded: int | None = None  # the earlier message's id, which now names this feed too
    reply_to: int | None = None
    new: store.NewStory | None = None  # recorded with the message's sent mark


SEND = Decision()


class Stories:
    def __init__(self, engine: Engine, messenger: Messenger, clock: Clock) -> None:
        self.engine = engine
        self.messenger = messenger
        self.clock = clock
        # Read with each claimed batch (`primed`): the feeds each chat has recent stories from,
        # and each new post's story. Kept up to date as this worker sends (a chat is leased to
        # one worker at a time).
        self.feeds: dict[int, set[int]] = {}
        self.items: dict[int, tuple[int, StoryValue]] = {}

    def primed(self, queues: dict[int, list[Queued]], session: Session) -> dict[int, list[Queued]]:
        """Called in the batch's claim (its thread, its session): two reads per batch; the
        queues are returned as they came."""
        item_ids = [
            q.item_id
            for queue in queues.values()
            for q in queue
            if q.kind == MessageKind.NEW and q.item_id is not None
        ]
        feeds, items = store.primed(
            session, chat_ids=list(queues), item_ids=item_ids, since=self.clock() - WINDOW
        )
        for chat_id in queues:
            self.feeds[chat_id] = feeds.get(chat_id, set())
        self.items.update(items)
        return queues

    def done(self, chat_ids: Sequence[int]) -> None:
        """The batch's chats are released: forget what was read for them."""
        for chat_id in chat_ids:
            self.feeds.pop(chat_id, None)
        if not self.feeds:
            self.items.clear()

    async def decide(self, delivery: Queued) -> Decision:
        if delivery.kind != MessageKind.NEW or delivery.item_id is None:
            return SEND
        known = self.items.get(delivery.item_id)
        feeds = self.feeds.get(delivery.chat_id)
        if known is not None and feeds is not None:
            feed_id, story = known
            if not feeds - {feed_id}:  # no recent story from another feed: nothing to compare
                feeds.add(feed_id)
                return Decision(new=store.NewStory(delivery.chat_id, feed_id, story))
        decision = await self._check(delivery, delivery.item_id)
        if decision.new is not None and feeds is not None:
            feeds.add(decision.new.feed_id)
        return decision

    async def _check(self, delivery: Queued, item_id: int) -> Decision:
        check = functools.partial(
            store.find_repeat,
            chat_id=delivery.chat_id,
            item_id=item_id,
            thread_id=delivery.thread_id,
            since=self.clock() - WINDOW,
        )
        repeat = await run.read(self.engine, check)  # no write lock: a fan-out's chats in parallel
        if repeat is None:
            return SEND
        if isinstance(repeat, store.NewStory):
            return Decision(new=repeat)
        told = repeat.told
        if repeat.mode == store.SHOW or told.media:
            return Decision(reply_to=told.message_id)
        if repeat.feed_title in told.also:
            return Decision(folded=told.message_id)
        also = [*told.also, repeat.feed_title]
        text = with_also(told.text, also, translator(repeat.language))
        follow = (told.follow_label, told.item_id) if told.follow_label and told.item_id else None
        edited = Outgoing(
            delivery.chat_id,
            text,
            preview=told.preview,
            image_url=told.image_url,
            follow=follow,
        )
        answer = await self.messenger.edit(edited, told.message_id)
        if answer.reply is not Reply.ACCEPTED:
            log.info(
                "chat %s: 'Also in' not added to message %s (%s); sending the post",
                delivery.chat_id,
                told.message_id,
                answer.error,
            )
            return SEND
        add = functools.partial(
            store.add_also, story_id=told.story_id, feed_title=repeat.feed_title
        )
        await run.write(self.engine, add)
        return Decision(folded=told.message_id)
