"""Turn held messages into digests when a subscription's period is over (run every poll tick).

Items for a digest subscription are held in the outbox (status `held`) in the same transaction
that stores them, like any delivery; when the period ends, one transaction marks them digested
and queues the digest message(s) as ordinary pending deliveries, so the delivery loop, its
order and its crash safety apply unchanged.
"""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Engine

from bot.core.messages.digest import is_due
from bot.db import store
from bot.db.engine import transaction
from bot.runtime.clock import Clock, utcnow
from bot.services.outbox import plan_digest

log = logging.getLogger(__name__)


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def run_digests(engine: Engine, clock: Clock = utcnow) -> int:
    """Queue every digest that is due; return how many digest messages were queued."""
    now = clock()
    queued = 0
    with transaction(engine) as session:
        for due in store.digest_subscriptions(session):
            if due.top is not None:  # the chat's ranked digest across feeds (`ranked.py`)
                continue
            schedule = due.schedule
            if not is_due(schedule.mode, schedule.at, zone(due.timezone), due.last, now):
                continue
            reader = due.audience
            store.digest_sent(session, chat_id=reader.chat_id, feed_id=reader.feed_id, at=now)
            held = store.held_for(session, chat_id=reader.chat_id, feed_id=reader.feed_id)
            if not held:
                continue
            store.mark_digested(session, delivery_ids=[h.delivery_id for h in held])
            rows = plan_digest(held, reader, due.feed_title)
            store.enqueue(session, rows=rows)
            queued += len(rows)
            # What the message lists: a post new and then edited in the period is one line.
            posts = len({h.item_id for h in held})
            log.info(
                "chat %s: digest of %d post%s queued",
                reader.chat_id,
                posts,
                "" if posts == 1 else "s",
            )
    return queued
