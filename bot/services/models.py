"""The operator's language model in the poll: each new post's texts, asked once, never in the
way.

Before the feed's transaction, for the chats that asked (`/summary FEED model`, `/translate
on`): which (language, kind) texts each new post needs, which are already stored (a cache keyed
by post version, language, kind, model and prompt, shared by every chat, process and restart),
and the calls for the rest, all within `MODEL_TIMEOUT_SECONDS`. A failure, a timeout, a 429,
the hourly cap (`MODEL_MAX_CALLS_PER_HOUR`) or an open breaker (three failures in a row, then
five minutes without calls) leaves that message with the extractive summary and the original
text; one log line says why.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.feeds.entries import NotAFeed
from bot.core.messages.article import Article
from bot.core.messages.modeltext import (
    Kind,
    ModelText,
    Written,
    cache_key,
    language_of,
    needs,
    prompt,
    read_reply,
)
from bot.core.messages.render import to_plain
from bot.core.messages.summary import summarize
from bot.core.polls.decide import FeedState
from bot.core.text import html_to_text
from bot.core.types import RawEntry, RawFeed, Reader
from bot.db import store
from bot.db.engine import transaction
from bot.net.model_api import ModelApi, ModelError
from bot.runtime import metrics
from bot.runtime.clock import Clock
from bot.runtime.config import Settings
from bot.services.cpu import parse_off_loop

log = logging.getLogger(__name__)
CONCURRENT_CALLS = 4
BREAKER_FAILURES = 3
BREAKER_SECONDS = 300.0


class Breaker:
    """Stops calling a failing endpoint for a while: after `failures` in a row, `seconds`."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.monotonic = monotonic
        self.failures = 0
        self.open_until = 0.0

    def allows(self) -> bool:
        return self.monotonic() >= self.open_until

    def failed(self) -> bool:
        """Count a failure; True when it opens the breaker now."""
        self.failures += 1
        if self.failures >= BREAKER_FAILURES and self.allows():
            self.open_until = self.monotonic() + BREAKER_SECONDS
            return True
        return False

    def worked(self) -> None:
        self.failures = 0


class HourlyQuota:
    """MODEL_MAX_CALLS_PER_HOUR for this process: past it, extractive until the hour has room."""

    def __init__(self, per_hour: int, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.per_hour, self.monotonic = per_hour, monotonic
        self._calls: deque[float] = deque()
        self._said = -3600.0

    def take(self) -> bool:
        now = self.monotonic()
        while self._calls and self._calls[0] <= now - 3600:
            self._calls.popleft()
        if len(self._calls) < self.per_hour:
            self._calls.append(now)
            return True
        if now - self._said >= 3600:
            self._said = now
            log.warning(
                "MODEL_MAX_CALLS_PER_HOUR=%d reached: extractive summaries until the hour has room",
                self.per_hour,
            )
        return False


def _say_open(reason: str) -> None:
    log.error(
        "the model endpoint failed %d times in a row (%s): no calls for %.0f s, messages use "
        "the extractive summary",
        BREAKER_FAILURES,
        reason,
        BREAKER_SECONDS,
    )


@dataclass(frozen=True, slots=True)
class _Job:
    key: str  # the cache key
    item: str  # the post's key
    language: str
    kind: Kind
    messages: list[dict[str, str]]
    link: str | None


class ModelWriter:
    def __init__(
        self,
        engine: Engine,
        settings: Settings,
        clock: Clock,
        api: ModelApi | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine, self.settings, self.clock = engine, settings, clock
        self.api = api or (ModelApi(settings) if settings.model_api_url else None)
        self.custom = _prompt_text(settings)
        self.breaker = Breaker(monotonic)
        self.monotonic = monotonic
        self.quota = HourlyQuota(settings.model_max_calls_per_hour, monotonic)
        self._gate = asyncio.Semaphore(CONCURRENT_CALLS)

    @property
    def enabled(self) -> bool:
        return self.api is not None

    async def for_new_posts(
        self, feed: FeedState, raw: RawFeed | NotAFeed | None, articles: dict[str, Article]
    ) -> dict[str, Written]:
        """What the model wrote for this poll's new posts, by post key ({} when off)."""
        if self.api is None or not isinstance(raw, RawFeed) or not feed.baseline_done:
            return {}
        keys = [e.key for e in raw.entries]
        readers, known = await asyncio.to_thread(self._audience, feed.id, keys)
        if not any(r.summary_mode == "model" or r.translate for r in readers):
            return {}
        fresh = [e for e in raw.entries if e.key not in known]
        if not fresh or len(fresh) > self.settings.max_new_per_poll:
            return {}  # nothing new, or a flood: one list of titles, no summaries
        posts = await parse_off_loop(_posts, fresh, articles, raw.language)
        written: dict[str, dict[tuple[str, Kind], ModelText]] = {p.item: {} for p in posts}
        jobs = [job for post in posts for job in self._jobs(post, readers)]
        cached = await asyncio.to_thread(self._cached, [j.key for j in jobs])
        metrics.MODEL_CACHE_HITS.inc(len(cached))
        answers = dict(cached)
        asked = [j for j in jobs if j.key not in cached]
        if asked:
            fresh_answers = await self._ask_all(feed, asked)
            answers.update(fresh_answers)
            if fresh_answers:
                await asyncio.to_thread(self._save, feed.id, fresh_answers)
        for job in jobs:
            text = answers.get(job.key)
            if text is None:
                metrics.MODEL_FALLBACKS.inc()
            else:
                written[job.item][(job.language, job.kind)] = text
        return {p.item: Written(p.language, written[p.item]) for p in posts}

    def _jobs(self, post: _Post, readers: Sequence[Reader]) -> list[_Job]:
        assert self.api is not None
        jobs = []
        for language, kind in sorted(needs(readers, post.language)):
            instruction = self.custom if kind is Kind.SUMMARY else ""
            messages = prompt(kind, language, post.title, post.text, post.extract, instruction)
            source = post.text if kind is Kind.SUMMARY else post.extract
            key = cache_key(
                kind, language, self.api.model, messages[0]["content"], post.title, source
            )
            jobs.append(_Job(key, post.item, language, kind, messages, post.link))
        return jobs

    async def _ask_all(self, feed: FeedState, jobs: list[_Job]) -> dict[str, ModelText]:
        answers: dict[str, ModelText] = {}

        async def ask(job: _Job) -> None:
            async with self._gate:
                text = await self._ask(feed, job)
            if text is not None:
                answers[job.key] = text

        tasks = [asyncio.create_task(ask(job)) for job in jobs]
        _, pending = await asyncio.wait(tasks, timeout=self.settings.model_timeout_seconds)
        for task in pending:
            task.cancel()
        if pending:
            log.warning(
                "feed %s: the model did not answer %d request(s) within %g s: those messages "
                "use the extractive summary",
                feed.slug,
                len(pending),
                self.settings.model_timeout_seconds,
            )
            metrics.MODEL_CALLS.labels("timeout").inc(len(pending))
            if self.breaker.failed():
                _say_open("the model did not answer in time")
        await asyncio.gather(*pending, return_exceptions=True)
        return answers

    async def _ask(self, feed: FeedState, job: _Job) -> ModelText | None:
        assert self.api is not None
        if not self.breaker.allows() or not self.quota.take():
            return None
        try:
            reply = await self.api.complete(job.messages)
        except ModelError as exc:
            metrics.MODEL_CALLS.labels("failed").inc()
            log.warning("feed %s: %s; the message uses the extractive summary", feed.slug, exc)
            if self.breaker.failed():
                _say_open(str(exc))
            return None
        text = read_reply(reply, job.link)
        if text is None:
            metrics.MODEL_CALLS.labels("failed").inc()
            log.warning("feed %s: the model's answer was empty once cleaned", feed.slug)
            return None
        self.breaker.worked()
        metrics.MODEL_CALLS.labels("ok").inc()
        return text

    def _audience(self, feed_id: int, keys: list[str]) -> tuple[list[Reader], set[str]]:
        with Session(self.engine) as session:
            readers = store.feed_audience(session, feed_id=feed_id)
            return readers, store.known_keys(session, feed_id=feed_id, keys=keys)

    def _cached(self, keys: list[str]) -> dict[str, ModelText]:
        with Session(self.engine) as session:
            return store.model_texts(session, keys=keys)

    def _save(self, feed_id: int, texts: dict[str, ModelText]) -> None:
        with transaction(self.engine) as session:
            store.save_model_texts(session, feed_id=feed_id, texts=texts, now=self.clock())

    async def aclose(self) -> None:
        if self.api is not None:
            await self.api.aclose()


@dataclass(frozen=True, slots=True)
class _Post:
    item: str
    title: str
    link: str | None
    text: str  # what the model reads: the article's text, else the feed's
    extract: str  # the extractive summary as plain text (what a translation translates)
    language: str


def _posts(
    entries: Sequence[RawEntry], articles: dict[str, Article], declared: str | None
) -> list[_Post]:
    """The new posts' public text (in the parsing pool: html2text is the expensive step)."""
    posts = []
    for entry in entries:
        article = articles.get(entry.key)
        body = article.html if article is not None and article.ok else entry.html
        text = html_to_text(body)
        extract = to_plain(summarize(body, text, entry.excerpt, full=entry.full))
        language = language_of(declared, f"{entry.title}\n{text}")
        posts.append(_Post(entry.key, entry.title, entry.link, text, extract, language))
    return posts


def _prompt_text(settings: Settings) -> str:
    """MODEL_PROMPT_FILE's text (the summary instruction), read once at start."""
    if settings.model_prompt_file is None:
        return ""
    return settings.model_prompt_file.read_text(encoding="utf-8").strip()
