"""Long posts read in Telegram (issue 47): a `full` post longer than one message becomes a
Telegraph page its message links to (Telegram opens it in Instant View), and an edit of the
post edits the page.

Runs in the poll's enrichment, after the pages and before the render (`enrich.py`), for the
new posts some chat reads whole (`Fanout.full_reads`) and the edited posts that have a page;
the pages are stored with the poll (`store.save_telegraph_pages`). Off unless
`TELEGRAPH_ENABLED`. Any failure (Telegraph's refusal, 4xx/5xx, an answer that is not its
JSON, a timeout, FLOOD_WAIT, a post over its 64 KB) is one log line and today's cut message
("Read on the site"); after a failure of Telegraph itself (not of one post) no call is made
for a while (FLOOD_WAIT's seconds, else `PAUSE`), so a dead endpoint costs each poll nothing.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Engine

from bot.core.messages.header import post_name
from bot.core.messages.render import FULL_COLUMNS
from bot.core.messages.summary import whole_post
from bot.core.messages.telegraph import (
    author_name,
    author_url,
    encoded,
    fingerprint,
    page_content,
    page_title,
)
from bot.core.polls.fanout import Fanout
from bot.core.polls.plan import PollPlan
from bot.core.types import ChangeKind, ParsedItem
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.store import StoredPage
from bot.net.telegraph import SHORT_NAME, TelegraphApi, TelegraphError
from bot.runtime.clock import Clock
from bot.runtime.config import Settings
from bot.services import run

log = logging.getLogger("bot.services.telegraph")

PAUSE = timedelta(seconds=60)  # after Telegraph itself failed (a timeout, a 5xx, garbage)
TOKEN_PAUSE = timedelta(minutes=10)  # after it refused the configured token
# Refusals about one post (its content, its title): the next post may well be fine.
_ABOUT_THE_POST = ("CONTENT_", "TITLE_", "AUTHOR_", "TAG_", "PAGE_")


@dataclass(frozen=True, slots=True)
class Pages:
    """A poll's Telegraph pages: the new posts' addresses (rendered into their messages) and
    the pages to store (new ones and edited ones), by post key."""

    urls: Mapping[str, str] = field(default_factory=dict)
    stored: Mapping[str, StoredPage] = field(default_factory=dict)


class Publisher:
    def __init__(self, engine: Engine, settings: Settings, clock: Clock) -> None:
        self.enabled = settings.telegraph_enabled
        self.engine = engine
        self.clock = clock
        self.api = TelegraphApi(settings)
        configured = settings.telegraph_access_token
        self.configured = configured.get_secret_value() if configured is not None else None
        self._token = self.configured
        self._paused_until: datetime | None = None
        self._lock = asyncio.Lock()

    def wanted(self, plan: PollPlan, fanout: Fanout) -> bool:
        """Anything Telegraph may be asked in this poll (most polls: nothing)."""
        if not self.enabled:
            return False
        edited = any(c.kind is ChangeKind.EDITED for c in plan.changes)
        return edited or bool(fanout.full_reads())

    async def publish(self, shown: PollPlan, fanout: Fanout, source: str) -> Pages:
        """Pages for the long new posts some chat reads whole, and the stored pages of the
        edited posts brought up to date. `shown`: the plan with its articles (full text)."""
        if not self.enabled:
            return Pages()
        whole = set(fanout.full_reads())
        new = [c.item for c in shown.changes if c.kind is ChangeKind.NEW and c.item.key in whole]
        edited = [c.item for c in shown.changes if c.kind is ChangeKind.EDITED]
        slug = shown.feed.slug
        stored: dict[str, StoredPage] = {}
        if edited:
            keys = [i.key for i in edited]
            feed_id = shown.feed.id
            stored = await run.read(
                self.engine, lambda s: store.telegraph_pages(s, feed_id=feed_id, keys=keys)
            )
        urls, kept = {}, {}
        for item in new:
            if whole_post(item.html, item.text, limit=FULL_COLUMNS)[1]:
                continue  # it fits one message: no page
            page = await self._page(slug, source, item, None)
            if page is not None:
                urls[item.key], kept[item.key] = page.url, page
        for item in edited:
            old = stored.get(item.key)
            if old is not None:
                page = await self._page(slug, source, item, old)
                if page is not None and page != old:
                    kept[item.key] = page
        return Pages(urls, kept)

    async def _page(
        self, slug: str, source: str, item: ParsedItem, old: StoredPage | None
    ) -> StoredPage | None:
        doing = "edited" if old is not None else "published"
        content = page_content(item.html or _paragraphs(item.text), item.link)
        if isinstance(content, str):
            log.info(
                "feed %s: %s: no Telegraph page (%s); the message is cut", slug, item.key, content
            )
            return None
        title = page_title(post_name(item.title, item.text, item.link) or "…")
        digest = fingerprint(title, content)
        if old is not None and old.digest == digest:
            return old  # the edit changed nothing the page shows
        now = self.clock()
        if self._paused_until is not None and now < self._paused_until:
            log.info(
                "feed %s: %s: Telegraph is paused after a failure; page not %s",
                slug,
                item.key,
                doing,
            )
            return None
        form = {
            "title": title,
            "author_name": author_name(source),
            "author_url": author_url(item.link),
            "content": encoded(content),
        }
        token = None
        try:
            token = await self._access_token()
            if old is not None:
                done = await self.api.edit_page(token, old.path, form)
            else:
                done = await self.api.create_page(token, form)
        except TelegraphError as exc:
            await self._failed(exc, token, now)
            log.warning(
                "feed %s: %s: Telegraph page not %s, the message is cut: %s",
                slug,
                _named(item),
                doing,
                exc.reason,
            )
            return None
        return StoredPage(done.path, done.url, digest)

    async def _failed(self, exc: TelegraphError, token: str | None, now: datetime) -> None:
        """Pause after Telegraph's own failure; forget a created token it no longer takes."""
        if exc.wait is not None:
            self._paused_until = now + timedelta(seconds=exc.wait)
        elif exc.error == "ACCESS_TOKEN_INVALID":
            if token is not None and token != self.configured:
                self._token = None
                await run.write(self.engine, lambda s: store.forget_telegraph_token(s, token=token))
            else:
                self._paused_until = now + TOKEN_PAUSE
        elif not exc.error.startswith(_ABOUT_THE_POST):
            self._paused_until = now + PAUSE

    async def _access_token(self) -> str:
        """The configured token, else the one stored, else a new account's (created once, by
        one process: another's stored first is used instead)."""
        if self._token is not None:
            return self._token
        async with self._lock:
            if self._token is not None:
                return self._token
            token = await run.read(self.engine, store.telegraph_token)
            if token is None:
                created = await self.api.create_account(SHORT_NAME)
                now = self.clock()
                token = await run.write(
                    self.engine,
                    lambda s: store.keep_telegraph_token(s, token=created, now=now),
                )
                log.info("Telegraph: created the bot's account (its token is in the database)")
            self._token = token
            return token

    async def aclose(self) -> None:
        await self.api.aclose()


def _paragraphs(text: str) -> str:
    """A post with text only (no HTML): its paragraphs, escaped."""
    return "".join(f"<p>{html.escape(part)}</p>" for part in text.split("\n\n") if part.strip())


def _named(item: ParsedItem) -> str:
    """The post in a log line (a query string may hold someone's token: left out)."""
    return redact_urls(item.link or item.key)[:200]
