"""The one way the async layers reach the database: a piece of work in a worker thread, in a
transaction (`write`) or a plain session (`read`), so the event loop never waits on SQLite's
lock or a PostgreSQL round trip."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Engine
from sqlmodel import Session

from bot.db.engine import transaction

T = TypeVar("T")


async def write(engine: Engine, work: Callable[[Session], T]) -> T:
    """`work` in one transaction, committed when it returns (rolled back if it raises)."""

    def run() -> T:
        with transaction(engine) as session:
            return work(session)

    return await asyncio.to_thread(run)


async def read(engine: Engine, work: Callable[[Session], T]) -> T:
    """`work` in a session that writes nothing (its values outlive it)."""

    def run() -> T:
        with Session(engine, expire_on_commit=False) as session:
            return work(session)

    return await asyncio.to_thread(run)
