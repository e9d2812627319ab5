"""One feed's poll result, stored in the caller's transaction: decide → parse → reconcile →
detect → save items and outbox rows → prune → write the feed's intent (with operator alerts and
the churn rule). The poller (`polling.py`) sequences the cycle around it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlmodel import Session

from bot.config import Settings
from bot.core.alerts import AlertKind, AlertStep, alert_step
from bot.core.article import Article
from bot.core.churn import churn_step, slowed_pace
from bot.core.decide import (
    FeedIntent,
    FeedState,
    FetchResult,
    PollKind,
    after_parse,
    decide,
    failed,
)
from bot.core.detect import detect, explain
from bot.core.entries import NotAFeed
from bot.core.fulltext import excerpt_only, with_article
from bot.core.identity import Rekey, identity_of, reconcile
from bot.core.model import Change, ChangeKind, FeedInfo, RawFeed, StoredItem
from bot.core.modeltext import Written
from bot.core.parse import finish_feed, read_feed
from bot.core.schedule import next_check
from bot.core.urls import redact_urls
from bot.db import store
from bot.services.cpu import parse_off_loop
from bot.services.outbox import FLOOD, plan_alert, plan_changes

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
    feed: FeedState,
    result: FetchResult | str,
    now: datetime,
    settings: Settings,
    raw: RawFeed | NotAFeed | None = None,
    extras: Extras | None = None,
) -> PollOutcome:
    """One feed's poll result, stored in the caller's transaction; `extras`: what new posts'
    messages get besides the feed (their pages, the model's texts)."""
    extras = extras or Extras()
    interval = settings.poll_interval_seconds
    intent = decide(feed, result, now, interval)
    changes: tuple[Change, ...] = ()
    items, title, churn, inserted, excerpts = 0, None, None, 0, None
    if intent.new_url:
        log.info("feed %s: moved permanently to %s", feed.slug, redact_urls(intent.new_url))
    if intent.parse:
        assert isinstance(result, FetchResult)
        try:
            if isinstance(raw, NotAFeed):
                raise raw
            raw = raw or read_feed(result.body, result.headers)
        except NotAFeed as exc:
            intent = failed(feed, str(exc), now, feed.interval_seconds or interval)
        else:
            if raw.warning:
                log.info("feed %s: %s", feed.slug, raw.warning)
            intent = after_parse(intent, feed, result, raw.ttl_seconds, interval)
            if raw.title and (not feed.title or feed.title == feed.slug):
                title = raw.title
            changes, items, inserted, excerpts = store_items(
                session, feed, title or feed.title, raw, now, settings, extras
            )
            churn = churn_step(feed.churn_polls or 0, inserted if feed.baseline_done else 0, items)
    step = alert_step(feed, intent, timedelta(seconds=settings.feed_alert_after_seconds))
    if churn is not None and churn.slowed:
        pace = slowed_pace(intent.pace_seconds)
        intent = replace(intent, next_check_at=next_check(now, pace), pace_seconds=pace)
    store.apply_intent(
        session,
        feed_id=feed.id,
        intent=intent,
        title=title,
        alert=step,
        churn_polls=churn.polls if churn is not None else None,
        excerpt_only=excerpts,
    )
    if step.send is not None:
        alert_operators(session, feed, intent, step, settings.bot_admin_ids)
    if churn is not None and churn.alert:
        log.warning(
            "feed %s: %d of %d items new again in %d polls in a row: churning identities; "
            "polled every %.0f s from now on",
            feed.slug,
            inserted,
            items,
            churn.polls,
            intent.pace_seconds,
        )
        told = replace(step, send=AlertKind.CHURNING)
        alert_operators(session, feed, intent, told, settings.bot_admin_ids)
    kind = intent.kind
    if kind is PollKind.CHANGED and not changes:
        kind = PollKind.UNCHANGED
    return PollOutcome(
        feed.slug, kind, changes, intent.error, items, feed_title=title or feed.title
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


def store_items(
    session: Session,
    feed: FeedState,
    title: str,
    raw: RawFeed,
    now: datetime,
    settings: Settings,
    extras: Extras,
) -> tuple[tuple[Change, ...], int, int, bool]:
    """Reconcile unseen keys, detect against the stored items, save them, queue the outbox
    rows, prune old and surplus items; one log line says what was absorbed instead of
    announced. Returns the changes, the document's items, how many were inserted and whether
    every item is an excerpt. Detection reads the feed alone; `extras` (articles, model
    texts) only change what new posts' messages show."""
    articles, written = extras.articles, extras.written
    stored = store.stored_items(session, feed_id=feed.id, keys=[e.key for e in raw.entries])
    rekeys = _rekey(session, feed, raw, stored) if feed.baseline_done else []
    has_stored, newest = bool(stored), None
    if feed.baseline_done and not stored:  # nothing in this document is known: look wider
        has_stored, newest = store.newest_stored(session, feed_id=feed.id)
    parsed = finish_feed(raw, stored)
    inserted = sum(1 for item in parsed.items if item.key not in stored)
    detection = detect(
        parsed,
        stored,
        baseline=not feed.baseline_done,
        newest_stored=newest,
        has_stored=has_stored,
    )
    ids = store.save_items(
        session, feed_id=feed.id, parsed=parsed, detection=detection, stored=stored, now=now
    )
    explained = explain(rekeys, detection)
    if explained:
        log.info("feed %s: %s", feed.slug, explained)
    if articles:
        store.save_articles(session, feed_id=feed.id, articles=articles, now=now)
    changes = tuple(
        replace(c, item=with_article(c.item, articles[c.item.key]))
        if c.kind is ChangeKind.NEW and c.item.key in articles
        else c
        for c in detection.changes
    )
    if changes:
        audience = store.feed_audience(session, feed_id=feed.id)
        info = FeedInfo(slug=feed.slug, title=title)
        rows = plan_changes(
            changes, ids, audience, info, feed.id, settings.max_new_per_poll, written, now
        )
        if any(row.kind == FLOOD for row in rows):
            log.info(
                "feed %s: %d new items in one poll (over MAX_NEW_PER_POLL=%d): each chat gets "
                "one list instead of a message per item",
                feed.slug,
                sum(1 for c in detection.changes if c.kind is ChangeKind.NEW),
                settings.max_new_per_poll,
            )
        store.enqueue(session, rows=rows)
    if written:
        store.prune_model_texts(
            session, feed_id=feed.id, before=now - timedelta(days=settings.prune_after_days)
        )
    store.prune_items(
        session,
        feed_id=feed.id,
        unseen_since=now - timedelta(days=settings.prune_after_days),
        keep=settings.max_items_per_feed,
        seen_at=now,
    )
    return changes, len(parsed.items), inserted, excerpt_only(parsed.items)


def _rekey(
    session: Session, feed: FeedState, raw: RawFeed, stored: dict[str, StoredItem]
) -> list[Rekey]:
    """Stored posts found again under new keys are moved to them (and added to `stored`)."""
    unseen = [e for e in raw.entries if e.key not in stored]
    if not unseen:
        return []
    candidates = store.identity_candidates(
        session,
        feed_id=feed.id,
        identities=[identity_of(e.key, e.link, e.title, e.published) for e in unseen],
        present=[e.key for e in raw.entries],
    )
    rekeys = reconcile(raw.entries, stored, candidates)
    if rekeys:
        store.rekey_items(session, feed_id=feed.id, moves=[(r.old_key, r.new_key) for r in rekeys])
        by_key = {c.key: c for c in candidates}
        for rekey in rekeys:
            # identity=None: the new key's identity is computed and written when it is saved
            stored[rekey.new_key] = replace(by_key[rekey.old_key], key=rekey.new_key, identity=None)
    return rekeys
