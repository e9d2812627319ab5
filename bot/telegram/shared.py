"""What the app's handlers share (the services, the engine's loops, the chat guard and offers),
kept in `application.bot_data` under one key; handlers reach it as `context.svc` (`context.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.rules.leaving import Keeping
from bot.runtime.clock import Clock, utcnow
from bot.runtime.config import Settings
from bot.services import run
from bot.services.catalog import Catalog
from bot.services.chats import Chats
from bot.services.delivery import Deliverer
from bot.services.discovery import DiscoveryGate
from bot.services.follows import Follows
from bot.services.leaving import Returns
from bot.services.loops import Loops
from bot.services.polling import Poller
from bot.services.search import Searches
from bot.services.subscribing import Subscriptions
from bot.services.tuning import Tuner
from bot.telegram.guard import Guard
from bot.telegram.offers import Offers
from bot.telegram.spec import CommandTable

T = TypeVar("T")
KEY = "feedwatch"


@dataclass
class Shared:
    settings: Settings
    engine: Engine
    poller: Poller
    deliverer: Deliverer | None = None
    guard: Guard = field(default_factory=lambda: Guard(commands_per_minute=30))
    clock: Clock = utcnow
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # messages were queued
    loops: Loops | None = None
    jobs: set[asyncio.Task[None]] = field(default_factory=set)  # fetches for chats in progress
    offers: Offers = field(default_factory=Offers)  # feeds offered under buttons
    searches: DiscoveryGate = field(default_factory=DiscoveryGate)  # pasted links being read
    commands: CommandTable = field(default_factory=lambda: CommandTable(()))  # set by the app
    webhook: Any = None  # the webhook server in `run --webhook` (telegram/webhook.py)

    @property
    def catalog(self) -> Catalog:
        return Catalog(self.poller)

    def start_loops(self) -> None:
        """Start polling feeds and delivering the outbox (`bot/services/loops.py`)."""
        assert self.deliverer is not None
        self.loops = Loops(self.poller, self.deliverer, clock=self.clock, wake=self.wake)
        self.loops.start()

    async def stop(self) -> None:
        """Stop the loops (the message in flight finishes), the chats' background work (an
        import stops between feeds; those added so far stay) and the poller's clients."""
        if self.deliverer is not None:
            self.deliverer.stopping = True
        for job in list(self.jobs):
            job.cancel()
        if self.loops is not None:
            await self.loops.stop()
        await self.poller.enricher.stop()  # pages still coming: their posts keep the excerpt
        await self.poller.fetcher.aclose()

    @property
    def chats(self) -> Chats:
        return Chats(self.engine)

    @property
    def tuner(self) -> Tuner:
        return Tuner(self.engine, clock=self.clock)

    @property
    def follows(self) -> Follows:
        most = self.settings.max_follows_per_chat
        return Follows(self.engine, most=most, clock=self.clock)

    @property
    def subscriptions(self) -> Subscriptions:
        settings = self.settings
        keeping = Keeping(settings.unsubscribe_undo_minutes, settings.left_settings_days)
        return Subscriptions(
            self.engine,
            max_per_chat=settings.max_subscriptions_per_chat,
            clock=self.clock,
            keeping=keeping,
        )

    @property
    def returns(self) -> Returns:
        """Undo after leaving a feed (`services/leaving.py`)."""
        settings = self.settings
        keeping = Keeping(settings.unsubscribe_undo_minutes, settings.left_settings_days)
        limit = settings.max_subscriptions_per_chat
        return Returns(self.engine, max_per_chat=limit, keeping=keeping, clock=self.clock)

    @property
    def post_search(self) -> Searches:
        return Searches(self.engine, clock=self.clock)

    async def read(self, work: Callable[[Session], T]) -> T:
        """What a handler shows, read in a worker thread. Handlers change state only through
        the services (`chats`, `subscriptions`, `catalog`)."""
        return await run.read(self.engine, work)
