"""The catalog of watched feeds: add one (fetch once, store a silent baseline), import an OPML
list, move a feed to a new address. Removing is a single storage call (`store.remove_feed`)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sqlmodel import Session

from bot.core.decide import FetchResult
from bot.core.entries import NotAFeed
from bot.core.model import RawFeed
from bot.core.parse import read_feed
from bot.core.urls import shown_url, url_problem
from bot.db import store
from bot.db.engine import transaction
from bot.fetch import FetchError
from bot.services.polling import Poller, PollOutcome

SLUG_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


class FeedAddError(Exception):
    """`feed add` / `/addfeed` failed; the message is one line for the user."""


class AlreadyWatched(FeedAddError):
    """The URL (or where it redirects) is watched already."""


@dataclass
class ImportReport:
    added: list[PollOutcome] = field(default_factory=list)
    skipped: int = 0
    failed: list[str] = field(default_factory=list)


class Catalog:
    """Adding feeds reuses the poller's decision and storage path for the first poll."""

    def __init__(self, poller: Poller) -> None:
        self.poller = poller

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

    async def move_feed(self, slug: str, url: str) -> None:
        """A new address for a feed: items, subscriptions and filters stay; validators reset."""
        url, result, _ = await self._fetch_candidate(url, trusted=True)
        target, now = result.moved_to or url, self.poller.clock()

        def move() -> None:
            with transaction(self.poller.engine) as session:
                if not store.move_feed(session, slug=slug, url=target, now=now):
                    raise FeedAddError(f"no feed named {slug!r} (see `feed list`)")

        await asyncio.to_thread(move)

    async def _fetch_candidate(
        self, url: str, *, trusted: bool
    ) -> tuple[str, FetchResult, RawFeed]:
        """A URL someone wants watched: http(s), answers 200, and the body is a feed."""
        url = url.strip()
        shown = shown_url(url, operator=True)  # errors never repeat a password
        if url_problem(url) is not None:
            raise FeedAddError(f"not an http(s) URL: {shown[:200]!r}")
        try:
            result = await self.poller.fetcher.fetch(url, trusted=trusted)
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
        with transaction(self.poller.engine) as session:
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
            (state,) = store.feed_snapshots(session, feed_id=feed.id)
            return self.poller.apply(session, state, result, raw)


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
