"""What a decided poll's new posts get besides the feed: their pages, the model's texts and
the Telegraph pages of long posts (`telegraph.py`).

Like lemon24/reader's update hooks, which receive the entry intents already decided, this step
runs after the plan and the routing (`poll_result.decide_poll`) and receives exactly the new
posts some chat will see summarised and the chats that get them: a GUID migration, a flood's
list, a post every chat filters out or a digest's held post cost no model call; only a post
nobody will see summarised costs no page. It fetches, and writes nothing: the pages and the
model's answers are written with the poll (`store.write_poll`), pages that come later after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from sqlalchemy import Engine

from bot.core.messages.article import Article
from bot.core.messages.modeltext import ModelText
from bot.core.polls.decide import FeedState
from bot.core.polls.plan import enriched
from bot.core.types import ChangeKind, RawFeed
from bot.db import store
from bot.net.fetch import Fetcher
from bot.runtime.clock import Clock
from bot.runtime.config import Settings
from bot.services import run
from bot.services.articles import FullText
from bot.services.explanations import explain_edits
from bot.services.model_budget import budget_for
from bot.services.models import ModelWriter
from bot.services.poll_result import Decided, Extras
from bot.services.telegraph import Pages, Publisher


class Enricher:
    def __init__(self, engine: Engine, fetcher: Fetcher, settings: Settings, clock: Clock) -> None:
        self.engine = engine
        self.full_text = FullText(engine, fetcher, settings, clock)
        self.models = ModelWriter(settings, budget_for(engine, settings, clock))
        self.telegraph = Publisher(engine, settings, clock)

    @property
    def model_keys(self) -> store.ModelKeys | None:
        """What `store.read_poll` reads of the model's cache (nothing when the model is off)."""
        return self.models.keys if self.models.enabled else None

    def wanted(self, decided: Decided) -> bool:
        """Anything to fetch for this poll (most polls: nothing, and no thread hop for it)."""
        fanout = decided.fanout
        if decided.plan.feed.full_text and (fanout.pages() or _edited(decided)):
            return True
        if self.telegraph.wanted(decided.plan, fanout):
            return True
        return self.models.enabled and bool(fanout.asks() or fanout.explains())

    async def enrich(
        self, decided: Decided, raw: RawFeed | None, *, dry_run: bool = False
    ) -> tuple[Extras, Mapping[str, asyncio.Task[Article]]]:
        """The pages (within FULL_TEXT_WAIT_SECONDS) and then the model's texts (within
        MODEL_TIMEOUT_SECONDS; a dry run asks no model) of the routed new posts, and the
        pages still coming (stored after the poll: `later`)."""
        plan, fanout = decided.plan, decided.fanout
        feed = plan.feed
        if raw is None:
            return Extras(), {}
        entries = {e.key: e for e in raw.entries}
        pages = [entries[k] for k in fanout.pages() if k in entries]
        edited = [] if dry_run else [entries[k] for k in _edited(decided) if k in entries]
        articles, late = await self.full_text.read(feed, pages, edited)
        published = Pages()
        if self.telegraph.enabled and not dry_run:
            shown = enriched(plan, articles, {})
            published = await self.telegraph.publish(shown, fanout, plan.shown_title or feed.slug)
        asks = {} if dry_run else fanout.asks()
        explains = {} if dry_run else fanout.explains()
        if not (asks or explains) or not self.models.enabled:
            return Extras(articles=articles, pages=published), late
        shown = enriched(plan, articles, {})
        items = [c.item for c in shown.changes if c.kind is ChangeKind.NEW]
        wrote = await self.models.write(feed, items, asks, decided.known.model_texts, raw.language)
        edits = [c for c in shown.changes if c.kind is ChangeKind.EDITED]
        told = await explain_edits(self.models, feed, edits, explains, self._cached)
        extras = Extras(
            articles,
            {**wrote.written, **told.written},
            {**wrote.fresh, **told.fresh},
            tuple(dict.fromkeys((*wrote.spent, *told.spent))),
            model_used=True,
            pages=published,
        )
        return extras, late

    async def _cached(self, keys: list[str]) -> Mapping[str, ModelText]:
        """The model's stored answers under these keys (an edit's: read when it is asked)."""
        return await run.read(self.engine, lambda s: store.model_texts(s, keys=keys))

    def later(self, feed: FeedState, late: Mapping[str, asyncio.Task[Article]]) -> None:
        self.full_text.store_later(feed, late)

    async def settle(self) -> None:
        await self.full_text.settle()

    async def stop(self) -> None:
        """Stop reading pages (their posts keep the excerpt) and close the model's client."""
        await self.full_text.cancel()
        await self.models.aclose()
        await self.telegraph.aclose()


def _edited(decided: Decided) -> list[str]:
    """Edited posts of a full-text feed: their stored article follows the feed's change."""
    if not decided.plan.feed.full_text:
        return []
    return [c.item.key for c in decided.plan.changes if c.kind is ChangeKind.EDITED]
