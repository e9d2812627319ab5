"""The one outbox planner: (event | backlog | digest) × audience → outbox rows.

The poll's fan-out, the backlog button and digests all queue messages through here, so the
rules (filters, the chat's language, previews, topics, digest holding) are written once. Each
event is rendered once per language in its audience, not once per chat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime

from bot.core.messages.digest import (
    DIGEST_SUMMARY_COLUMNS,
    DigestEntry,
    one_line,
    render_digest,
    render_new_list,
)
from bot.core.messages.modeltext import ModelText, Written
from bot.core.messages.render import render_change
from bot.core.messages.summary import summarize
from bot.core.polls.alerts import AlertKind, AlertStep, render_alert
from bot.core.polls.decide import FeedIntent, FeedState
from bot.core.rules import quiet
from bot.core.rules.fields import wants
from bot.core.types import Change, ChangeKind, FeedInfo, MessageKind, ParsedItem, Reader
from bot.db.store import HeldItem, OutboxRow
from bot.runtime.i18n import translator


def plan_changes(
    changes: Iterable[Change],
    audience: Iterable[Reader],
    feed: FeedInfo,
    feed_id: int,
    max_new: int | None = None,
    written: Mapping[str, Written] | None = None,
    now: datetime | None = None,
) -> list[OutboxRow]:
    """A poll's events for every chat that wants them (digest chats get them held).

    Flood guard: a chat that would get more than `max_new` new posts from this one poll gets
    one message listing them instead (its edits still come one by one). `written`: what the
    operator's language model wrote for new posts (by key), for the chats that asked. A chat
    in its quiet hours at `now` gets them held until the window ends. The rows name their
    posts by key (`OutboxRow.item_key`): storage writes the posts and the rows together."""
    readers = [_quieted(r, now) for r in audience]
    changes = list(changes)
    written = written or {}
    rows = []
    flooded: set[int] = set()

    def modelled(reader: Reader, change: Change) -> ModelText | None:
        texts = written.get(change.item.key)
        return texts.for_reader(reader, change) if texts is not None else None

    def searched(model: ModelText | None) -> str:
        return f"{model.title or ''}\n{model.summary or ''}" if model is not None else ""

    if max_new is not None:
        for reader in readers:
            fresh = [
                c
                for c in changes
                if c.kind is ChangeKind.NEW and wants(reader, c, searched(modelled(reader, c)))
            ]
            if len(fresh) > max_new and not reader.digest:
                flooded.add(reader.chat_id)
                rows += _flood_rows(reader, fresh, feed, feed_id)
    for change in changes:
        # Rendered once per language, zone, format and model text, not once per chat.
        rendered: dict[tuple[str | None, str, str, ModelText | None], str] = {}
        for reader in readers:
            model = modelled(reader, change)
            if not wants(reader, change, searched(model)):
                continue
            if change.kind is ChangeKind.NEW and reader.chat_id in flooded:
                continue
            how = (reader.language, reader.timezone, reader.message_format, model)
            text = rendered.get(how)
            if text is None:
                text = rendered[how] = render_change(
                    change,
                    feed,
                    translator(reader.language),
                    zone=reader.timezone,
                    form=reader.message_format,
                    model=model,
                )
            rows.append(
                _row(
                    reader,
                    feed_id,
                    None,
                    change.kind,
                    text,
                    image=change.item.image,
                    item_key=change.item.key,
                )
            )
    return rows


def _quieted(reader: Reader, now: datetime | None) -> Reader:
    """The chat as the fan-out treats it now: in its quiet hours, its messages are held."""
    window = quiet.stored(reader.quiet)
    if now is None or window is None or reader.digest or not window.holds(now, reader.timezone):
        return reader
    return replace(reader, digest=True)  # held like a digest's, released when the window ends


def _flood_rows(
    reader: Reader,
    fresh: list[Change],
    feed: FeedInfo,
    feed_id: int,
) -> list[OutboxRow]:
    texts = render_new_list(feed.title, [c.item for c in fresh], translator(reader.language))
    return [
        OutboxRow(
            chat_id=reader.chat_id,
            feed_id=feed_id,
            item_id=None,
            item_key=fresh[-1].item.key,
            kind=MessageKind.LIST,
            text=text,
            preview=False,
            silent=reader.silent,
            thread_id=reader.thread_id,
            held=reader.digest,
        )
        for text in texts
    ]


def plan_backlog(
    items: Iterable[tuple[int, ParsedItem]], reader: Reader, feed: FeedInfo, feed_id: int
) -> list[OutboxRow]:
    """The latest posts a chat asked for after subscribing, oldest first, sent at once."""
    tr = translator(reader.language)
    return [
        _row(
            reader,
            feed_id,
            item_id,
            ChangeKind.NEW,
            render_change(
                Change(ChangeKind.NEW, item),
                feed,
                tr,
                zone=reader.timezone,
                form=reader.message_format,
            ),
            held=False,
            image=item.image,
        )
        for item_id, item in items
    ]


def plan_digest(held: list[HeldItem], reader: Reader, feed_title: str) -> list[OutboxRow]:
    """One digest (split only past Telegram's limit) for what a period held."""
    entries = [
        DigestEntry(
            h.title,
            h.link,
            h.categories,
            updated=h.updated,
            item_id=h.item_id,
            summary=one_line(summarize(h.html, h.text, limit=DIGEST_SUMMARY_COLUMNS)),
        )
        for h in held
    ]
    messages = render_digest(feed_title, entries, translator(reader.language))
    return [
        OutboxRow(
            chat_id=reader.chat_id,
            feed_id=reader.feed_id,
            item_id=held[-1].item_id,
            kind=MessageKind.DIGEST,
            text=text,
            preview=False,
            silent=reader.silent,
            thread_id=reader.thread_id,
        )
        for text in messages
    ]


def _row(
    reader: Reader,
    feed_id: int,
    item_id: int | None,
    kind: ChangeKind,
    text: str,
    *,
    held: bool | None = None,
    image: str | None = None,
    item_key: str | None = None,
) -> OutboxRow:
    return OutboxRow(
        chat_id=reader.chat_id,
        feed_id=feed_id,
        item_id=item_id,
        item_key=item_key,
        kind=MessageKind(kind.value),
        text=text,
        # A post without an image of its own gets Telegram's card of its page (issue 25):
        # the title link comes first in the message, so that is the page previewed.
        preview=reader.preview or (reader.images and not image and kind is not ChangeKind.EDITED),
        silent=reader.silent,
        image_url=image if reader.images else None,
        thread_id=reader.thread_id,
        held=reader.digest if held is None else held,
    )


def plan_alert(
    kind: AlertKind,
    feed: FeedState,
    intent: FeedIntent,
    step: AlertStep,
    languages: Mapping[int, str | None],
) -> list[OutboxRow]:
    """An operator alert for each operator (chat id → its language)."""
    return [
        OutboxRow(
            chat_id=chat_id,
            feed_id=feed.id,
            item_id=None,
            kind=MessageKind.ALERT,
            text=render_alert(kind, feed, intent, step.failing_since, translator(language)),
        )
        for chat_id, language in languages.items()
    ]
