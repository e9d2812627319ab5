"""Release what quiet hours held once a chat's window is over (run every poll tick, beside
digests): a few messages go as they were, more than `DIGEST_AFTER` become one digest per feed.
The messages are in the outbox the whole time, so a restart during the window loses nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.polls.duplicates import WINDOW, Story, first_copies, story_of
from bot.core.rules import quiet
from bot.db import store
from bot.db.engine import transaction
from bot.runtime.clock import Clock, utcnow
from bot.services.outbox import plan_digest

log = logging.getLogger(__name__)


PAGE = 200  # chats read at a time


def release_quiet(engine: Engine, clock: Clock = utcnow, page: int = PAGE) -> int:
    """Release every chat whose quiet hours are over; return how many messages were queued.

    Runs every few seconds, and most chats holding messages are still in their window: those
    are read as three columns a chat (`store.quiet_chats`, a page at a time, no transaction
    that writes), and only a chat whose window ended is released, in a write transaction of
    its own that reads its messages' ids, and their posts' text only for the digest it builds.
    """
    now = clock()
    queued, after = 0, None
    while True:
        with Session(engine) as session:
            chats = store.quiet_chats(session, after=after, limit=page)
        for chat in chats:
            window = quiet.stored(chat.quiet)
            if window is None or not window.holds(now, chat.timezone):
                queued += _release(engine, chat, now)
        if len(chats) < page:
            return queued
        after = chats[-1].chat_id


def _release(engine: Engine, chat: store.QuietChat, now: datetime) -> int:
    """One chat's held messages: a few go as they were, more become a digest per feed. Held
    posts are counted as stories (issue 46): a press release that four of the chat's feeds
    carried overnight is one story, so it goes as one message (delivery folds the copies into
    its "Also in" line), not as four digests. A story the chat was sent before the night goes
    as it was too (delivery adds the feed to that message's line); in the digests the rest are
    listed once, under the feed that had it first, naming the others."""
    with transaction(engine) as session:
        by_feed = store.quiet_held_ids(session, chat_id=chat.chat_id)
        ids = [i for held in by_feed.values() for i in held]
        if len(ids) <= quiet.DIGEST_AFTER:
            store.release_held(session, delivery_ids=ids)
            return len(ids)
        held = {f: store.held_for(session, chat_id=chat.chat_id, feed_id=f) for f in by_feed}
        posts = sorted(
            ((f, h) for f, items in held.items() for h in items), key=lambda p: p[1].delivery_id
        )
        sent = store.chat_stories(session, chat_id=chat.chat_id, since=now - WINDOW).sent
        copies, told = _copies(posts, [(s.feed_id, s.story) for s in sent])
        if len(posts) - len(set(copies) | told) <= quiet.DIGEST_AFTER:
            store.release_held(session, delivery_ids=ids)
            return len(ids)
        again = [posts[i][1].delivery_id for i in sorted(told)]
        store.release_held(session, delivery_ids=again)
        also: dict[int, tuple[str, ...]] = {}
        feeds = {f: store.feed_by_id(session, feed_id=f) for f in by_feed}
        for copy, first in copies.items():
            if copy not in told:
                feed = feeds[posts[copy][0]]
                name = (feed.title or feed.slug) if feed is not None else ""
                item_id = posts[first][1].item_id
                also[item_id] = (*also.get(item_id, ()), name)
        folded = [posts[i][1].delivery_id for i in copies if i not in told]
        store.mark_digested(session, delivery_ids=folded)  # listed under their first copy
        skipped = {posts[i][1].delivery_id for i in set(copies) | told}
        queued = len(again) + _digests(session, chat, held, feeds, skipped, also)
    log.info("chat %s: quiet hours over, %d held posts as a digest", chat.chat_id, len(ids))
    return queued


def _digests(
    session: Session,
    chat: store.QuietChat,
    held: dict[int, list[store.HeldItem]],
    feeds: dict[int, store.FeedView | None],
    skipped: set[int],
    also: dict[int, tuple[str, ...]],
) -> int:
    """A digest per feed of its held posts but the `skipped` (told elsewhere)."""
    queued = 0
    _, language = store.chat_language(session, chat_id=chat.chat_id)
    for feed_id, items in held.items():
        reader = store.get_subscription(session, chat_id=chat.chat_id, feed_id=feed_id)
        feed = feeds[feed_id]
        listed = [h for h in items if h.delivery_id not in skipped]
        store.mark_digested(session, delivery_ids=[h.delivery_id for h in listed])
        if reader is None or feed is None or not listed:  # unsubscribed, or told elsewhere
            continue
        reader = replace(reader, language=language, timezone=chat.timezone)
        rows = plan_digest(listed, reader, feed.title, also)
        store.enqueue(session, rows=rows)
        queued += len(rows)
    return queued


def _copies(
    posts: list[tuple[int, store.HeldItem]], sent: list[tuple[int, Story]]
) -> tuple[dict[int, int], set[int]]:
    """Which held posts repeat an earlier one of another feed (→ its index), and which tell a
    story the chat was `sent` (`first_copies` over the sent stories, then the new posts; the
    edits apart: an edit two copies carry is listed once, and is never a copy of a new post)."""
    copies: dict[int, int] = {}
    told: set[int] = set()
    stories = [story_of(h.link, h.title, h.text) for _, h in posts]
    for updated in (False, True):
        subset = [i for i, (_, h) in enumerate(posts) if h.updated is updated]
        before = [] if updated else sent
        folded = first_copies([*before, *((posts[i][0], stories[i]) for i in subset)])
        for copy, first in folded.items():
            if copy < len(before):
                continue  # one sent story repeating another
            index = subset[copy - len(before)]
            if first < len(before):
                told.add(index)
            else:
                copies[index] = subset[first - len(before)]
    return copies, told
