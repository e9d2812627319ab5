"""One poll cycle, sequenced: claim → fetch → decide → apply.

Fetches run concurrently (bounded). `bot.core.decide` says what each answer means; a quiet poll
(304, or the same body) is only noted and written in one batch per cycle; anything else is
parsed, detected and stored in a worker thread, one transaction per feed, with the outbox rows
for every chat that wants the changes. A failing feed never affects another, and the event loop
stays free for Telegram.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from bot import metrics
from bot.clock import Clock, utcnow
from bot.config import Settings
from bot.core.alerts import AlertKind, AlertStep, alert_step
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
from bot.core.identity import Rekey, identity_of, reconcile
from bot.core.model import Change, ChangeKind, FeedInfo, RawFeed, StoredItem
from bot.core.parse import finish_feed, read_feed
from bot.core.schedule import next_check
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.engine import transaction, writer
from bot.db.reserve import disk_full, keep_reserve
from bot.fetch import Fetcher, FetchError
from bot.services.cpu import parse_off_loop
from bot.services.outbox import FLOOD, plan_alert, plan_changes

log = logging.getLogger(__name__)
LAST_CYCLE_KEY = "last_poll_cycle_finished"
CLAIM_BATCH = 500


@dataclass
class PollOutcome:
    """What happened to one feed in one poll."""

    slug: str
    outcome: PollKind
    changes: tuple[Change, ...] = ()
    error: str | None = None
    items: int = 0
    feed_title: str = ""


@dataclass
class CycleReport:
    outcomes: list[PollOutcome] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: PollKind) -> int:
        return sum(1 for o in self.outcomes if o.outcome == outcome)

    @property
    def new(self) -> int:
        return sum(1 for o in self.outcomes for c in o.changes if c.kind is ChangeKind.NEW)

    @property
    def edited(self) -> int:
        return sum(1 for o in self.outcomes for c in o.changes if c.kind is ChangeKind.EDITED)

    def summary(self) -> str:
        errors = self.count(PollKind.ERROR) + self.count(PollKind.GONE)
        return (
            f"poll cycle: {len(self.outcomes)} feeds, {self.count(PollKind.NOT_MODIFIED)} not "
            f"modified, {self.count(PollKind.UNCHANGED)} unchanged, {self.new} new, "
            f"{self.edited} edited, {errors} errors, {self.seconds:.2f} s"
        )


@dataclass(frozen=True, slots=True)
class QuietPoll:
    """A poll that found nothing new: only its schedule (and maybe validators) change."""

    feed_id: int
    intent: FeedIntent


class Poller:
    def __init__(
        self,
        engine: Engine,
        fetcher: Fetcher,
        settings: Settings,
        clock: Clock = utcnow,
        owner: str = "feedwatch",
    ) -> None:
        self.engine = engine
        self.fetcher = fetcher
        self.settings = settings
        self.clock = clock
        self.owner = owner
        self._full_said = False  # a full disk is said once per cycle, not once per feed

    async def poll_due(self, *, dry_run: bool = False, all_feeds: bool = False) -> CycleReport:
        started = time.monotonic()
        gate = asyncio.Semaphore(self.settings.poll_concurrency)
        quiet: list[QuietPoll] = []
        self._full_said = False
        if not dry_run:
            await asyncio.to_thread(keep_reserve, self.engine)

        async def bounded(feed: FeedState) -> PollOutcome:
            async with gate:
                return await self._poll(feed, quiet, dry_run=dry_run)

        outcomes: list[PollOutcome] = []
        while True:  # claims come in batches; polled feeds are no longer due
            feeds = await asyncio.to_thread(self._claim, dry_run=dry_run, all_feeds=all_feeds)
            outcomes += await asyncio.gather(*(bounded(feed) for feed in feeds))
            if dry_run or all_feeds or len(feeds) < CLAIM_BATCH:
                break
        report = CycleReport(outcomes=outcomes, seconds=time.monotonic() - started)
        if not dry_run:
            await asyncio.to_thread(self._record_quiet, quiet, cycle_finished=True)
        log.log(logging.INFO if report.outcomes else logging.DEBUG, report.summary())
        return report

    async def poll_feed(self, feed_id: int, *, dry_run: bool = False) -> PollOutcome:
        """Poll one feed now, whatever its schedule (tests, benchmarks, the CLI)."""
        with Session(self.engine) as session:
            found = store.feed_snapshots(session, feed_id=feed_id)
        if not found:
            return PollOutcome(f"#{feed_id}", PollKind.ERROR, error="feed was removed")
        quiet: list[QuietPoll] = []
        outcome = await self._poll(found[0], quiet, dry_run=dry_run)
        if not dry_run and quiet:
            await asyncio.to_thread(self._record_quiet, quiet)
        return outcome

    def _claim(self, *, dry_run: bool, all_feeds: bool) -> list[FeedState]:
        """Feeds this process polls now, leased so that other workers skip them."""
        now = self.clock()
        if dry_run:  # a dry run writes nothing, leases included
            with Session(self.engine) as session:
                return store.feed_snapshots(session, now=None if all_feeds else now)
        lease = now + timedelta(seconds=2 * self.settings.fetch_timeout_seconds + 60)
        with transaction(self.engine) as session:
            return store.claim_feeds(
                session,
                now=now,
                owner=self.owner,
                lease_until=lease,
                due_only=not all_feeds,
                limit=None if all_feeds else CLAIM_BATCH,
            )

    async def _poll(self, feed: FeedState, quiet: list[QuietPoll], *, dry_run: bool) -> PollOutcome:
        try:
            result: FetchResult | str = await self.fetcher.fetch(
                feed.url, etag=feed.etag, last_modified=feed.last_modified, trusted=feed.trusted
            )
        except FetchError as exc:
            result = str(exc)
        intent = decide(feed, result, self.clock(), self.settings.poll_interval_seconds)
        if intent.quiet and feed.failing_since is None and feed.alert is None:
            quiet.append(QuietPoll(feed.id, intent))
            outcome = PollOutcome(feed.slug, intent.kind, feed_title=feed.title)
        else:
            try:
                raw = await parsed(result) if intent.parse else None
                outcome = await asyncio.to_thread(self._apply, feed.id, result, dry_run, raw)
            except Exception as exc:  # a bug or a database fault must not stop the other feeds
                if not disk_full(exc):
                    log.exception("feed %s: could not store the poll result", feed.slug)
                elif not self._full_said:
                    self._full_said = True
                    log.error(
                        "the database's disk is full: poll results are not stored (feed %s "
                        "and others); they are polled again when space returns",
                        feed.slug,
                    )
                return PollOutcome(feed.slug, PollKind.ERROR, error=f"internal error: {exc}")
        if outcome.error:
            log.warning("feed %s: %s", feed.slug, outcome.error)
        if not dry_run:
            metrics.POLLS.labels(outcome.outcome.value).inc()
            for change in outcome.changes:
                metrics.ITEMS.labels(change.kind.value).inc()
        return outcome

    def _record_quiet(self, quiet: list[QuietPoll], *, cycle_finished: bool = False) -> None:
        """One transaction for every feed that answered 304 or the same body. Should the batch
        fail, each feed is written alone: one feed's fault stays that feed's."""
        now = self.clock()
        try:
            with transaction(self.engine) as session:
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
                with transaction(self.engine) as session:
                    _mark_quiet(session, [one], now)
            except Exception as exc:
                first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                log.error("feed #%d: could not record its quiet poll: %s", one.feed_id, first)

    def _apply(
        self,
        feed_id: int,
        result: FetchResult | str,
        dry_run: bool,
        raw: RawFeed | NotAFeed | None = None,
    ) -> PollOutcome:
        """Decide again on the feed's current row, then store it all in one transaction."""
        with Session(writer(self.engine), expire_on_commit=False) as session:
            found = store.feed_snapshots(session, feed_id=feed_id)
            if not found:
                return PollOutcome(f"#{feed_id}", PollKind.ERROR, error="feed was removed")
            outcome = self.apply(session, found[0], result, raw)
            if dry_run:
                session.rollback()
            else:
                session.commit()
            return outcome

    def apply(
        self,
        session: Session,
        feed: FeedState,
        result: FetchResult | str,
        raw: RawFeed | NotAFeed | None = None,
    ) -> PollOutcome:
        """decide → (parse → detect → store items and outbox) → write the feed's intent.
        `raw`: the body already parsed (in the parsing pool), or why it is not a feed."""
        return apply_result(session, feed, result, self.clock(), self.settings, raw)


def _mark_quiet(session: Session, quiet: list[QuietPoll], now: datetime) -> None:
    store.mark_feeds_checked(
        session,
        feed_ids=[q.feed_id for q in quiet],
        now=now,
        next_check_at={q.feed_id: next_check(now, q.intent.pace_seconds) for q in quiet},
        validators={
            q.feed_id: (q.intent.etag, q.intent.last_modified)
            for q in quiet
            if q.intent.validators_changed
        },
    )


def apply_result(
    session: Session,
    feed: FeedState,
    result: FetchResult | str,
    now: datetime,
    settings: Settings,
    raw: RawFeed | NotAFeed | None = None,
) -> PollOutcome:
    """One feed's poll result, stored in the caller's transaction."""
    interval = settings.poll_interval_seconds
    intent = decide(feed, result, now, interval)
    changes: tuple[Change, ...] = ()
    items, title, churn, inserted = 0, None, None, 0
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
            changes, items, inserted = store_items(
                session, feed, title or feed.title, raw, now, settings
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
    session: Session, feed: FeedState, title: str, raw: RawFeed, now: datetime, settings: Settings
) -> tuple[tuple[Change, ...], int, int]:
    """Reconcile unseen keys, detect against the stored items, save them, queue the outbox
    rows, prune old and surplus items; one log line says what was absorbed instead of
    announced. Returns the changes, the document's items and how many were inserted."""
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
    if detection.changes:
        audience = store.feed_audience(session, feed_id=feed.id)
        info = FeedInfo(slug=feed.slug, title=title)
        rows = plan_changes(
            detection.changes, ids, audience, info, feed.id, max_new=settings.max_new_per_poll
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
    store.prune_items(
        session,
        feed_id=feed.id,
        unseen_since=now - timedelta(days=settings.prune_after_days),
        keep=settings.max_items_per_feed,
        seen_at=now,
    )
    return detection.changes, len(parsed.items), inserted


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
