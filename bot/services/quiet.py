"""Release what quiet hours held once a chat's window is over (run every poll tick, beside
digests): a few messages go as they were, more than `DIGEST_AFTER` become one digest per feed.
The messages are in the outbox the whole time, so a restart during the window loses nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from sqlalchemy import Engine
from sqlmodel import Session

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
                queued += _release(engine, chat)
        if len(chats) < page:
            return queued
        after = chats[-1].chat_id


def _release(engine: Engine, chat: store.QuietChat) -> int:
    """One chat's held messages: a few go as they were, more become a digest per feed."""
    queued = 0
    with transaction(engine) as session:
        by_feed = store.quiet_held_ids(session, chat_id=chat.chat_id)
        ids = [i for held in by_feed.values() for i in held]
        if len(ids) <= quiet.DIGEST_AFTER:
            store.release_held(session, delivery_ids=ids)
            return len(ids)
        for feed_id in by_feed:
            reader = store.get_subscription(session, chat_id=chat.chat_id, feed_id=feed_id)
            feed = store.feed_by_id(session, feed_id=feed_id)
            if reader is None or feed is None:  # unsubscribed meanwhile: nothing to send
                store.mark_digested(session, delivery_ids=by_feed[feed_id])
                continue
            held = store.held_for(session, chat_id=chat.chat_id, feed_id=feed_id)
            _, language = store.chat_language(session, chat_id=chat.chat_id)
            reader = replace(reader, language=language, timezone=chat.timezone)
            store.mark_digested(session, delivery_ids=[h.delivery_id for h in held])
            rows = plan_digest(held, reader, feed.title)
            store.enqueue(session, rows=rows)
            queued += len(rows)
    log.info("chat %s: quiet hours over, %d held posts as a digest", chat.chat_id, len(ids))
    return queued
