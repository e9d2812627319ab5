"""Full text for excerpt-only feeds: each new post's page, read once, through the guard.

Only the posts the poll's plan found new and some chat sees summarised are read (a GUID
migration, a flood's list or a post every chat filters out reads no page).

A page is fetched with the feed fetcher (its SSRF guard and time limits; hops to an
operator-added feed's own origin skip the guard like the feed does, every other hop goes
through it), cut at `FULL_TEXT_MAX_BYTES` (the message needs the top of the article), at most
one request at a time per host and one page at a time per feed, and extracted in a worker
process that is killed at a deadline (`pageworkers`), never in the parsing pool feeds need.
The poll waits for pages at most `FULL_TEXT_WAIT_SECONDS`, outside its transaction; a page that
comes later is stored with its post for later messages (backlog, digests). A page that fails
is the feed's excerpt and one log line, never an error of the feed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy import Engine

from bot.core.feeds.discover import looks_like_html
from bot.core.messages.article import Article, failed
from bot.core.polls.decide import FeedState
from bot.core.types import RawEntry
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.engine import transaction
from bot.net.fetch import Fetcher, FetchError, site_of
from bot.runtime import metrics
from bot.runtime.clock import Clock
from bot.runtime.config import Settings
from bot.services.pageworkers import PageWorkers

log = logging.getLogger(__name__)
PAGE_BYTES = 512 * 1024  # FULL_TEXT_MAX_BYTES's default


class KeyedLocks:
    """One lock per key, kept only while someone holds or waits for it: a full-text feed
    linking a new host with every post must not leave a lock behind for each."""

    def __init__(self) -> None:
        self._locks: dict[object, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @asynccontextmanager
    async def hold(self, key: object) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (None, 0))
        lock = lock or asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            users = self._locks[key][1] - 1
            if users:
                self._locks[key] = (lock, users)
            else:
                del self._locks[key]


class PageReader:
    """Reads posts' pages; the same page is never read twice at once (by URL)."""

    def __init__(
        self,
        fetcher: Fetcher,
        wait_seconds: float,
        *,
        max_bytes: int = PAGE_BYTES,
        workers: PageWorkers | None = None,
    ) -> None:
        self.fetcher = fetcher
        self.wait_seconds = wait_seconds
        self.max_bytes = max_bytes
        self.workers = workers or PageWorkers()
        self._hosts = KeyedLocks()
        self._feeds = KeyedLocks()
        self._reading: dict[str, asyncio.Task[Article]] = {}

    async def read(
        self, feed: FeedState, entries: Sequence[RawEntry]
    ) -> tuple[dict[str, Article], dict[str, asyncio.Task[Article]]]:
        """The articles that arrived within the wait (by key), and the pages still coming."""
        tasks = self.start(feed, entries)
        if tasks:
            await asyncio.wait(tasks.values(), timeout=self.wait_seconds)
        ready = {k: t.result() for k, t in tasks.items() if t.done() and not t.cancelled()}
        late = {k: t for k, t in tasks.items() if not t.done()}
        if late:
            log.info(
                "feed %s: %d post page(s) slower than %g s: those messages use the feed's "
                "excerpt (the article is stored when it arrives)",
                feed.slug,
                len(late),
                self.wait_seconds,
            )
        return ready, late

    def locks(self) -> int:
        """Per-host and per-feed locks kept: none once no page is being read."""
        return len(self._hosts) + len(self._feeds)

    def start(
        self, feed: FeedState, entries: Sequence[RawEntry]
    ) -> dict[str, asyncio.Task[Article]]:
        """Start reading each entry's page (or join a read of the same page under way)."""
        tasks = {}
        if any(entry.link for entry in entries):
            self.workers.warm()
        for entry in entries:
            if not entry.link:
                continue
            task = self._reading.get(entry.link)
            if task is None:
                task = asyncio.create_task(self._read(feed, entry.link, entry.title))
                self._reading[entry.link] = task
                task.add_done_callback(functools.partial(self._done, entry.link))
            tasks[entry.key] = task
        return tasks

    async def cancel(self) -> None:
        """Stop reading (the bot is stopping): tasks cancelled, workers killed."""
        reading = list(self._reading.values())
        for task in reading:
            task.cancel()
        self.workers.close()
        await asyncio.gather(*reading, return_exceptions=True)

    def _done(self, link: str, _task: asyncio.Task[Article]) -> None:
        self._reading.pop(link, None)

    async def _read(self, feed: FeedState, link: str, title: str) -> Article:
        started = time.monotonic()
        try:
            async with self._feeds.hold(feed.id):  # one page in flight per feed
                body, url = await self._fetch(feed, link)
                article = await self.workers.extract(body, url, title)
        except FetchError as exc:
            article = failed(str(exc))
        except Exception as exc:  # a bug on one page must not lose the post's message
            log.exception("feed %s: page %s could not be read", feed.slug, redact_urls(link))
            article = failed(f"internal error: {type(exc).__name__}")
        metrics.PAGE_SECONDS.observe(time.monotonic() - started)
        metrics.PAGES.labels("fetched" if article.ok else "failed").inc()
        if not article.ok:
            log.info(
                "feed %s: page %s: %s; its message uses the feed's excerpt",
                feed.slug,
                redact_urls(link),
                article.error,
            )
        return article

    async def _fetch(self, feed: FeedState, link: str) -> tuple[bytes, str]:
        # One request at a time per host: a site's new posts come in a row.
        async with self._hosts.hold(site_of(link)):
            result = await self.fetcher.fetch(
                link,
                trusted=False,
                trusted_origin=feed.url if feed.trusted else None,
                web_page=True,
                max_bytes=self.max_bytes,
                page_bytes=self.max_bytes,  # cut there: the message needs the article's top
            )
        if result.status != 200:
            raise FetchError(f"HTTP {result.status}")
        if not looks_like_html(result.body, result.headers.get("content-type", "")):
            raise FetchError("not a web page")
        return result.body, result.url


@dataclass(frozen=True, slots=True)
class PageAnswer:
    """A post's page read again (a follow, a withdrawal check): its status (None: no answer,
    a timeout or a refused address), its article when asked and read, its validators."""

    status: int | None
    article: Article | None = None
    etag: str | None = None
    last_modified: str | None = None
    error: str = ""
    body: bytes = b""  # the page as read (cut at the byte cap), when its article was asked


async def check_page(
    reader: PageReader,
    link: str,
    *,
    origin: str | None,
    title: str = "",
    validators: tuple[str | None, str | None] = (None, None),
    extract: bool = True,
) -> PageAnswer:
    """One post's page through the guard, one request per host at a time, conditional when
    `validators` are given; the article extracted in a page worker when `extract`."""
    try:
        async with reader._hosts.hold(site_of(link)):
            result = await reader.fetcher.fetch(
                link,
                etag=validators[0],
                last_modified=validators[1],
                trusted=False,
                trusted_origin=origin,
                web_page=True,
                max_bytes=reader.max_bytes,
                page_bytes=reader.max_bytes,
            )
    except FetchError as exc:
        return PageAnswer(None, error=str(exc))
    etag, modified = result.etag, result.last_modified
    if result.status != 200 or not extract:
        return PageAnswer(result.status, etag=etag, last_modified=modified)
    if not looks_like_html(result.body, result.headers.get("content-type", "")):
        return PageAnswer(200, failed("not a web page"), etag, modified)
    reader.workers.warm()
    try:
        article = await reader.workers.extract(result.body, result.url, title)
    except Exception as exc:  # a worker killed at its limits: this reading proves nothing
        article = failed(f"{type(exc).__name__}")
    return PageAnswer(200, article, etag, modified, body=result.body)


class FullText:
    """The poll's side of full text: the pages of the plan's new posts that chats see
    summarised, before the feed's transaction, and after it the pages still coming."""

    def __init__(self, engine: Engine, fetcher: Fetcher, settings: Settings, clock: Clock) -> None:
        self.engine = engine
        self.settings = settings
        self.clock = clock
        self.pages = PageReader(
            fetcher, settings.full_text_wait_seconds, max_bytes=settings.full_text_max_bytes
        )
        self._later: set[asyncio.Task[None]] = set()

    async def read(
        self, feed: FeedState, entries: Sequence[RawEntry], edited: Sequence[RawEntry] = ()
    ) -> tuple[dict[str, Article], dict[str, asyncio.Task[Article]]]:
        """The pages of the new posts some chat sees summarised (`core/polls/fanout.py`),
        waited for at most FULL_TEXT_WAIT_SECONDS, and of edited posts (the feed says they
        changed: the stored article follows), started with them and never waited for: the
        articles read by then (by key), and the pages still coming (`store_later`)."""
        if not feed.full_text or not (entries or edited):
            return {}, {}
        others = self.pages.start(feed, edited)
        ready, late = await self.pages.read(feed, entries)
        for key, task in others.items():
            if task.done() and not task.cancelled():
                ready.setdefault(key, task.result())
            elif key not in ready:
                late[key] = task
        return ready, late

    def store_later(self, feed: FeedState, late: Mapping[str, asyncio.Task[Article]]) -> None:
        """Pages that came after the poll's write are stored with their posts when read
        (backlog and digests show them)."""
        if late:
            job = asyncio.create_task(self._save_when_read(feed, dict(late)))
            self._later.add(job)
            job.add_done_callback(self._later.discard)

    async def settle(self) -> None:
        """Wait until pages still being read are stored (`poll --once`, tests)."""
        while self._later:
            await asyncio.gather(*list(self._later), return_exceptions=True)

    async def cancel(self) -> None:
        """Stop reading pages (the bot is stopping); their posts keep the feed's excerpt."""
        for job in list(self._later):
            job.cancel()
        await asyncio.gather(*list(self._later), return_exceptions=True)
        await self.pages.cancel()

    async def _save_when_read(
        self, feed: FeedState, tasks: dict[str, asyncio.Task[Article]]
    ) -> None:
        await asyncio.wait(tasks.values())
        articles = {k: t.result() for k, t in tasks.items() if not t.cancelled()}
        try:
            await asyncio.to_thread(self._save, feed.id, articles)
        except Exception as exc:  # the messages went out; only a later backlog lacks the text
            log.warning("feed %s: could not store %d article(s): %s", feed.slug, len(articles), exc)

    def _save(self, feed_id: int, articles: dict[str, Article]) -> None:
        with transaction(self.engine) as session:
            store.save_articles(session, feed_id=feed_id, articles=articles, now=self.clock())
