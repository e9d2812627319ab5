"""The catalog of watched feeds: add one (fetch once, store a silent baseline), import an OPML
list, move a feed to a new address, remove one (even on a full disk: `db.reserve`)."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from urllib.parse import urlsplit

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import read_feed
from bot.core.polls.decide import FetchResult
from bot.core.types import RawFeed
from bot.core.urls import shown_url, url_problem
from bot.db import store
from bot.db.engine import transaction
from bot.db.reserve import freeing_write
from bot.net.fetch import FetchError, RequestBudget
from bot.services import run
from bot.services.cpu import parse_off_loop
from bot.services.outcome import PollOutcome
from bot.services.polling import Poller

log = logging.getLogger(__name__)
SLUG_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


class AddError(StrEnum):
    """Why a feed could not be added: what a chat is told, in its language (one text each in
    `bot/telegram/texts.py`'s FEED_ERRORS)."""

    ADDRESS = "address"  # not an http(s) address
    BLOCKED = "blocked"  # the SSRF guard refused it
    SLOW = "slow"
    UNREACHABLE = "unreachable"
    NOT_FEED = "not_feed"
    NO_FEED = "no_feed"  # a page that links to none
    WATCHED = "watched"
    SLUG = "slug"  # the feed name is taken or not valid
    MAX_FEEDS = "max_feeds"
    MAX_USER = "max_user"
    BUSY = "busy"  # this person's last search is still running


class FeedAddError(Exception):
    """Adding a feed failed. The message is one technical line (CLI, logs); `kind` is what a
    chat is told."""

    def __init__(self, message: str, kind: AddError = AddError.UNREACHABLE) -> None:
        super().__init__(message)
        self.kind = kind


class AlreadyWatched(FeedAddError):
    """The URL (or where it redirects) is watched already."""

    def __init__(self, message: str) -> None:
        super().__init__(message, AddError.WATCHED)


@dataclass(frozen=True, slots=True)
class AddLimits:
    """MAX_FEEDS for everyone; MAX_FEEDS_PER_USER for `user` (None: an operator, no cap)."""

    max_feeds: int
    per_user: int | None = None


@dataclass
class ImportReport:
    added: list[PollOutcome] = field(default_factory=list)
    skipped: int = 0
    failed: list[str] = field(default_factory=list)


class Catalog:
    """Adding feeds reuses the poller's decision and storage path for the first poll."""

    def __init__(self, poller: Poller) -> None:
        self.poller = poller

    async def add_feed(
        self,
        url: str,
        *,
        slug: str | None = None,
        trusted: bool,
        added_by: int | None = None,
        limits: AddLimits | None = None,
    ) -> PollOutcome:
        """Fetch once and store the baseline; nothing is stored when that fails."""
        if slug is not None and not SLUG_PATTERN.fullmatch(slug):
            raise FeedAddError("a slug is 1-64 lowercase letters, digits and dashes", AddError.SLUG)
        url, result, raw = await self.fetch_feed(url, trusted=trusted)
        return await self.add_fetched(
            url, result, raw, slug=slug, trusted=trusted, added_by=added_by, limits=limits
        )

    async def add_fetched(
        self,
        url: str,
        result: FetchResult,
        raw: RawFeed,
        *,
        slug: str | None = None,
        trusted: bool,
        added_by: int | None = None,
        limits: AddLimits | None = None,
    ) -> PollOutcome:
        """Store a feed already fetched (discovery fetched it to know it is one). `trusted`:
        an operator's feed from the CLI; a chat's is polled through the SSRF guard."""
        adder = Adder(url, slug, trusted, added_by, limits)
        return await asyncio.to_thread(self._add, adder, result, raw)

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
        url, result, _ = await self.fetch_feed(url, trusted=True)
        target, now = result.moved_to or url, self.poller.clock()
        moved = store.move_feed
        if not await run.write(
            self.poller.engine, lambda s: moved(s, slug=slug, url=target, now=now)
        ):
            raise FeedAddError(f"no feed named {slug!r} (see `feed list`)")

    async def rename_feed(self, slug: str, new_slug: str) -> None:
        """Give a feed another name (operators, `feed rename`)."""
        await asyncio.to_thread(rename, self.poller.engine, slug, new_slug)

    async def toggle_full_text(self, feed_id: int) -> bool | None:
        """An operator's switch: read each new post's page (or stop); None: no such feed."""
        flip = store.toggle_full_text
        return await run.write(self.poller.engine, lambda s: flip(s, feed_id=feed_id))

    async def remove_feed(self, slug: str) -> bool:
        """Stop watching a feed (even on a full disk); False if there is none by that name."""
        work = functools.partial(store.remove_feed, slug=slug)
        return await asyncio.to_thread(freeing_write, self.poller.engine, work)

    async def fetch_page(
        self,
        url: str,
        *,
        trusted: bool,
        page_bytes: int | None = None,
        budget: RequestBudget | None = None,
    ) -> FetchResult:
        """GET a URL someone sent: http(s) and answering 200 (a feed or a web page).
        `page_bytes` and `budget` bound a search (`Fetcher.fetch`)."""
        url = url.strip()
        shown = shown_url(url, operator=True)  # errors never repeat a password
        if url_problem(url) is not None:
            raise FeedAddError(f"not an http(s) URL: {shown[:200]!r}", AddError.ADDRESS)
        try:
            result = await self.poller.fetcher.fetch(
                url, trusted=trusted, page_bytes=page_bytes, budget=budget
            )
        except FetchError as exc:
            kind = (
                AddError.BLOCKED
                if exc.blocked
                else AddError.SLOW
                if exc.slow
                else AddError.UNREACHABLE
            )
            raise FeedAddError(f"cannot fetch {shown}: {exc}", kind) from None
        if result.status != 200:
            raise FeedAddError(f"cannot fetch {shown}: HTTP {result.status}")
        return result

    async def fetch_feed(self, url: str, *, trusted: bool) -> tuple[str, FetchResult, RawFeed]:
        """A URL someone wants watched: http(s), answers 200, and the body is a feed."""
        result = await self.fetch_page(url, trusted=trusted)
        try:
            raw = await parse_off_loop(read_feed, result.body, result.headers, result.url)
        except NotAFeed as exc:
            shown = shown_url(url, operator=True)
            raise FeedAddError(f"{shown} is {exc}", AddError.NOT_FEED) from None
        return url.strip(), result, raw

    def _add(self, adder: Adder, result: FetchResult, raw: RawFeed) -> PollOutcome:
        url, slug = adder.url, adder.slug
        with transaction(self.poller.engine) as session:
            final_url = result.moved_to or url
            if store.get_feed_by_url(session, url=final_url) or store.get_feed_by_url(
                session, url=url
            ):
                raise AlreadyWatched(f"{shown_url(url, operator=True)} is already watched")
            check_limits(session, adder)
            wanted = slug or slug_base(raw.title or "", parts_host(final_url))
            if adder.trusted:
                reclaim(session, wanted)
            if slug is None:
                slug = unique_slug(session, raw.title or "", parts_host(final_url))
            elif store.get_feed(session, slug=slug) is not None:
                raise FeedAddError(f"the slug {slug!r} is taken", AddError.SLUG)
            feed = store.add_feed(
                session,
                slug=slug,
                url=final_url,
                title=raw.title or slug,
                trusted=adder.trusted,
                added_by=adder.added_by,
            )
            return self.poller.apply(session, feed.id, result, raw)


@dataclass(frozen=True, slots=True)
class Adder:
    """Who adds which URL under which name, within which limits."""

    url: str
    slug: str | None
    trusted: bool
    added_by: int | None
    limits: AddLimits | None


def check_limits(session: Session, adder: Adder) -> None:
    """Refuse past MAX_FEEDS or the user's MAX_FEEDS_PER_USER (inside the adding
    transaction, so two chats adding at once cannot both pass)."""
    limits = adder.limits
    if limits is None:
        return
    if store.count_feeds(session) >= limits.max_feeds:
        raise FeedAddError(
            f"the bot watches {limits.max_feeds} feeds, the most allowed", AddError.MAX_FEEDS
        )
    if limits.per_user is not None and adder.added_by is not None:
        mine = store.count_feeds(session, added_by=adder.added_by)
        if mine >= limits.per_user:
            raise FeedAddError(f"user added {mine} feeds, the most allowed", AddError.MAX_USER)


def rename(engine: Engine, slug: str, new_slug: str) -> None:
    if not SLUG_PATTERN.fullmatch(new_slug):
        raise FeedAddError("a slug is 1-64 lowercase letters, digits and dashes", AddError.SLUG)
    with transaction(engine) as session:
        if store.get_feed(session, slug=new_slug) is not None:
            raise FeedAddError(f"the slug {new_slug!r} is taken", AddError.SLUG)
        if not store.rename_feed(session, slug=slug, new_slug=new_slug):
            raise FeedAddError(f"no feed named {slug!r} (see `feed list`)")


def reclaim(session: Session, slug: str) -> None:
    """Operators' feeds own the names: a chat-added feed holding the one an operator's feed
    wants (a feed titled "PyTorch Blog" added from a chat before the real one) is renamed after
    its own address, so `/subscribe pytorch-blog` means the operator's feed."""
    holder = store.get_feed(session, slug=slug)
    if holder is None or holder.trusted:
        return
    renamed = unique_slug(session, "", parts_host(holder.url))
    store.rename_feed(session, slug=slug, new_slug=renamed)
    log.warning(
        "feed %s (added from a chat) renamed %s: an operator's feed takes the name", slug, renamed
    )


def parts_host(url: str) -> str:
    return urlsplit(url).hostname or "feed"


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:32].strip("-") or "feed"


def slug_base(title: str, host: str = "feed") -> str:
    """A feed name from its title; from its host when the title has no Latin letters or digits
    (a Chinese blog's title), as `www.` prefixes add nothing."""
    base = slugify(title) if re.search(r"[A-Za-z0-9]", title) else "feed"
    if base == "feed":
        base = slugify(host.removeprefix("www."))
    return base


def unique_slug(session: Session, title: str, host: str = "feed") -> str:
    """`slug_base`, with `-2`, `-3` … when that name is taken."""
    base = slug_base(title, host)
    candidate, n = base, 2
    while store.get_feed(session, slug=candidate) is not None:
        candidate, n = f"{base}-{n}", n + 1
    return candidate
