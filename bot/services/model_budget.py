"""The model's hourly budget, one for every process: shares per feed and per person.

`core/polls/shares.py` says which shares a feed's calls draw on and how many they allow. On
PostgreSQL the shares' rows are the budget of every process (one transaction takes a poll's
calls from all of its shares at once; like Telegram's budget, `telegram/budget.py`); on
SQLite, where one process polls, the same arithmetic runs in memory. A share refused for the
first time this hour is logged here and told to the operators by the poll (`poll_result.py`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from sqlalchemy import Engine

from bot.core.polls.decide import FeedState
from bot.core.polls.shares import Fractions, Grant, Share, Spent, grant, hour_of, shares_of
from bot.db import store
from bot.db.engine import transaction
from bot.runtime.clock import Clock
from bot.runtime.config import Settings

log = logging.getLogger(__name__)


class Budget(Protocol):
    async def take(self, feed: FeedState, asked: int) -> Grant:
        """Up to `asked` calls for this feed's poll, from every share it draws on."""


class MemoryBudget:
    """The shares in this process's memory (SQLite: one polling process)."""

    def __init__(self, fractions: Fractions, clock: Clock) -> None:
        self.fractions, self.clock = fractions, clock
        self._spent: dict[str, Spent] = {}

    async def take(self, feed: FeedState, asked: int) -> Grant:
        shares = shares_of(feed.id, feed.trusted, feed.added_by, self.fractions)
        result, after = grant(asked, shares, self._spent, hour_of(self.clock()))
        self._spent.update(after)
        return _said(feed, result)


class DatabaseBudget:
    """The shares in the database: one budget for every process (PostgreSQL)."""

    def __init__(self, engine: Engine, fractions: Fractions, clock: Clock) -> None:
        self.engine, self.fractions, self.clock = engine, fractions, clock

    async def take(self, feed: FeedState, asked: int) -> Grant:
        shares = shares_of(feed.id, feed.trusted, feed.added_by, self.fractions)

        def spend() -> Grant:
            with transaction(self.engine) as session:
                hour = hour_of(self.clock())
                return store.spend_model_calls(session, shares=shares, asked=asked, hour=hour)

        return _said(feed, await asyncio.to_thread(spend))


def fractions_of(settings: Settings) -> Fractions:
    return Fractions(
        per_hour=settings.model_max_calls_per_hour,
        chat_feeds=settings.model_chat_feeds_share,
        owner=settings.model_user_share,
        feed=settings.model_feed_share,
    )


def budget_for(engine: Engine, settings: Settings, clock: Clock) -> Budget:
    if engine.dialect.name == "postgresql":
        return DatabaseBudget(engine, fractions_of(settings), clock)
    return MemoryBudget(fractions_of(settings), clock)


def _said(feed: FeedState, result: Grant) -> Grant:
    for share in result.spent:
        log.warning(
            "feed %s spent %s (%d model calls this hour): extractive summaries until the next hour",
            feed.slug,
            _named(share),
            share.limit,
        )
    return result


def _named(share: Share) -> str:
    return {
        "all": "MODEL_MAX_CALLS_PER_HOUR",
        "chat-feeds": "the chat-added feeds' share (MODEL_CHAT_FEEDS_SHARE)",
        "owner": "the share of the user who added it (MODEL_USER_SHARE)",
        "feed": "its own share (MODEL_FEED_SHARE)",
    }[share.kind.value]
