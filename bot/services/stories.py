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

from bot.core.messages.notices import with_also
from bot.core.polls.duplicates import CANDIDATES, WINDOW, same_change, same_story
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
        # A chat's recent stories, read at its first message that needs a comparison (one read
        # a chat and batch, not one a message), then kept up to date as this worker sends.
        self.chats: dict[int, store.ChatStories] = {}

    async def prime(self, queues: dict[int, list[Queued]]) -> None:
        """Read, for a claimed batch, the feeds each chat has recent stories from and each new
        post's story: two indexed reads (per chat, per new post) in a session of their own,
        after the claim's transaction (never inside it, never holding a lease's row)."""
        item_ids = [
            q.item_id
            for queue in queues.values()
            for q in queue
            if q.kind == MessageKind.NEW and q.item_id is not None
        ]
        read = functools.partial(
            store.primed, chat_ids=list(queues), item_ids=item_ids, since=self.clock() - WINDOW
        )
        feeds, items = await run.read(self.engine, read)
        for chat_id in queues:
            self.feeds[chat_id] = feeds.get(chat_id, set())
        self.items.update(items)

    def done(self, chat_ids: Sequence[int]) -> None:
        """The batch's chats are released: forget what was read for them."""
        for chat_id in chat_ids:
            self.feeds.pop(chat_id, None)
            self.chats.pop(chat_id, None)
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
        if known is not None and feeds is not None:
            decision = await self._compare(delivery, *known)
        else:  # not primed (a chat moved to a new id): the chat's stories, one query
            decision = await self._check(delivery, delivery.item_id)
        if decision.new is not None and feeds is not None:
            feeds.add(decision.new.feed_id)
        return decision

    async def told_edit(self, delivery: Queued, reply_to: int) -> bool:
        """Was this edit's change already told as a reply to `reply_to` by an edit of another
        copy of the story (a planet republishing the original's edit)? One read an edit."""
        if delivery.kind != MessageKind.EDITED or delivery.item_id is None:
            return False
        read = functools.partial(
            store.edits_replying,
            chat_id=delivery.chat_id,
            item_id=delivery.item_id,
            message_id=reply_to,
            since=self.clock() - WINDOW,
        )
        told = await run.read(self.engine, read)
        return any(same_change(delivery.text, text) for text in told)

    def sent(self, delivery: Queued, message_id: int | None, new: store.NewStory | None) -> None:
        """A new post's message Telegram accepted: a later post of this batch compares to it."""
        chat = self.chats.get(delivery.chat_id)
        if chat is None or new is None or message_id is None or delivery.id is None:
            return
        media = delivery.media is not None
        told = store.SentStory(
            delivery.id, new.feed_id, new.story, message_id, delivery.thread_id, media
        )
        chat.sent.append(told)

    async def _compare(self, delivery: Queued, feed_id: int, story: StoryValue) -> Decision:
        """In memory, against the chat's recent stories (read once for the batch)."""
        chat = self.chats.get(delivery.chat_id)
        if chat is None:
            since = self.clock() - WINDOW
            read = functools.partial(store.chat_stories, chat_id=delivery.chat_id, since=since)
            chat = self.chats[delivery.chat_id] = await run.read(self.engine, read)
        new = store.NewStory(delivery.chat_id, feed_id, story)
        told = first_told(chat.sent, feed_id, delivery.thread_id, story)
        if told is None:
            return Decision(new=new)
        if chat.mode == store.SHOW or told.media:
            return Decision(reply_to=told.message_id)
        again = functools.partial(store.repeat_of, delivery_id=told.delivery_id, feed_id=feed_id)
        repeat = await run.read(self.engine, again)
        if repeat is None:
            return Decision(new=new)
        return await self._fold(delivery, repeat)

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
        if repeat.mode == store.SHOW or repeat.told.media:
            return Decision(reply_to=repeat.told.message_id)
        return await self._fold(delivery, repeat)

    async def _fold(self, delivery: Queued, repeat: store.Repeat) -> Decision:
        """The chat's first message about the story names this feed too ("Also in")."""
        told = repeat.told
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


def first_told(
    sent: Sequence[store.SentStory], feed_id: int, thread_id: int | None, story: StoryValue
) -> store.SentStory | None:
    """The chat's first message (same topic, another feed) telling `story`: by link among all
    of them, else by title and opening among the newest `CANDIDATES` (`same_story`)."""
    others = [s for s in sent if s.feed_id != feed_id and s.thread_id == thread_id]
    if story.link is not None:
        linked = next((s for s in others if s.story.link == story.link), None)
        if linked is not None:
            return linked
    return next((s for s in others[-CANDIDATES:] if same_story(story, s.story)), None)
