"""Subscribe by address: is what someone sent a watched feed, a new feed, or a web page that
links to feeds? (The rules for reading a page are pure, in `bot.core.feeds.discover`.)

Every fetch goes through the catalog with `trusted=False`, so through the SSRF guard: a page
cannot point the bot at a private address, however it links. One search is bounded in every
way a pasted link could make it costly: at most one per person and `OVERALL` at a time, a page
read only up to `PAGE_BYTES` once its first bytes show HTML (and never handed to feedparser),
parsing in its own pool (`cpu`), `MAX_REQUESTS` requests, no redirect to another site while
probing guessed paths, and a time budget for the whole search.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass, field

from sqlmodel import Session

from bot.core.detection.identity import canonical_url
from bot.core.feeds.discover import (
    FeedLink,
    common_feed_urls,
    feed_links,
    looks_like_html,
    with_scheme,
)
from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import read_feed
from bot.core.polls.decide import FetchResult
from bot.core.types import RawFeed
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.store import FeedView
from bot.net.fetch import RequestBudget
from bot.services.catalog import AddError, Catalog, FeedAddError
from bot.services.cpu import parse_off_loop

log = logging.getLogger(__name__)
# No new candidate is fetched after this: what was found by then is the answer. The whole
# search (every fetch and parse) is stopped this long plus one fetch's time limit after it began.
DISCOVERY_SECONDS = 60.0
PAGE_BYTES = 512 * 1024  # of a web page: its feed links are in the head
MAX_REQUESTS = 16  # per search, redirect hops included (a page's 6 links, 14 guessed paths)
OVERALL = 3  # searches at a time for the whole bot


@dataclass
class DiscoveryGate:
    """At most one search per person (or anonymous admin's chat) and `overall` at a time;
    a person's second link while the first is searched is refused, not queued."""

    overall: int = OVERALL
    _busy: set[Hashable] = field(default_factory=set)
    _slots: asyncio.Semaphore | None = None

    @contextlib.asynccontextmanager
    async def enter(self, who: Hashable) -> AsyncIterator[None]:
        if who in self._busy:
            raise FeedAddError("a search for this person is running", AddError.BUSY)
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.overall)
        self._busy.add(who)
        try:
            async with self._slots:
                yield
        finally:
            self._busy.discard(who)


@dataclass(frozen=True, slots=True)
class Option:
    """A feed found at an address: one already watched (`feed`), or a new one with what was
    fetched (`result`, `raw`) so adding it needs no second request."""

    url: str
    title: str
    feed: FeedView | None = None
    result: FetchResult | None = None
    raw: RawFeed | None = None


class Discovery:
    """Turns an address into the feeds it stands for; raises `FeedAddError` (its `kind` says
    what to tell the chat) when there are none."""

    def __init__(self, catalog: Catalog, gate: DiscoveryGate | None = None) -> None:
        self.catalog = catalog
        self.gate = gate or DiscoveryGate()

    async def watched(self, text: str) -> Option | None:
        """The watched feed at this address (normalised), without fetching anything."""
        return _known(await self._watched(), with_scheme(text))

    async def find(self, text: str, who: Hashable = None) -> list[Option]:
        """The feeds an address stands for: a watched feed (by the address or where it
        redirects), the feed it is, or the feeds its page links to (else the usual paths).
        `who`: the person asking, for the one-search-at-a-time rule."""
        url = with_scheme(text)
        watched = await self._watched()
        known = _known(watched, url)
        if known is not None:
            return [known]
        budget = DISCOVERY_SECONDS + self.catalog.poller.settings.fetch_timeout_seconds
        async with self.gate.enter(who):
            try:
                async with asyncio.timeout(budget):
                    return await self._search(url, watched)
            except TimeoutError:
                log.info("discovery: %s took over %.0f s: stopped", redact_urls(url), budget)
                raise FeedAddError(
                    f"searching {redact_urls(url)} took too long", AddError.SLOW
                ) from None

    async def _search(self, url: str, watched: dict[str, FeedView]) -> list[Option]:
        budget = RequestBudget(MAX_REQUESTS)
        result = await self._fetch(url, budget)
        known = _known(watched, result.url)
        if known is not None:
            return [known]
        page = looks_like_html(result.body, result.headers.get("content-type", ""))
        feed = None if page else await self._as_feed(result)
        if feed is not None:
            return [Option(result.url, feed.title or "", result=result, raw=feed)]
        if not page:
            raise FeedAddError(
                f"{redact_urls(url)} is neither a feed nor a web page", AddError.NOT_FEED
            )
        links = await parse_off_loop(feed_links, result.body, result.url)
        probes = links_or_paths(links, result.url)
        options = await self._try(probes, watched, budget, first=not links)
        if not options:
            raise FeedAddError(f"{redact_urls(url)} links to no feed", AddError.NO_FEED)
        return options

    async def _fetch(self, url: str, budget: RequestBudget) -> FetchResult:
        return await self.catalog.fetch_page(
            url, trusted=False, page_bytes=PAGE_BYTES, budget=budget
        )

    async def _try(
        self,
        urls: list[tuple[str, str]],
        watched: dict[str, FeedView],
        budget: RequestBudget,
        *,
        first: bool,
    ) -> list[Option]:
        """Fetch each candidate (in turn: one site, politely); keep those that are feeds.
        `first`: guessed paths stop at the first hit (`/feed/` and `/rss.xml` are one feed),
        and may not redirect to another site."""
        options: list[Option] = []
        refused: FeedAddError | None = None
        deadline = time.monotonic() + DISCOVERY_SECONDS
        for url, title in urls:
            if time.monotonic() > deadline:  # a slow site: what was found by now is the answer
                log.info("discovery: stopped after %s s", DISCOVERY_SECONDS)
                break
            if budget.left <= 0:
                log.info("discovery: stopped after %d requests", MAX_REQUESTS)
                break
            known = _known(watched, url)
            if known is not None:
                options.append(known)
                if first:
                    break
                continue
            budget.same_site = first
            try:
                result = await self._fetch(url, budget)
            except FeedAddError as exc:
                log.info("discovery: %s", redact_urls(str(exc)))
                refused = exc if exc.kind is AddError.BLOCKED else refused
                continue
            known = _known(watched, result.url)  # it redirects to a watched feed
            page = looks_like_html(result.body, result.headers.get("content-type", ""))
            raw = None if known is not None or page else await self._as_feed(result)
            if raw is not None:
                known = Option(result.url, raw.title or title, result=result, raw=raw)
            if known is not None:
                options.append(known)
                if first:
                    break
        if not options and refused is not None:  # the page pointed at a private address
            raise refused
        return _distinct(options)

    async def _as_feed(self, result: FetchResult) -> RawFeed | None:
        try:
            return await parse_off_loop(read_feed, result.body, result.headers, result.url)
        except NotAFeed:
            return None

    async def _watched(self) -> dict[str, FeedView]:
        rows = await asyncio.to_thread(self._list)
        return {canonical_url(row.url) or row.url: row for row in rows}

    def _list(self) -> list[FeedView]:
        with Session(self.catalog.poller.engine) as session:
            return store.all_feeds(session)


def _known(watched: dict[str, FeedView], url: str) -> Option | None:
    """The watched feed this address stands for, by its canonical form."""
    feed = watched.get(canonical_url(url) or "")
    return Option(feed.url, feed.title, feed=feed) if feed is not None else None


def links_or_paths(links: list[FeedLink], page_url: str) -> list[tuple[str, str]]:
    """The page's own feed links, or else the well-known paths to probe."""
    found = [(link.url, link.title) for link in links]
    return found or [(url, "") for url in common_feed_urls(page_url)]


def _distinct(options: list[Option]) -> list[Option]:
    """One option per feed: two links that redirect to the same feed are one."""
    seen: set[str] = set()
    kept = []
    for option in options:
        key = canonical_url(option.url) or option.url
        if key not in seen:
            seen.add(key)
            kept.append(option)
    return kept
