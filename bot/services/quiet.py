"""Release what quiet hours held once a chat's window is over (run every poll tick, beside
digests): a few messages go as they were, more than `DIGEST_AFTER` become one digest per feed.
The messages are in the outbox the whole time, so a restart during the window loses nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from sqlalchemy import Engine

from bot.core.rules import quiet
from bot.db import store
from bot.db.engine import transaction
from bot.runtime.clock import Clock, utcnow
from bot.services.outbox import plan_digest

log = logging.getLogger(__name__)


def release_quiet(engine: Engine, clock: Clock = utcnow) -> int:
    """Release every chat whose quiet hours are over; return how many messages were queued."""
    now = clock()
    queued = 0
    with transaction(engine) as session:
        for chat in store.quiet_held(session):
            window = quiet.stored(chat.quiet)
            if window is not None and window.holds(now, chat.timezone):
                continue  # still quiet there
            ids = chat.delivery_ids
            if len(ids) <= quiet.DIGEST_AFTER:
                store.release_held(session, delivery_ids=ids)
                queued += len(ids)
                continue
            for feed_id, held in chat.by_feed.items():
                reader = store.get_subscription(session, chat_id=chat.chat_id, feed_id=feed_id)
                feed = store.feed_by_id(session, feed_id=feed_id)
                if reader is None or feed is None:  # unsubscribed meanwhile: nothing to send
                    store.mark_digested(session, delivery_ids=[h.delivery_id for h in held])
                    continue
                _, language = store.chat_language(session, chat_id=chat.chat_id)
                reader = replace(reader, language=language, timezone=chat.timezone)
                store.mark_digested(session, delivery_ids=[h.delivery_id for h in held])
                rows = plan_digest(held, reader, feed.title)
                store.enqueue(session, rows=rows)
                queued += len(rows)
            log.info("chat %s: quiet hours over, %d held posts as a digest", chat.chat_id, len(ids))
    return queued
