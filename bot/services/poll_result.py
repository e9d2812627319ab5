"""One feed's poll result: read → plan → route, then (enriched) render → write.

Storage is read once (`store.read_poll`), the core plans once (`core/polls/plan.py`: the feed's
new state, re-keys, item writes, changes) and routes once (`core/polls/fanout.py`: who gets
which change), all outside any write transaction (`decide_poll`). What the routed new posts
get besides the feed (pages, the model's texts: `enrich.py`) joins them in `render_poll`, and
storage executes it all once, in one transaction (`write_poll`). This module only sequences
and logs; the poller (`polling.py`) sequences the cycle around it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial

from sqlmodel import Session

from bot.core.feeds.changed import read_changed
from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import read_feed
from bot.core.messages.article import Article
from bot.core.messages.modeltext import ModelText, Written
from bot.core.polls.alerts import AlertKind, AlertStep
from bot.core.polls.decide import FeedIntent, FeedState, FetchResult, PollKind
from bot.core.polls.fanout import Fanout, route
from bot.core.polls.plan import Known, PollPlan, Rules, enriched, make_plan
from bot.core.polls.shares import Share
from bot.core.types import ChangeKind, FeedInfo, MessageKind, RawFeed, StoredItem
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.store import OutboxRow, StoredPage
from bot.db.store.follows import Follower, followers
from bot.runtime.config import Settings
from bot.runtime.metrics import cpu_of
from bot.services.cpu import parse_off_loop
from bot.services.outbox import (
    plan_alert,
    plan_fanout,
    plan_follows,
    plan_model_alert,
    searched_text,
)
from bot.services.outcome import PollOutcome
from bot.services.telegraph import Pages

log = logging.getLogger("bot.services.polling")


@dataclass(frozen=True, slots=True)
class Extras:
    """What the plan's new posts get besides the feed, by post key: the articles read from
    their pages (full text), what the operator's language model wrote and the answers to keep
    (by cache key), and the model's shares this poll found spent (operators are told)."""

    articles: Mapping[str, Article] = field(default_factory=dict)
    written: Mapping[str, Written] = field(default_factory=dict)
    fresh: Mapping[str, ModelText] = field(default_factory=dict)
    spent: tuple[Share, ...] = ()
    model_used: bool = False
    pages: Pages = field(default_factory=Pages)  # Telegraph's, of long posts (issue 47)


@dataclass(frozen=True, slots=True)
class Decided:
    """One poll decided before anything is fetched for it or written: what storage knew, the
    plan, and who gets which change (every chat's rules checked, the flood rule applied)."""

    known: Known
    plan: PollPlan
    fanout: Fanout
    followers: tuple[Follower, ...] = ()  # chats following an edited post (by its key)


@dataclass(frozen=True, slots=True)
class Rendered:
    """A decided poll with its extras, ready to write: the plan as shown and the messages."""

    plan: PollPlan
    rows: list[OutboxRow]
    spent: tuple[Share, ...] = ()
    pages: Mapping[str, StoredPage] = field(default_factory=dict)


def decide_poll(
    session: Session,
    feed_id: int,
    result: FetchResult | str,
    now: datetime,
    settings: Settings,
    raw: RawFeed | NotAFeed | None = None,
    model_keys: store.ModelKeys | None = None,
) -> Decided | PollOutcome:
    """Read once, plan once, route once: nothing here writes (`session` may be read-only).
    `raw`: the body already read as a feed (in the parsing pool), or why it is not one;
    `model_keys`: which of the model's stored answers the read brings along."""
    if raw is None and isinstance(result, FetchResult) and result.status == 200:
        raw = _read(result)
    entries = raw.entries if isinstance(raw, RawFeed) else ()
    with cpu_of("read"):
        known = store.read_poll(session, feed_id=feed_id, entries=entries, model_keys=model_keys)
    if known is None:
        return removed(feed_id)
    with cpu_of("plan"):
        plan = make_plan(known, result, raw, now, rules_of(settings))
    _log_plan(plan)
    most = settings.max_new_per_poll
    edited = [c.item.key for c in plan.changes if c.kind is ChangeKind.EDITED]
    with cpu_of("read"):
        told = store.told_about(session, feed_id=feed_id, keys=edited) if edited else None
        found = followers(session, feed_id=feed_id, keys=edited, now=now) if edited else []
    with cpu_of("plan"):
        fanout = (
            route(plan.changes, known.audience, now, most, told)
            if plan.changes
            else Fanout((), most)
        )
    return Decided(known, plan, fanout, tuple(found))


def render_poll(decided: Decided, settings: Settings, extras: Extras | None = None) -> Rendered:
    """The messages of a decided poll, with its pages and the model's texts (outside the
    write transaction: this renders, and checks the keywords that waited for the model)."""
    extras = extras or Extras()
    plan = enriched(decided.plan, extras.articles, extras.fresh, model_used=extras.model_used)
    if not plan.changes:
        return Rendered(plan, [], extras.spent, extras.pages.stored)
    fanout = decided.fanout.settled(searched_text(extras.written))
    info = FeedInfo(slug=plan.feed.slug, title=plan.shown_title)
    rows = plan_fanout(fanout, plan.changes, info, plan.feed.id, extras.written, extras.pages.urls)
    rows += plan_follows(fanout, plan.changes, decided.followers, info, plan.feed.id)
    if any(row.kind is MessageKind.LIST for row in rows):
        log.info(
            "feed %s: %d new items in one poll (over MAX_NEW_PER_POLL=%d): each chat that "
            "would get more gets one list instead of a message per item",
            plan.feed.slug,
            sum(1 for c in plan.changes if c.kind is ChangeKind.NEW),
            settings.max_new_per_poll,
        )
    return Rendered(plan, rows, extras.spent, extras.pages.stored)


def write_poll(session: Session, rendered: Rendered, settings: Settings) -> PollOutcome:
    """Store a rendered poll in the caller's transaction: the plan, its messages, and what
    operators are told (a feed's health, a model share it spent)."""
    plan = rendered.plan
    feed = plan.feed
    if not store.write_poll(session, plan=plan, rows=rendered.rows):
        return removed(feed.id)
    if rendered.pages:
        now = plan.intent.checked_at
        store.save_telegraph_pages(session, feed_id=feed.id, pages=rendered.pages, now=now)
    if plan.alert.send is not None:
        alert_operators(session, feed, plan.intent, plan.alert, settings.bot_admin_ids)
    if plan.churn is not None and plan.churn.alert:
        told = replace(plan.alert, send=AlertKind.CHURNING)
        alert_operators(session, feed, plan.intent, told, settings.bot_admin_ids)
    if rendered.spent:
        alert_model_share(session, feed, rendered.spent, settings.bot_admin_ids)
    return outcome_of(plan)


def outcome_of(plan: PollPlan) -> PollOutcome:
    return PollOutcome(
        plan.feed.slug,
        plan.kind,
        plan.changes,
        plan.intent.error,
        plan.items,
        feed_title=plan.shown_title,
    )


def apply_result(
    session: Session,
    feed_id: int,
    result: FetchResult | str,
    now: datetime,
    settings: Settings,
    raw: RawFeed | NotAFeed | None = None,
) -> PollOutcome:
    """A poll with nothing to fetch for its posts (a new feed's baseline), decided and stored
    in the caller's transaction."""
    decided = decide_poll(session, feed_id, result, now, settings, raw)
    if isinstance(decided, PollOutcome):
        return decided
    return write_poll(session, render_poll(decided, settings), settings)


def removed(feed_id: int) -> PollOutcome:
    return PollOutcome(f"#{feed_id}", PollKind.ERROR, error="feed was removed")


def rules_of(settings: Settings) -> Rules:
    return Rules(
        interval_seconds=settings.poll_interval_seconds,
        alert_after=timedelta(seconds=settings.feed_alert_after_seconds),
        keep_days=settings.prune_after_days,
        max_items=settings.max_items_per_feed,
    )


def _read(result: FetchResult) -> RawFeed | NotAFeed:
    try:
        return read_feed(result.body, result.headers, result.url)
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


async def parsed(
    result: FetchResult | str, known: Mapping[str, StoredItem] | None = None, *, quick: bool = True
) -> RawFeed | NotAFeed:
    """The fetched body read as a feed in the parsing pool (or why it is not one). `known`:
    the feed's items of its last document by raw hash, which stand for the same bytes unread
    (`core/feeds/changed.py`); `quick` off: the document is read whole, and hashes nothing."""
    assert isinstance(result, FetchResult)
    body, headers, url = result.body, result.headers, result.url
    try:
        if not quick:
            whole = partial(read_feed, hashed=False)
            return await parse_off_loop(_parse, whole, body, headers, url)
        return await parse_off_loop(_parse, read_changed, body, headers, url, known or {})
    except NotAFeed as exc:
        return exc


def _parse(read: Callable[..., RawFeed], *args: object) -> RawFeed:
    """`read(*args)`, its CPU counted as the poll's parse (runs in the parsing pool)."""
    with cpu_of("parse"):
        return read(*args)


def alert_model_share(
    session: Session, feed: FeedState, spent: tuple[Share, ...], operators: Iterable[int]
) -> None:
    """Operators hear which feed spent a share of the model's hour (once a share and hour)."""
    languages = {op: store.ensure_private_chat(session, chat_id=op) for op in sorted(operators)}
    store.enqueue(session, rows=plan_model_alert(feed, spent, languages))


def alert_operators(
    session: Session, feed: FeedState, intent: FeedIntent, step: AlertStep, operators: Iterable[int]
) -> None:
    """One private message to each operator (queued in the poll's transaction, like posts)."""
    assert step.send is not None
    log.warning("feed %s: telling the operators it is %s", feed.slug, step.send.value)
    languages = {op: store.ensure_private_chat(session, chat_id=op) for op in sorted(operators)}
    store.enqueue(session, rows=plan_alert(step.send, feed, intent, step, languages))
