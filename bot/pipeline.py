"""One poll cycle: due feeds → fetch → parse → detect → store + enqueue deliveries.

Fetches run concurrently (bounded); the CPU-bound part (parse, detect, render) and the database
work run in a worker thread, one transaction per feed, so a failing feed never affects another
and the event loop stays responsive for Telegram.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from sqlalchemy import Engine
from sqlmodel import Session

from bot import metrics
from bot.config import Settings
from bot.core.detect import detect
from bot.core.filters import wants
from bot.core.model import Change, FeedInfo, RawFeed
from bot.core.parse import NotAFeed, finish_feed, read_feed
from bot.core.render import render_change
from bot.core.schedule import next_check
from bot.core.urls import shown_url
from bot.db import store
from bot.db.engine import transaction, writer
from bot.db.tables import Delivery, DeliveryStatus, Feed, FeedStatus
from bot.fetch import Fetcher, FetchError, FetchResult
from bot.i18n import translator

log = logging.getLogger(__name__)
Clock = Callable[[], datetime]
LAST_CYCLE_KEY = "last_poll_cycle_finished"
CLAIM_BATCH = 500


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class PollOutcome:
    """What happened to one feed in one poll."""

    slug: str
    outcome: str  # not-modified | unchanged | changed | baseline | error | gone
    changes: tuple[Change, ...] = ()
    error: str | None = None
    items: int = 0
    feed_title: str = ""


@dataclass
class CycleReport:
    outcomes: list[PollOutcome] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: str) -> int:
        return sum(1 for o in self.outcomes if o.outcome == outcome)

    @property
    def new(self) -> int:
        return sum(1 for o in self.outcomes for c in o.changes if c.kind == "new")

    @property
    def edited(self) -> int:
        return sum(1 for o in self.outcomes for c in o.changes if c.kind == "edited")

    def summary(self) -> str:
        return (
            f"poll cycle: {len(self.outcomes)} feeds, {self.count('not-modified')} not modified, "
            f"{self.count('unchanged')} unchanged, {self.new} new, {self.edited} edited, "
            f"{self.count('error') + self.count('gone')} errors, {self.seconds:.2f} s"
        )


@dataclass(frozen=True, slots=True)
class QuietPoll:
    """A poll that found nothing new: only its schedule (and maybe validators) change."""

    feed_id: int
    etag: str | None
    last_modified: str | None
    new_validators: bool


class FeedAddError(Exception):
    """`feed add` / `/addfeed` failed; the message is one line for the user."""


class AlreadyWatched(FeedAddError):
    """The URL (or where it redirects) is watched already."""


@dataclass
class ImportReport:
    added: list[PollOutcome] = field(default_factory=list)
    skipped: int = 0
    failed: list[str] = field(default_factory=list)


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

    # --- the cycle -------------------------------------------------------------------------

    async def poll_due(self, *, dry_run: bool = False, all_feeds: bool = False) -> CycleReport:
        started = time.monotonic()
        gate = asyncio.Semaphore(self.settings.poll_concurrency)
        quiet: list[QuietPoll] = []

        async def bounded(snapshot: store.FeedSnapshot) -> PollOutcome:
            async with gate:
                return await self._poll(snapshot, quiet, dry_run=dry_run)

        outcomes: list[PollOutcome] = []
        while True:  # claims come in batches; polled feeds are no longer due
            snapshots = await asyncio.to_thread(self._claim, dry_run=dry_run, all_feeds=all_feeds)
            outcomes += await asyncio.gather(*(bounded(snapshot) for snapshot in snapshots))
            if dry_run or all_feeds or len(snapshots) < CLAIM_BATCH:
                break
        report = CycleReport(outcomes=outcomes, seconds=time.monotonic() - started)
        if not dry_run:
            await asyncio.to_thread(self._record_quiet, quiet, cycle_finished=True)
        log.log(logging.INFO if report.outcomes else logging.DEBUG, report.summary())
        return report

    def _claim(self, *, dry_run: bool, all_feeds: bool) -> list[store.FeedSnapshot]:
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

    async def poll_feed(self, feed_id: int, *, dry_run: bool = False) -> PollOutcome:
        """Poll one feed now, whatever its schedule (tests, benchmarks, the CLI)."""
        with Session(self.engine) as session:
            found = store.feed_snapshots(session, feed_id=feed_id)
        if not found:
            return PollOutcome(slug=f"#{feed_id}", outcome="error", error="feed was removed")
        quiet: list[QuietPoll] = []
        outcome = await self._poll(found[0], quiet, dry_run=dry_run)
        if not dry_run and quiet:
            await asyncio.to_thread(self._record_quiet, quiet)
        return outcome

    async def _poll(
        self, feed: store.FeedSnapshot, quiet: list[QuietPoll], *, dry_run: bool
    ) -> PollOutcome:
        """Fetch; a 304 or an identical body is only noted (written in one batch per cycle),
        anything else is applied in its own transaction in a worker thread."""
        try:
            result: FetchResult | FetchError = await self.fetcher.fetch(
                feed.url, etag=feed.etag, last_modified=feed.last_modified, trusted=feed.trusted
            )
        except FetchError as exc:
            result = exc
        outcome = self._quiet_outcome(feed, result, quiet)
        if outcome is None:
            try:
                outcome = await asyncio.to_thread(self._apply, feed.id, result, dry_run)
            except Exception as exc:  # a bug or a database fault must not stop the other feeds
                log.exception("feed %s: could not store the poll result", feed.slug)
                return PollOutcome(slug=feed.slug, outcome="error", error=f"internal error: {exc}")
        if outcome.error:
            log.warning("feed %s: %s", feed.slug, outcome.error)
        if not dry_run:
            metrics.POLLS.labels(outcome.outcome).inc()
            for change in outcome.changes:
                metrics.ITEMS.labels(change.kind.value).inc()
        return outcome

    def _quiet_outcome(
        self, feed: store.FeedSnapshot, result: FetchResult | FetchError, quiet: list[QuietPoll]
    ) -> PollOutcome | None:
        if isinstance(result, FetchError):
            return None
        if result.status == 304:
            kind = "not-modified"
        elif (
            result.status == 200
            and feed.baseline_done
            and not result.moved_to
            and hashlib.sha256(result.body).hexdigest() == feed.body_hash
        ):
            kind = "unchanged"  # the server ignored our validators
        else:
            return None
        etag = result.etag if result.status == 200 else (result.etag or feed.etag)
        modified = result.last_modified if result.status == 200 else feed.last_modified
        quiet.append(QuietPoll(feed.id, etag, modified, (etag, modified) != feed.validators))
        return PollOutcome(slug=feed.slug, outcome=kind, feed_title=feed.title)

    def _record_quiet(self, quiet: list[QuietPoll], *, cycle_finished: bool = False) -> None:
        """One transaction for every feed that answered 304 or the same body."""
        now = self.clock()
        next_at = next_check(now, self.settings.poll_interval_seconds)
        with transaction(self.engine) as session:
            store.mark_feeds_checked(
                session,
                feed_ids=[q.feed_id for q in quiet],
                now=now,
                next_check_at=next_at,
                validators={
                    q.feed_id: (q.etag, q.last_modified) for q in quiet if q.new_validators
                },
            )
            if cycle_finished:
                store.set_state(session, key=LAST_CYCLE_KEY, value=now.isoformat(), now=now)

    # --- applying one result (worker thread, one transaction) --------------------------------

    def _apply(self, feed_id: int, result: FetchResult | FetchError, dry_run: bool) -> PollOutcome:
        with Session(writer(self.engine), expire_on_commit=False) as session:
            feed = session.get(Feed, feed_id)
            if feed is None:
                return PollOutcome(slug=f"#{feed_id}", outcome="error", error="feed was removed")
            outcome = self._decide(session, feed, result)
            if dry_run:
                session.rollback()
            else:
                session.commit()
            return outcome

    def _decide(
        self,
        session: Session,
        feed: Feed,
        result: FetchResult | FetchError,
        raw: RawFeed | None = None,
    ) -> PollOutcome:
        now = self.clock()
        feed.last_checked_at = now
        feed.lease_until, feed.lease_owner = None, None
        if isinstance(result, FetchError):
            return self._failed(session, feed, str(result), now)
        if result.status == 304:
            self._healthy(session, feed, now)
            return PollOutcome(slug=feed.slug, outcome="not-modified", feed_title=feed.title)
        if result.status == 410:
            feed.status, feed.last_error = FeedStatus.GONE, "HTTP 410 Gone: feed disabled"
            session.add(feed)
            return PollOutcome(slug=feed.slug, outcome="gone", error=feed.last_error)
        if result.status != 200:
            reason = f"HTTP {result.status}"
            return self._failed(session, feed, reason, now, retry_after=result.retry_after)
        if result.moved_to and store.get_feed_by_url(session, url=result.moved_to) is None:
            log.info("feed %s: moved permanently to %s", feed.slug, result.moved_to)
            feed.url = result.moved_to
        feed.etag, feed.last_modified = result.etag, result.last_modified
        body_hash = hashlib.sha256(result.body).hexdigest()
        if feed.baseline_done and body_hash == feed.body_hash:
            self._healthy(session, feed, now)  # the server ignored our validators
            return PollOutcome(slug=feed.slug, outcome="unchanged", feed_title=feed.title)
        try:
            raw = raw or read_feed(result.body, result.headers)
        except NotAFeed as exc:
            return self._failed(session, feed, str(exc), now)
        if raw.warning:
            log.info("feed %s: %s", feed.slug, raw.warning)
        baseline = not feed.baseline_done
        changes, items = self._store(session, feed, raw, now)
        feed.body_hash, feed.baseline_done = body_hash, True
        self._healthy(session, feed, now)
        outcome = "baseline" if baseline else ("changed" if changes else "unchanged")
        return PollOutcome(
            slug=feed.slug,
            outcome=outcome,
            changes=changes,
            items=items,
            feed_title=feed.title,
        )

    def _store(
        self, session: Session, feed: Feed, raw: RawFeed, now: datetime
    ) -> tuple[tuple[Change, ...], int]:
        assert feed.id is not None
        if raw.title and (not feed.title or feed.title == feed.slug):
            feed.title = raw.title
        stored = store.stored_items(session, feed_id=feed.id, keys=[e.key for e in raw.entries])
        known = {k: (s.content_hash, s.text) for k, s in stored.items() if s.content_hash}
        parsed = finish_feed(raw, known)
        detection = detect(parsed, stored, baseline=not feed.baseline_done)
        ids = store.save_items(
            session, feed_id=feed.id, parsed=parsed, detection=detection, stored=stored, now=now
        )
        if detection.changes:
            self._enqueue(session, feed, detection.changes, ids)
        store.prune_items(
            session,
            feed_id=feed.id,
            unseen_since=now - timedelta(days=self.settings.prune_after_days),
        )
        return detection.changes, len(parsed.items)

    def _enqueue(
        self, session: Session, feed: Feed, changes: tuple[Change, ...], ids: dict[str, int]
    ) -> None:
        assert feed.id is not None
        audience = store.feed_audience(session, feed_id=feed.id)
        if not audience:
            return
        info = FeedInfo(slug=feed.slug, title=feed.title)
        deliveries = []
        for change in changes:
            rendered: dict[str | None, str] = {}  # once per language, not once per chat
            for reader in audience:
                if wants(reader, change):
                    text = rendered.get(reader.language)
                    if text is None:
                        text = render_change(change, info, translator(reader.language))
                        rendered[reader.language] = text
                    deliveries.append(
                        Delivery(
                            chat_id=reader.chat_id,
                            feed_id=feed.id,
                            item_id=ids[change.item.key],
                            kind=change.kind.value,
                            text=text,
                            preview=reader.preview,
                            thread_id=reader.thread_id,
                            status=DeliveryStatus.HELD if reader.digest else DeliveryStatus.PENDING,
                        )
                    )
        store.enqueue(session, deliveries=deliveries)

    def _healthy(self, session: Session, feed: Feed, now: datetime) -> None:
        feed.status, feed.last_error, feed.error_count = FeedStatus.OK, None, 0
        feed.next_check_at = next_check(now, self.settings.poll_interval_seconds)
        session.add(feed)

    def _failed(
        self,
        session: Session,
        feed: Feed,
        reason: str,
        now: datetime,
        *,
        retry_after: float | None = None,
    ) -> PollOutcome:
        feed.error_count += 1
        feed.status, feed.last_error = FeedStatus.ERROR, reason[:1000]
        feed.next_check_at = next_check(
            now,
            self.settings.poll_interval_seconds,
            consecutive_errors=feed.error_count,
            retry_after_seconds=retry_after,
        )
        session.add(feed)
        return PollOutcome(slug=feed.slug, outcome="error", error=reason)

    # --- adding a feed -----------------------------------------------------------------------

    async def add_feed(self, url: str, *, slug: str | None = None, trusted: bool) -> PollOutcome:
        """Fetch once and store the baseline; nothing is stored when that fails."""
        if slug is not None and not SLUG_PATTERN.fullmatch(slug):
            raise FeedAddError("a slug is 1-64 lowercase letters, digits and dashes")
        url, result, raw = await self._fetch_candidate(url, trusted=trusted)
        return await asyncio.to_thread(self._add, url, slug, trusted, result, raw)

    async def import_feeds(
        self,
        urls: list[str],
        *,
        trusted: bool,
        on_step: Callable[[int], Awaitable[None]] | None = None,
    ) -> ImportReport:
        """Add each URL in turn (an OPML list); one failure does not stop the others.
        `on_step(done)` is told how many URLs have been handled, before each next one."""
        report = ImportReport()
        for done, url in enumerate(urls):
            if on_step is not None:
                await on_step(done)
            try:
                report.added.append(await self.add_feed(url, trusted=trusted))
            except AlreadyWatched:
                report.skipped += 1
            except FeedAddError as exc:
                report.failed.append(f"{shown_url(url, operator=True)}: {exc}")
        return report

    async def _fetch_candidate(
        self, url: str, *, trusted: bool
    ) -> tuple[str, FetchResult, RawFeed]:
        """A URL someone wants watched: http(s), answers 200, and the body is a feed."""
        url = url.strip()
        shown = shown_url(url, operator=True)  # errors never repeat a password
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FeedAddError(f"not an http(s) URL: {shown[:200]!r}")
        try:
            result = await self.fetcher.fetch(url, trusted=trusted)
        except FetchError as exc:
            raise FeedAddError(f"cannot fetch {shown}: {exc}") from None
        if result.status != 200:
            raise FeedAddError(f"cannot fetch {shown}: HTTP {result.status}")
        try:
            raw = await asyncio.to_thread(read_feed, result.body, result.headers)
        except NotAFeed as exc:
            raise FeedAddError(f"{shown} is {exc}") from None
        return url, result, raw

    def _add(
        self, url: str, slug: str | None, trusted: bool, result: FetchResult, raw: RawFeed
    ) -> PollOutcome:
        with transaction(self.engine) as session:
            final_url = result.moved_to or url
            if store.get_feed_by_url(session, url=final_url) or store.get_feed_by_url(
                session, url=url
            ):
                raise AlreadyWatched(f"{shown_url(url, operator=True)} is already watched")
            if slug is None:
                slug = unique_slug(session, raw.title or parts_host(final_url))
            elif store.get_feed(session, slug=slug) is not None:
                raise FeedAddError(f"the slug {slug!r} is taken")
            feed = store.add_feed(
                session, slug=slug, url=final_url, title=raw.title or slug, trusted=trusted
            )
            return self._decide(session, feed, result, raw)

    async def move_feed(self, slug: str, url: str) -> None:
        """A new address for a feed: items, subscriptions and filters stay; validators reset."""
        url, result, _ = await self._fetch_candidate(url, trusted=True)

        def move() -> None:
            with transaction(self.engine) as session:
                feed = store.get_feed(session, slug=slug)
                if feed is None:
                    raise FeedAddError(f"no feed named {slug!r} (see `feed list`)")
                feed.url = result.moved_to or url
                feed.etag = feed.last_modified = feed.body_hash = None
                feed.status, feed.last_error, feed.error_count = FeedStatus.OK, None, 0
                feed.next_check_at = self.clock()
                session.add(feed)

        await asyncio.to_thread(move)


SLUG_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def parts_host(url: str) -> str:
    return urlsplit(url).hostname or "feed"


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:32].strip("-") or "feed"


def unique_slug(session: Session, text: str) -> str:
    base = slugify(text)
    candidate, n = base, 2
    while store.get_feed(session, slug=candidate) is not None:
        candidate, n = f"{base}-{n}", n + 1
    return candidate
