"""Stories: each new post's message in a chat, as the cross-feed duplicate check reads it
(core/polls/duplicates.py), through the (chat, link) and (chat, time) indexes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, insert
from sqlalchemy import select as sa_select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from bot.core.polls.duplicates import CANDIDATES, same_story, story_of
from bot.core.polls.duplicates import Story as StoryValue
from bot.core.types import MessageKind
from bot.db.direct import Direct
from bot.db.store.statements import table
from bot.db.tables import Chat, Delivery, DeliveryStatus, Feed, Item, Story

FOLD = "fold"
SHOW = "show"
DUPLICATE_MODES = (FOLD, SHOW)


@dataclass(frozen=True, slots=True)
class Told:
    """The chat's message about the same story, sent from another feed."""

    story_id: int
    message_id: int
    text: str  # as sent (without its "Also in" line)
    preview: bool
    image_url: str | None
    follow_label: str | None
    item_id: int | None
    also: tuple[str, ...]  # the feeds it already names
    media: bool = False  # an album or a file: its caption is not edited (a quiet reply instead)


@dataclass(frozen=True, slots=True)
class Repeat:
    """A new post whose story the chat was already told: how the chat wants it."""

    told: Told
    mode: str  # FOLD or SHOW
    feed_title: str  # the repeating post's feed
    language: str | None


@dataclass(frozen=True, slots=True)
class NewStory:
    """A new post's message that repeats nothing: written as a `story` with its sent mark."""

    chat_id: int
    feed_id: int
    story: StoryValue


def find_repeat(
    session: Session, *, chat_id: int, item_id: int, thread_id: int | None, since: datetime
) -> Repeat | NewStory | None:
    """The chat's message from another feed (same topic) telling this post's story since
    `since`; else the story this post's message will be (None: the post is gone)."""
    item = session.get(Item, item_id)
    if item is None:
        return None
    story = story_of(item.link, item.title, item.text)
    told = _told(session, chat_id, item.feed_id, thread_id, story, since)
    if told is None:
        return NewStory(chat_id, item.feed_id, story)
    chat = session.get(Chat, chat_id)
    feed = session.get(Feed, item.feed_id)
    return Repeat(
        told=told,
        mode=chat.duplicates if chat is not None else FOLD,
        feed_title=(feed.title or feed.slug) if feed is not None else "",
        language=chat.language if chat is not None else None,
    )


@dataclass(frozen=True, slots=True)
class SentStory:
    """A story the chat was sent, as the check compares it in memory (`chat_stories`)."""

    delivery_id: int
    feed_id: int
    story: StoryValue
    message_id: int
    thread_id: int | None
    media: bool


@dataclass(frozen=True, slots=True)
class ChatStories:
    """What the duplicate check needs of one chat, read once per claimed batch: how it wants
    repeats, and its recent stories, oldest first (at most `CANDIDATES`)."""

    mode: str
    sent: list[SentStory]


def chat_stories(session: Session, *, chat_id: int, since: datetime) -> ChatStories:
    """One read through (chat, time): the chat's stories since `since`, newest `CANDIDATES`,
    with their messages' ids (a story whose message id is unknown cannot be answered)."""
    query = (
        sa_select(
            col(Story.delivery_id),
            col(Story.feed_id),
            col(Story.link),
            col(Story.title),
            col(Story.opening),
            col(Delivery.message_id),
            col(Delivery.thread_id),
            col(Delivery.media).is_not(None),
        )
        .join(Delivery, col(Delivery.id) == col(Story.delivery_id))
        .where(
            col(Story.chat_id) == chat_id,
            col(Story.created_at) >= since,
            col(Delivery.message_id).is_not(None),
        )
        .order_by(col(Story.created_at).desc(), col(Story.id).desc())
        .limit(CANDIDATES)
    )
    rows = session.connection().execute(query).all()
    chat = session.get(Chat, chat_id)
    sent = [
        SentStory(delivery_id, feed_id, StoryValue(link, title, opening), message_id, thread, media)
        for delivery_id, feed_id, link, title, opening, message_id, thread, media in reversed(rows)
        if message_id is not None
    ]
    return ChatStories(chat.duplicates if chat is not None else FOLD, sent)


def repeat_of(session: Session, *, delivery_id: int, feed_id: int) -> Repeat | None:
    """The chat's message telling a story (by its delivery), to fold another feed's post into:
    its text and "Also in" list as they are now (None: the message is gone)."""
    found = session.exec(
        select(Story, Delivery)
        .join(Delivery, col(Delivery.id) == col(Story.delivery_id))
        .where(col(Story.delivery_id) == delivery_id, col(Delivery.message_id).is_not(None))
    ).first()
    if found is None:
        return None
    told = _value(*found)
    chat = session.get(Chat, found[0].chat_id)
    feed = session.get(Feed, feed_id)
    return Repeat(
        told=told,
        mode=chat.duplicates if chat is not None else FOLD,
        feed_title=(feed.title or feed.slug) if feed is not None else "",
        language=chat.language if chat is not None else None,
    )


def primed(
    session: Session, *, chat_ids: Sequence[int], item_ids: Sequence[int], since: datetime
) -> tuple[dict[int, set[int]], dict[int, tuple[int, StoryValue]]]:
    """For a claimed batch, in two indexed reads: the feeds each chat has stories from since
    `since`, and each new post's story (feed, story). A chat with no story from another feed
    needs no check: the common case (one feed) costs nothing per message."""
    feeds: dict[int, set[int]] = {}
    if chat_ids:
        rows = session.exec(
            select(Story.chat_id, Story.feed_id)
            .where(col(Story.chat_id).in_(chat_ids), col(Story.created_at) >= since)
            .distinct()
        ).all()
        for chat_id, feed_id in rows:
            feeds.setdefault(chat_id, set()).add(feed_id)
    stories: dict[int, tuple[int, StoryValue]] = {}
    if item_ids:
        items = (
            session.connection()
            .execute(
                sa_select(
                    col(Item.id), col(Item.feed_id), col(Item.link), col(Item.title), col(Item.text)
                ).where(col(Item.id).in_(item_ids))
            )
            .all()
        )
        for item_id, feed_id, link, title, text in items:
            if item_id is not None:
                stories[item_id] = (feed_id, story_of(link, title, text))
    return feeds, stories


# Its parameters by name, run on the DBAPI cursor (`db/direct.py`); inline: no RETURNING of the
# new ids, which PostgreSQL would compile in for one row.
_STORY_VALUES = ("chat_id", "delivery_id", "feed_id", "link", "title", "opening", "also")
_INSERT_STORIES = (
    insert(table(Story))
    .inline()
    .values({name: bindparam(name) for name in (*_STORY_VALUES, "created_at")})
)


def add_stories(tx: Direct, stories: Sequence[tuple[int, NewStory]], now: datetime) -> None:
    """Stories of messages just marked sent (delivery id, story), in the marks' transaction."""
    if not stories:
        return
    rows: list[dict[str, object]] = [
        {
            "chat_id": new.chat_id,
            "delivery_id": delivery_id,
            "feed_id": new.feed_id,
            "link": new.story.link,
            "title": new.story.title,
            "opening": new.story.opening,
            "also": [],
            "created_at": now,
        }
        for delivery_id, new in stories
    ]
    tx.run(_INSERT_STORIES, rows)


def _told(
    session: Session,
    chat_id: int,
    feed_id: int,
    thread_id: int | None,
    story: StoryValue,
    since: datetime,
) -> Told | None:
    query = (
        select(Story, Delivery)
        .join(Delivery, col(Delivery.id) == col(Story.delivery_id))
        .where(
            col(Story.chat_id) == chat_id,
            col(Story.created_at) >= since,
            col(Story.feed_id) != feed_id,
            col(Delivery.message_id).is_not(None),
            col(Delivery.thread_id).is_(None)
            if thread_id is None
            else col(Delivery.thread_id) == thread_id,
        )
    )
    if story.link is not None:
        found = session.exec(
            query.where(col(Story.link) == story.link).order_by(col(Story.id)).limit(1)
        ).first()
        if found is not None:
            return _value(*found)
    recent = session.exec(query.order_by(col(Story.created_at).desc()).limit(CANDIDATES)).all()
    for row, delivery in reversed(recent):  # the first message about it
        sent = StoryValue(link=row.link, title=row.title, opening=row.opening)
        if same_story(story, sent):
            return _value(row, delivery)
    return None


def _value(story: Story, delivery: Delivery) -> Told:
    assert story.id is not None and delivery.message_id is not None
    return Told(
        story_id=story.id,
        message_id=delivery.message_id,
        text=delivery.text,
        preview=delivery.preview,
        image_url=delivery.image_url,
        follow_label=delivery.follow_label,
        item_id=delivery.item_id,
        also=tuple(story.also or ()),
        media=delivery.media is not None,
    )


def add_also(session: Session, *, story_id: int, feed_title: str) -> None:
    """The story's message now names one more feed that carried it."""
    story = session.get(Story, story_id)
    if story is not None and feed_title not in (story.also or []):
        story.also = [*(story.also or []), feed_title]
        session.add(story)


def set_duplicates(session: Session, *, chat_id: int, mode: str) -> None:
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.duplicates = mode
        session.add(chat)


def chat_duplicates(session: Session, *, chat_id: int) -> str:
    chat = session.get(Chat, chat_id)
    return chat.duplicates if chat is not None else FOLD


def edits_replying(
    session: Session, *, chat_id: int, item_id: int, message_id: int, since: datetime
) -> list[str]:
    """The chat's edits of *other* posts sent since `since` as replies to `message_id`: the
    posts whose new-post delivery was sent, or folded, as that message (one story's copies).
    Read only for an edit about to be sent; by the chat's deliveries since `since` and, for
    each, its post's deliveries (the item index)."""
    told = aliased(Delivery)
    rows = session.exec(
        select(Delivery.text)
        .join(
            told,
            (col(told.item_id) == col(Delivery.item_id)) & (col(told.chat_id) == chat_id),
        )
        .where(
            col(Delivery.chat_id) == chat_id,
            col(Delivery.kind) == MessageKind.EDITED,
            col(Delivery.status) == DeliveryStatus.SENT,
            col(Delivery.sent_at) >= since,
            col(Delivery.item_id) != item_id,
            col(told.kind) == MessageKind.NEW,
            col(told.message_id) == message_id,
        )
    ).all()
    return list(rows)
