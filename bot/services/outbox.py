"""The one outbox planner: (event | backlog | digest) × audience → outbox rows.

The poll's fan-out (routed by `core/polls/fanout.py`: filters, quiet hours, the flood rule),
the backlog button and digests all queue messages through here, so the rules (the chat's
language, previews, topics, digest holding) are written once. Each event is rendered once per
language in its audience, not once per chat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

from bot.core.messages.digest import (
    DIGEST_SUMMARY_COLUMNS,
    DigestEntry,
    one_line,
    render_digest,
    render_new_list,
)
from bot.core.messages.header import post_name
from bot.core.messages.media import (
    EPISODE_LABEL,
    VIDEO_LABEL,
    Media,
    enclosure_line,
    encode,
    has_player,
    media_for,
    with_line,
)
from bot.core.messages.modeltext import ModelText, Written
from bot.core.messages.notices import FOLLOW_LABEL
from bot.core.messages.render import render_change
from bot.core.messages.summary import summarize
from bot.core.modes import Format, Preview
from bot.core.polls.alerts import AlertKind, AlertStep, render_alert, render_spent
from bot.core.polls.decide import FeedIntent, FeedState
from bot.core.polls.fanout import Fanout
from bot.core.polls.shares import Share
from bot.core.types import (
    Change,
    ChangeKind,
    FeedInfo,
    MediaKind,
    MessageKind,
    ParsedItem,
    Reader,
)
from bot.db.store import HeldItem, OutboxRow
from bot.db.store.follows import Follower
from bot.runtime.i18n import translator


def plan_fanout(
    fanout: Fanout,
    changes: Iterable[Change],
    feed: FeedInfo,
    feed_id: int,
    written: Mapping[str, Written] | None = None,
    pages: Mapping[str, str] | None = None,
) -> list[OutboxRow]:
    """A poll's events as each chat's route says (`core/polls/fanout.py` decided who gets
    what; digest chats and chats in their quiet hours get them held). `changes`: the plan's
    changes as shown (with their articles); `written`: what the operator's language model
    wrote for new posts (by key), for the chats that asked. The rows name their posts by key
    (`OutboxRow.item_key`): storage writes the posts and the rows together. `pages`: the
    Telegraph pages of long new posts, by key, for the chats that read them whole."""
    written = written or {}
    pages = pages or {}
    rows = []
    for route in fanout.routes:
        if route.listed:
            rows += _flood_rows(route.reader, list(route.listed), feed, feed_id)
    gets = [(route.reader, {c.item.key for c in route.changes}) for route in fanout.routes]
    for change in changes:
        # Rendered once per language, zone, format and model text, not once per chat.
        rendered: dict[tuple[str | None, str, str, ModelText | None], str] = {}
        texts = written.get(change.item.key)
        for reader, keys in gets:
            if change.item.key not in keys:
                continue
            model = texts.for_reader(reader, change) if texts is not None else None
            page = pages.get(change.item.key) if reader.message_format is Format.FULL else None
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
                    now=fanout.now,
                    page=page,
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
                    item=change.item,
                    page=page,
                )
            )
    return rows


def plan_follows(
    fanout: Fanout,
    changes: Iterable[Change],
    followers: Iterable[Follower],
    feed: FeedInfo,
    feed_id: int,
) -> list[OutboxRow]:
    """A followed post's substantive edit for each chat following it that its subscription
    does not already send it to (edits off, a filter, or no subscription at all)."""
    routed = {(r.reader.chat_id, c.item.key) for r in fanout.routes for c in r.changes}
    edits = {c.item.key: c for c in changes if c.kind is ChangeKind.EDITED}
    rows = []
    for follower in followers:
        change = edits.get(follower.key)
        if change is None or (follower.chat_id, follower.key) in routed:
            continue
        if change.diff is not None and change.diff.minor:
            continue
        text = render_change(change, feed, translator(follower.language), zone=follower.timezone)
        reader = Reader(follower.chat_id, feed_id, thread_id=follower.thread_id)
        rows.append(_row(reader, feed_id, None, ChangeKind.EDITED, text, item_key=follower.key))
    return rows


def searched_text(written: Mapping[str, Written]) -> Callable[[Reader, Change], str]:
    """What a chat's keywords search besides the post: the model's title and summary for it."""

    def searched(reader: Reader, change: Change) -> str:
        texts = written.get(change.item.key)
        model = texts.for_reader(reader, change) if texts is not None else None
        return f"{model.title or ''}\n{model.summary or ''}" if model is not None else ""

    return searched


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
    items: Iterable[tuple[int, ParsedItem]],
    reader: Reader,
    feed: FeedInfo,
    feed_id: int,
    now: datetime | None = None,
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
                now=now,
            ),
            held=False,
            image=item.image,
        )
        for item_id, item in items
    ]


def plan_digest(
    held: list[HeldItem],
    reader: Reader,
    feed_title: str,
    also: Mapping[int, tuple[str, ...]] | None = None,
) -> list[OutboxRow]:
    """One digest (split only past Telegram's limit) for what a period held; `also`: by item
    id, the other feeds that carried its story (their copies are not listed again)."""
    also = also or {}
    entries = [
        DigestEntry(
            post_name(h.title, h.text, h.link),
            h.link,
            h.categories,
            updated=h.updated,
            item_id=h.item_id,
            summary=one_line(
                summarize(h.html, h.text, limit=DIGEST_SUMMARY_COLUMNS, title=h.title)
            ),
            also=also.get(h.item_id, ()),
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
    item: ParsedItem | None = None,
    page: str | None = None,
) -> OutboxRow:
    media = _media(reader, kind, item)
    if page is not None and reader.preview is not Preview.OFF:
        image = page  # the page's card, with Telegram's Instant View button, above the text
    if item is not None and has_player(item.link):
        image = None  # Telegram's player card of the video's page, not its thumbnail
    linked = media is None or media.kind is MediaKind.ALBUM  # the file itself is not sent
    if item is not None and item.enclosure is not None and linked and kind is ChangeKind.NEW:
        label = translator(reader.language).gettext(
            EPISODE_LABEL if item.enclosure.kind is MediaKind.AUDIO else VIDEO_LABEL
        )
        text = with_line(text, enclosure_line(item.enclosure, label))
    return OutboxRow(
        chat_id=reader.chat_id,
        feed_id=feed_id,
        item_id=item_id,
        item_key=item_key,
        kind=MessageKind(kind.value),
        text=text,
        # A post without an image of its own gets Telegram's card of its page (issue 25):
        # the title link comes first in the message, so that is the page previewed.
        preview=reader.preview is Preview.LINK
        or (reader.preview is Preview.IMAGE and not image and kind is not ChangeKind.EDITED),
        silent=reader.silent,
        image_url=image if reader.preview is Preview.IMAGE or image == page else None,
        thread_id=reader.thread_id,
        media=encode(media),
        held=reader.digest if held is None else held,
        follow_label=(
            translator(reader.language).gettext(FOLLOW_LABEL) if kind is ChangeKind.NEW else None
        ),
    )


def _media(reader: Reader, kind: ChangeKind, item: ParsedItem | None) -> Media | None:
    """A new post's album (for chats that show pictures) or its playable file (for every chat):
    `core/messages/media.py` decides; edits and lists stay messages."""
    if item is None or kind is not ChangeKind.NEW:
        return None
    images = item.images if reader.preview is Preview.IMAGE else ()
    return media_for(images, item.enclosure, item.title)


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


def plan_model_alert(
    feed: FeedState, spent: Iterable[Share], languages: Mapping[int, str | None]
) -> list[OutboxRow]:
    """An operator alert per spent share of the model's hour, for each operator."""
    return [
        OutboxRow(
            chat_id=chat_id,
            feed_id=feed.id,
            item_id=None,
            kind=MessageKind.ALERT,
            text=render_spent(feed, share, translator(language)),
        )
        for share in spent
        for chat_id, language in languages.items()
    ]
