"""Subscribe by address: is what someone sent a watched feed, a new feed, or a web page that
links to feeds? (The rules for reading a page are pure, in `bot.core.discover`.)

Every fetch goes through the catalog with `trusted=False`, so through the SSRF guard: a page
cannot point the bot at a private address, however it links.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from sqlmodel import Session

from bot.core.decide import FetchResult
from bot.core.discover import (
    FeedLink,
    common_feed_urls,
    feed_links,
    looks_like_html,
    with_scheme,
)
from bot.core.entries import NotAFeed
from bot.core.identity import canonical_url
from bot.core.model import RawFeed
from bot.core.parse import read_feed
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.store import FeedView
from bot.services.catalog import Catalog, FeedAddError

log = logging.getLogger(__name__)
DISCOVERY_SECONDS = 60.0  # no new candidate is fetched after this (each fetch has its own limit)


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

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    async def watched(self, text: str) -> Option | None:
        """The watched feed at this address (normalised), without fetching anything."""
        known = (await self._watched()).get(canonical_url(with_scheme(text)) or "")
        return Option(known.url, known.title, feed=known) if known is not None else None

    async def find(self, text: str) -> list[Option]:
        """The feeds an address stands for: a watched feed (by the address or where it
        redirects), the feed it is, or the feeds its page links to (else the usual paths)."""
        url = with_scheme(text)
        watched = await self._watched()
        known = watched.get(canonical_url(url) or "")
        if known is not None:
            return [Option(known.url, known.title, feed=known)]
        result = await self.catalog.fetch_page(url, trusted=False)
        known = watched.get(canonical_url(result.url) or "")
        if known is not None:
            return [Option(known.url, known.title, feed=known)]
        feed = await self._as_feed(result)
        if feed is not None:
            return [Option(result.url, feed.title or "", result=result, raw=feed)]
        if not looks_like_html(result.body, result.headers.get("content-type", "")):
            raise FeedAddError(f"{redact_urls(url)} is neither a feed nor a web page", "not_feed")
        links = feed_links(result.body, result.url)
        options = await self._try(links_or_paths(links, result.url), watched, first=not links)
        if not options:
            raise FeedAddError(f"{redact_urls(url)} links to no feed", "no_feed")
        return options

    async def _try(
        self, urls: list[tuple[str, str]], watched: dict[str, FeedView], *, first: bool
    ) -> list[Option]:
        """Fetch each candidate (in turn: one site, politely); keep those that are feeds.
        `first`: guessed paths stop at the first hit (`/feed/` and `/rss.xml` are one feed)."""
        options: list[Option] = []
        refused: FeedAddError | None = None
        deadline = time.monotonic() + DISCOVERY_SECONDS
        for url, title in urls:
            if time.monotonic() > deadline:  # a slow site: what was found by now is the answer
                log.info("discovery: stopped after %s s", DISCOVERY_SECONDS)
                break
            known = watched.get(canonical_url(url) or "")
            if known is not None:
                options.append(Option(known.url, known.title, feed=known))
                if first:
                    break
                continue
            try:
                result = await self.catalog.fetch_page(url, trusted=False)
            except FeedAddError as exc:
                log.info("discovery: %s", redact_urls(str(exc)))
                refused = exc if exc.kind == "blocked" else refused
                continue
            known = watched.get(canonical_url(result.url) or "")  # it redirects to a watched one
            raw = None if known is not None else await self._as_feed(result)
            if known is not None:
                options.append(Option(known.url, known.title, feed=known))
            elif raw is not None:
                options.append(Option(result.url, raw.title or title, result=result, raw=raw))
            if first and (known is not None or raw is not None):
                break
        if not options and refused is not None:  # the page pointed at a private address
            raise refused
        return _distinct(options)

    async def _as_feed(self, result: FetchResult) -> RawFeed | None:
        try:
            return await asyncio.to_thread(read_feed, result.body, result.headers)
        except NotAFeed:
            return None

    async def _watched(self) -> dict[str, FeedView]:
        rows = await asyncio.to_thread(self._list)
        return {canonical_url(row.url) or row.url: row for row in rows}

    def _list(self) -> list[FeedView]:
        with Session(self.catalog.poller.engine) as session:
            return [row.feed for row in store.list_feeds(session)]


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
