"""The polls that found nothing new (a 304, the same body): written in one batch per cycle.

Such a poll changes only its feed's schedule (and maybe its validators), and most polls are
quiet: one transaction for the batch keeps their cost a fraction of a millisecond each.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from bot.core.polls.decide import FeedIntent
from bot.core.polls.schedule import LAST_CYCLE_KEY
from bot.db import store
from bot.db.engine import transaction
from bot.db.reserve import disk_full

if TYPE_CHECKING:
    from sqlmodel import Session

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class QuietPoll:
    """A poll that found nothing new: only its schedule (and maybe validators) change."""

    feed_id: int
    intent: FeedIntent


def record_quiet(
    engine: Engine, quiet: list[QuietPoll], now: datetime, *, cycle_finished: bool = False
) -> None:
    """One transaction for every feed that answered 304 or the same body. Should the batch
    fail, each feed is written alone: one feed's fault stays that feed's."""
    from bot.runtime.metrics import cpu_of  # not at import: a dry run loads no metrics

    with cpu_of("quiet"):
        _record(engine, quiet, now, cycle_finished=cycle_finished)


def _record(engine: Engine, quiet: list[QuietPoll], now: datetime, *, cycle_finished: bool) -> None:
    try:
        with transaction(engine) as session:
            _mark_quiet(session, quiet, now)
            if cycle_finished:
                store.set_state(session, key=LAST_CYCLE_KEY, value=now.isoformat(), now=now)
        return
    except Exception as exc:
        if disk_full(exc) or len(quiet) <= 1:
            raise
        log.warning("quiet polls: the batch write failed (%s); writing each feed alone", exc)
    for one in quiet:
        try:
            with transaction(engine) as session:
                _mark_quiet(session, [one], now)
        except Exception as exc:
            first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            log.error("feed #%d: could not record its quiet poll: %s", one.feed_id, first)


def _mark_quiet(session: Session, quiet: list[QuietPoll], now: datetime) -> None:
    """Each feed's next check counts from its own poll (`intent.next_check_at`), not from when
    the batch is written: a long cycle must not push every quiet feed back by its length."""
    store.mark_feeds_checked(
        session,
        feed_ids=[q.feed_id for q in quiet],
        now=now,
        next_check_at={q.feed_id: q.intent.next_check_at for q in quiet},
        validators={
            q.feed_id: (q.intent.etag, q.intent.last_modified)
            for q in quiet
            if q.intent.validators_changed
        },
    )
