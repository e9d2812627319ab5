"""What handlers and jobs share, kept in `application.bot_data` under one typed key."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session
from telegram.ext import CallbackContext

from bot.config import Settings
from bot.db.engine import transaction
from bot.delivery import Deliverer
from bot.pipeline import Poller
from bot.telegram.guard import Guard

T = TypeVar("T")
KEY = "feedwatch"


@dataclass
class Services:
    settings: Settings
    engine: Engine
    poller: Poller
    deliverer: Deliverer | None = None
    guard: Guard = field(default_factory=lambda: Guard(commands_per_minute=30))
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    jobs: set[asyncio.Task[None]] = field(default_factory=set)  # operator imports in progress

    async def write(self, work: Callable[[Session], T]) -> T:
        """Run `work` in one transaction in a worker thread (SQLite may wait for a lock)."""

        def run() -> T:
            with transaction(self.engine) as session:
                return work(session)

        return await asyncio.to_thread(run)

    async def read(self, work: Callable[[Session], T]) -> T:
        def run() -> T:
            with Session(self.engine, expire_on_commit=False) as session:
                return work(session)

        return await asyncio.to_thread(run)


def services(context: CallbackContext[Any, Any, Any, Any]) -> Services:
    found = context.application.bot_data[KEY]
    assert isinstance(found, Services)
    return found
