"""One poll cycle, sequenced: claim → fetch → decide → enrich → write.

Fetches run concurrently (bounded). `bot.core.polls.decide` says what each answer means; a quiet
poll (304, or the same body) is only noted and written in one batch per cycle; anything else
is parsed, read, planned and routed in a worker thread outside any write transaction, its new
posts enriched for the chats that get them (`enrich.py`: pages, the model), and stored in one
transaction per feed with the outbox rows. A failing feed never affects another, and the event
loop stays free for Telegram. What one feed's result does to storage is `poll_result.py`.

A quiet poll needs none of the changed path (the parser, the plan, the enricher, the post
watch): those modules are imported where a changed body first needs them, so that a cron
`poll --once` over quiet feeds does not pay for loading them (start-up is most of its CPU).
Nor does a dry run's list of feeds need the ORM: it is read on a connection, and SQLModel's
session is imported where a changed poll first opens one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from bot.core.polls.decide import (
    FeedState,
    FetchResult,
    PollKind,
    decide,
)
from bot.core.types import ChangeKind, RawFeed, StoredItem
from bot.db import store
from bot.db.engine import transaction
from bot.db.reserve import disk_full, keep_reserve
from bot.net.fetch import Fetcher, FetchError
from bot.runtime.clock import Clock, utcnow
from bot.runtime.config import Settings
from bot.services.cpu import parse_off_loop
from bot.services.indexing import SearchIndexer
from bot.services.outcome import PollOutcome
from bot.services.quiet_polls import QuietPoll, record_quiet

if TYPE_CHECKING:
    from sqlmodel import Session

    from bot.core.feeds.entries import NotAFeed
    from bot.services.enrich import Enricher
    from bot.services.poll_result import Decided, Extras
    from bot.services.watch import PostWatch

log = logging.getLogger(__name__)
CLAIM_BATCH = 500


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


class Poller:
    def __init__(
        self,
        engine: Engine,
        fetcher: Fetcher,
        settings: Settings,
        clock: Clock = utcnow,
        owner: str = "feedwatch",
    ) -> None:
        self.engine, self.fetcher, self.settings, self.clock = engine, fetcher, settings, clock
        self.owner = owner
        self._full_said = False  # a full disk is said once per cycle, not once per feed
        self.indexer = SearchIndexer(engine)  # search rows of committed polls (SQLite)

    @cached_property
    def enricher(self) -> Enricher:
        """Pages and the model's texts for changed polls, made when one first needs them."""
        from bot.services.enrich import Enricher

        return Enricher(self.engine, self.fetcher, self.settings, self.clock)

    @cached_property
    def watch(self) -> PostWatch:
        """Followed posts' pages and withdrawal checks, after the polls (`watch.py`)."""
        from bot.services.watch import PostWatch

        pages = self.enricher.full_text.pages
        return PostWatch(self.engine, pages, self.settings, self.clock)

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
            if not dry_run and quiet:  # written per batch: their leases end with their poll
                await asyncio.to_thread(self.record_quiet, list(quiet))
                quiet.clear()
            if dry_run or all_feeds or len(feeds) < CLAIM_BATCH:
                break
        report = CycleReport(outcomes=outcomes, seconds=time.monotonic() - started)
        if not dry_run:
            await asyncio.to_thread(self.record_quiet, quiet, caught_up=True)
            try:  # followed pages and withdrawal checks: never the cycle's failure
                await self.watch.run()
            except Exception:
                log.exception("followed pages and withdrawal checks failed")
        log.log(logging.INFO if report.outcomes else logging.DEBUG, report.summary())
        return report

    async def poll_feed(self, feed_id: int, *, dry_run: bool = False) -> PollOutcome:
        """Poll one feed now, whatever its schedule (tests, benchmarks, the CLI)."""
        with self.engine.connect() as connection:
            found = store.feed_states(connection, feed_id=feed_id)
        if not found:
            return PollOutcome(f"#{feed_id}", PollKind.ERROR, error="feed was removed")
        quiet: list[QuietPoll] = []
        outcome = await self._poll(found[0], quiet, dry_run=dry_run)
        if not dry_run:
            await asyncio.to_thread(self.record_quiet, quiet)
        return outcome

    def _claim(self, *, dry_run: bool, all_feeds: bool) -> list[FeedState]:
        if dry_run:  # a dry run writes nothing, leases included (a read: no ORM session)
            with self.engine.connect() as connection:
                return store.feed_states(connection, now=None if all_feeds else self.clock())
        return self.claim(limit=None if all_feeds else CLAIM_BATCH, due_only=not all_feeds)

    def claim(
        self, *, limit: int | None, due_only: bool = True, ahead: float = 0.0
    ) -> list[FeedState]:
        """Up to `limit` feeds due now (or within `ahead` s), most overdue first."""
        return lease_due(self, limit=limit, due_only=due_only, ahead=ahead)

    async def poll_one(self, feed: FeedState, quiet: list[QuietPoll]) -> PollOutcome:
        """Poll a claimed feed; a quiet result is appended to `quiet` for the caller to write
        in a batch (`record_quiet`), anything else is stored before this returns."""
        return await self._poll(feed, quiet, dry_run=False)

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
                raw = await read_body(self, feed, result) if intent.parse else None
                outcome = await poll_changed(self, feed.id, result, raw, dry_run=dry_run)
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
            from bot.runtime import metrics

            metrics.POLLS.labels(outcome.outcome.value).inc()
            for change in outcome.changes:
                metrics.ITEMS.labels(change.kind.value).inc()
        return outcome

    async def settle(self) -> None:
        """Wait until pages still being read are stored (tests; a graceful stop)."""
        if "enricher" in self.__dict__:  # made: some poll needed pages or the model
            await self.enricher.settle()

    def record_quiet(self, quiet: list[QuietPoll], *, caught_up: bool = False) -> None:
        """Quiet polls in one transaction; `caught_up`: nothing is overdue (for `health`).
        Then the search rows of the polls committed since the last time (`indexing.py`)."""
        if quiet or caught_up:
            record_quiet(self.engine, quiet, self.clock(), cycle_finished=caught_up)
        self.indexer.flush()

    def apply(
        self,
        session: Session,
        feed_id: int,
        result: FetchResult | str,
        raw: RawFeed | NotAFeed | None = None,
    ) -> PollOutcome:
        """A poll with nothing fetched for its posts (a new feed's baseline), decided and
        stored in the caller's transaction."""
        from bot.services.poll_result import apply_result

        return apply_result(session, feed_id, result, self.clock(), self.settings, raw)


async def poll_changed(
    poller: Poller,
    feed_id: int,
    result: FetchResult | str,
    raw: RawFeed | NotAFeed | None,
    *,
    dry_run: bool,
) -> PollOutcome:
    """Decide once, then enrich, then write once (`poll_result.py`): the read, the plan
    and every chat's rules run before the write transaction, the pages and the model's
    calls between the two (the feed is leased meanwhile, so what was read still holds)."""
    from bot.services.poll_result import Decided

    enricher = poller.enricher  # made here, on the loop, before any thread asks for it
    done = await parse_off_loop(decide_changed, poller, feed_id, result, raw, dry_run)
    if not isinstance(done, Decided):
        return done
    body = raw if isinstance(raw, RawFeed) else None
    extras, late = await enricher.enrich(done, body, dry_run=dry_run)
    outcome = await parse_off_loop(finish_changed, poller, done, extras, dry_run)
    if not dry_run:
        enricher.later(done.plan.feed, late)
    return outcome


def preload() -> None:
    """A long-running process (`run`, `worker`) loads the changed path and every store module
    at start rather than in its first changed poll: that poll is not held up by the imports,
    and `settle_heap` freezes them with the rest of the start-up heap."""
    import importlib

    for module in ("enrich", "poll_result", "watch"):
        importlib.import_module(f"bot.services.{module}")
    for module in store.EXPORTS:
        importlib.import_module(f"bot.db.store.{module}")


def decide_changed(
    poller: Poller,
    feed_id: int,
    result: FetchResult | str,
    raw: RawFeed | NotAFeed | None,
    dry_run: bool,
) -> Decided | PollOutcome:
    """Read, plan and route (a read, no write transaction); when nothing is to be fetched for
    the posts (most changed polls), also render and write, in the same thread hop."""
    from sqlmodel import Session

    from bot.services.poll_result import Extras, decide_poll

    with Session(poller.engine) as session:
        keys = poller.enricher.model_keys
        now = poller.clock()
        decided = decide_poll(session, feed_id, result, now, poller.settings, raw, keys)
    if isinstance(decided, PollOutcome) or poller.enricher.wanted(decided):
        return decided
    return finish_changed(poller, decided, Extras(), dry_run)


def finish_changed(poller: Poller, decided: Decided, extras: Extras, dry_run: bool) -> PollOutcome:
    """Render outside the transaction, then write it all in one (a dry run writes nothing)."""
    from bot.runtime.metrics import cpu_of
    from bot.services.poll_result import outcome_of, render_poll, write_poll

    with cpu_of("render"):
        rendered = render_poll(decided, poller.settings, extras)
    if dry_run:
        return outcome_of(rendered.plan)
    with cpu_of("write"), transaction(poller.engine) as session:
        later = poller.indexer.defer(session)
        outcome = write_poll(session, rendered, poller.settings)
    poller.indexer.add(later)
    return outcome


async def read_body(
    poller: Poller, feed: FeedState, result: FetchResult | str
) -> RawFeed | NotAFeed:
    """The body as a feed, its unchanged items taken from storage (`QUICK_PARSE`)."""
    from bot.services.poll_result import parsed

    quick = poller.settings.quick_parse
    known = {}
    if quick and feed.baseline_done:
        known = await parse_off_loop(shown, poller.engine, feed.id)
    return await parsed(result, known, quick=quick)


def shown(engine: Engine, feed_id: int) -> dict[str, StoredItem]:
    from sqlmodel import Session  # the changed path's, as above

    from bot.runtime.metrics import cpu_of

    with cpu_of("read"), Session(engine) as session:
        return store.shown_items(session, feed_id=feed_id)


def lease_due(
    poller: Poller, *, limit: int | None, due_only: bool, ahead: float
) -> list[FeedState]:
    """Feeds leased for `2 × FETCH_TIMEOUT + 60` s, so that other workers skip them."""
    now = poller.clock()
    lease = now + timedelta(seconds=2 * poller.settings.fetch_timeout_seconds + 60)
    with transaction(poller.engine) as session:
        return store.claim_feeds(
            session,
            now=now,
            owner=poller.owner,
            lease_until=lease,
            due_only=due_only,
            limit=limit,
            due_by=now + timedelta(seconds=ahead),
        )
