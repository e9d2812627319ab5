"""One feed's poll result, stored in the caller's transaction: read → plan → enqueue → write.

Storage is read once (`store.read_poll`), the core plans once (`core/polls/plan.py`: the feed's new
state, re-keys, item writes, changes), the outbox planner turns the changes into messages, and
storage executes it all once (`store.write_poll`). This module only sequences and logs; the
poller (`polling.py`) sequences the cycle around it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlmodel import Session

from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import read_feed
from bot.core.messages.article import Article
from bot.core.messages.modeltext import Written
from bot.core.polls.alerts import AlertKind, AlertStep
from bot.core.polls.decide import FeedIntent, FeedState, FetchResult, PollKind
from bot.core.polls.plan import PollPlan, Rules, make_plan
from bot.core.types import Change, ChangeKind, FeedInfo, MessageKind, RawFeed
from bot.core.urls import redact_urls
from bot.db import store
from bot.runtime.config import Settings
from bot.services.cpu import parse_off_loop
from bot.services.outbox import plan_alert, plan_changes

log = logging.getLogger("bot.services.polling")


@dataclass(frozen=True, slots=True)
class Extras:
    """What new posts' messages get besides the feed, by post key: the articles read from
    their pages (full text) and what the operator's language model wrote."""

    articles: Mapping[str, Article] = field(default_factory=dict)
    written: Mapping[str, Written] = field(default_factory=dict)


@dataclass
class PollOutcome:
    """What happened to one feed in one poll."""

    slug: str
    outcome: PollKind
    changes: tuple[Change, ...] = ()
    error: str | None = None
    items: int = 0
    feed_title: str = ""


def apply_result(
    session: Session,
    feed_id: int,
    result: FetchResult | str,
    now: datetime,
    settings: Settings,
    raw: RawFeed | NotAFeed | None = None,
    extras: Extras | None = None,
) -> PollOutcome:
    """One feed's poll result, stored in the caller's transaction. `raw`: the body already
    read as a feed (in the parsing pool); `extras`: what new posts' messages get besides the
    feed (their pages, the model's texts)."""
    extras = extras or Extras()
    if raw is None and isinstance(result, FetchResult) and result.status == 200:
        raw = _read(result)
    entries = raw.entries if isinstance(raw, RawFeed) else ()
    known = store.read_poll(session, feed_id=feed_id, entries=entries)
    if known is None:
        return PollOutcome(f"#{feed_id}", PollKind.ERROR, error="feed was removed")
    plan = make_plan(
        known,
        result,
        raw,
        now,
        rules_of(settings),
        articles=extras.articles,
        model_texts=bool(extras.written),
    )
    feed = plan.feed
    _log_plan(plan)
    rows = []
    if plan.changes:
        info = FeedInfo(slug=feed.slug, title=plan.shown_title)
        rows = plan_changes(
            plan.changes,
            known.audience,
            info,
            feed.id,
            settings.max_new_per_poll,
            extras.written,
            now,
        )
        if any(row.kind is MessageKind.LIST for row in rows):
            log.info(
                "feed %s: %d new items in one poll (over MAX_NEW_PER_POLL=%d): each chat gets "
                "one list instead of a message per item",
                feed.slug,
                sum(1 for c in plan.changes if c.kind is ChangeKind.NEW),
                settings.max_new_per_poll,
            )
    store.write_poll(session, plan=plan, rows=rows)
    if plan.alert.send is not None:
        alert_operators(session, feed, plan.intent, plan.alert, settings.bot_admin_ids)
    if plan.churn is not None and plan.churn.alert:
        told = replace(plan.alert, send=AlertKind.CHURNING)
        alert_operators(session, feed, plan.intent, told, settings.bot_admin_ids)
    return PollOutcome(
        feed.slug,
        plan.kind,
        plan.changes,
        plan.intent.error,
        plan.items,
        feed_title=plan.shown_title,
    )


def rules_of(settings: Settings) -> Rules:
    return Rules(
        interval_seconds=settings.poll_interval_seconds,
        alert_after=timedelta(seconds=settings.feed_alert_after_seconds),
        keep_days=settings.prune_after_days,
        max_items=settings.max_items_per_feed,
    )


def _read(result: FetchResult) -> RawFeed | NotAFeed:
    try:
        return read_feed(result.body, result.headers)
    except NotAFeed as exc:
        return exc


def _log_plan(plan: PollPlan) -> None:
    """What the plan absorbed or worked around, one line each."""
    slug = plan.feed.slug
    if plan.intent.new_url:
        log.info("feed %s: moved permanently to %s", slug, redact_urls(plan.intent.new_url))
    if plan.warning:
        log.info("feed %s: %s", slug, plan.warning)
    if plan.notes:
        log.info("feed %s: %s", slug, plan.notes)
    if plan.churn is not None and plan.churn.alert:
        log.warning(
            "feed %s: %d of %d items new again in %d polls in a row: churning identities; "
            "polled every %.0f s from now on",
            slug,
            plan.inserted,
            plan.items,
            plan.churn.polls,
            plan.intent.pace_seconds,
        )


async def parsed(result: FetchResult | str) -> RawFeed | NotAFeed:
    """The fetched body read as a feed in the parsing pool (or why it is not one)."""
    assert isinstance(result, FetchResult)
    try:
        return await parse_off_loop(read_feed, result.body, result.headers)
    except NotAFeed as exc:
        return exc


def alert_operators(
    session: Session, feed: FeedState, intent: FeedIntent, step: AlertStep, operators: Iterable[int]
) -> None:
    """One private message to each operator (queued in the poll's transaction, like posts)."""
    assert step.send is not None
    log.warning("feed %s: telling the operators it is %s", feed.slug, step.send.value)
    languages = {op: store.ensure_private_chat(session, chat_id=op) for op in sorted(operators)}
    store.enqueue(session, rows=plan_alert(step.send, feed, intent, step, languages))
