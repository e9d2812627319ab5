"""The operator's language model in the poll: each new post's texts, asked once, never in the
way.

After the poll's plan, before its transaction, for the new posts some chat gets alone and the
chats among them that asked (`/summary FEED model`, `/translate on`): which (language, kind)
texts each post needs, which are already stored (a cache keyed by post version, language,
kind, model and prompt, shared by every chat, process and restart, read with the poll), and
the calls for the rest, all within `MODEL_TIMEOUT_SECONDS`. A failure, a timeout, a 429, the
feed's spent share of the hour (`model_budget.py`) or an open breaker (three failures in a
row, then five minutes without calls) leaves that message with the extractive summary and the
original text; one log line says why.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.core.messages.modeltext import (
    Kind,
    ModelText,
    Written,
    cache_key,
    language_of,
    needs,
    possible_keys,
    prompt,
    read_reply,
    version,
)
from bot.core.messages.render import to_plain
from bot.core.messages.summary import summarize
from bot.core.polls.decide import FeedState
from bot.core.polls.fanout import modelled
from bot.core.polls.shares import Share
from bot.core.text import html_to_text
from bot.core.types import ParsedItem, RawEntry, Reader
from bot.net.model_api import ModelApi, ModelError
from bot.runtime import metrics
from bot.runtime.config import Settings
from bot.services.cpu import parse_off_loop
from bot.services.model_budget import Budget

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


def _say_open(reason: str) -> None:
    log.error(
        "the model endpoint failed %d times in a row (%s): no calls for %.0f s, messages use "
        "the extractive summary",
        BREAKER_FAILURES,
        reason,
        BREAKER_SECONDS,
    )


@dataclass(frozen=True, slots=True)
class Job:
    """One call to the model: its cache key, the post, the language and kind, what is sent."""

    key: str  # the cache key
    item: str  # the post's key
    language: str
    kind: Kind
    messages: list[dict[str, str]]
    link: str | None


@dataclass(frozen=True, slots=True)
class Wrote:
    """What the model gave one poll: each post's texts (by post key), the answers to keep (by
    cache key), and the shares of the budget this poll found spent for the first time."""

    written: dict[str, Written] = field(default_factory=dict)
    fresh: dict[str, ModelText] = field(default_factory=dict)
    spent: tuple[Share, ...] = ()


class ModelWriter:
    def __init__(
        self,
        settings: Settings,
        budget: Budget,
        api: ModelApi | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings, self.budget = settings, budget
        self.api = api or (ModelApi(settings) if settings.model_api_url else None)
        self.custom = _prompt_text(settings)
        self.breaker = Breaker(monotonic)
        self._gate = asyncio.Semaphore(CONCURRENT_CALLS)

    @property
    def enabled(self) -> bool:
        return self.api is not None

    def keys(
        self, feed: FeedState, unseen: Sequence[RawEntry], audience: Sequence[Reader]
    ) -> list[str]:
        """The stored answers the poll reads with everything else (`store.read_poll`): those
        its unseen entries may need for the chats that ask for the model's texts."""
        readers = [r for r in audience if modelled(r)]
        if self.api is None or not readers:
            return []
        posts = [(e.title, version(e.content_hash, feed.full_text)) for e in unseen]
        return possible_keys(posts, readers, self.api.model, self.custom)

    async def write(
        self,
        feed: FeedState,
        items: Sequence[ParsedItem],
        asks: Mapping[str, Sequence[Reader]],
        cached: Mapping[str, ModelText],
        declared: str | None,
    ) -> Wrote:
        """The texts for the new posts some chat gets alone (`asks`: post key → the chats that
        may show a model's text), from the cache read with the poll, or asked now within the
        feed's share of the hour."""
        wanted = [i for i in items if i.key in asks]
        if self.api is None or not wanted:
            return Wrote()
        posts = await parse_off_loop(_posts, wanted, declared, feed.full_text)
        jobs = [job for post in posts for job in self._jobs(post, asks[post.item])]
        hits = {j.key: cached[j.key] for j in jobs if j.key in cached}
        metrics.MODEL_CACHE_HITS.inc(len(hits))
        asked = list({j.key: j for j in jobs if j.key not in hits}.values())
        fresh: dict[str, ModelText] = {}
        spent: tuple[Share, ...] = ()
        if asked and self.breaker.allows():
            granted = await self.budget.take(feed, len(asked))
            spent = granted.spent
            fresh = await self.ask_all(feed, asked[: granted.granted])
        answers = {**hits, **fresh}
        written: dict[str, dict[tuple[str, Kind], ModelText]] = {p.item: {} for p in posts}
        for job in jobs:
            text = answers.get(job.key)
            if text is None:
                metrics.MODEL_FALLBACKS.inc()
            else:
                written[job.item][(job.language, job.kind)] = text
        return Wrote({p.item: Written(p.language, written[p.item]) for p in posts}, fresh, spent)

    def _jobs(self, post: _Post, readers: Sequence[Reader]) -> list[Job]:
        assert self.api is not None
        jobs = []
        for language, kind in sorted(needs(readers, post.language)):
            custom = self.custom if kind is Kind.SUMMARY else ""
            messages = prompt(kind, language, post.title, post.text, post.extract, custom)
            key = cache_key(
                kind, language, self.api.model, messages[0]["content"], post.title, post.version
            )
            jobs.append(Job(key, post.item, language, kind, messages, post.link))
        return jobs

    async def ask_all(self, feed: FeedState, jobs: list[Job]) -> dict[str, ModelText]:
        answers: dict[str, ModelText] = {}

        async def ask(job: Job) -> None:
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

    async def _ask(self, feed: FeedState, job: Job) -> ModelText | None:
        assert self.api is not None
        if not self.breaker.allows():
            return None
        try:
            reply = await self.api.complete(job.messages)
        except ModelError as exc:
            metrics.MODEL_CALLS.labels("failed").inc()
            log.warning("feed %s: %s; the message uses the extractive summary", feed.slug, exc)
            if self.breaker.failed():
                _say_open(str(exc))
            return None
        text = read_reply(reply, job.link, job.messages[-1]["content"])  # what it was sent
        if text is None:
            metrics.MODEL_CALLS.labels("failed").inc()
            log.warning("feed %s: the model's answer was empty once cleaned", feed.slug)
            return None
        self.breaker.worked()
        metrics.MODEL_CALLS.labels("ok").inc()
        return text

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
    version: str  # the post's version as the cache knows it (`modeltext.version`)


def _posts(items: Sequence[ParsedItem], declared: str | None, full_text: bool) -> list[_Post]:
    """The new posts' public text as shown (a page read for one is its text), in the parsing
    pool: html2text is the expensive step."""
    posts = []
    for item in items:
        text = html_to_text(item.html)
        extract = to_plain(summarize(item.html, text, item.excerpt, full=item.full))
        language = language_of(declared, f"{item.title}\n{text}")
        seen = version(item.content_hash, full_text)
        posts.append(_Post(item.key, item.title, item.link, text, extract, language, seen))
    return posts


def _prompt_text(settings: Settings) -> str:
    """MODEL_PROMPT_FILE's text (the summary instruction), read once at start."""
    if settings.model_prompt_file is None:
        return ""
    return settings.model_prompt_file.read_text(encoding="utf-8").strip()
