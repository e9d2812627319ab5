"""The bot as a real process: graceful SIGTERM, no token in logs, and kill -9 crash safety."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from bot.db import store
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.processes import _prepare_fanout, bot_env, start_bot

ROOT = Path(__file__).resolve().parents[2]


async def test_sigterm_stops_cleanly_and_the_token_never_reaches_the_log(
    db_url: str, bot_api: FakeBotApi, tmp_path: Path
) -> None:
    log = tmp_path / "bot.log"
    process = await start_bot(bot_env(db_url, bot_api, LOG_LEVEL="DEBUG"), log)
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        bot_api.push_command("/start", chat_id=5)
        await bot_api.wait_replies(5, 1, timeout=15)
        bot_api.fail("getUpdates", code=500, description="Internal Server Error", times=1)
        await asyncio.sleep(0.5)
    finally:
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    assert code == 0
    assert time.monotonic() - started < 10
    text = log.read_text()
    assert "DEBUG" in text and "getUpdates" in text  # debug logging really was on
    assert bot_api.token not in text
    assert bot_api.token.split(":")[1] not in text


def _lisbon_sends(api: FakeBotApi) -> list[int]:
    with api.lock:
        return [s.chat_id for s in api.sent if blog.LISBON.title in s.text]


@pytest.mark.slow
async def test_kill_9_during_a_fanout_loses_nothing(
    engine: Engine, db_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    chats = 200
    await _prepare_fanout(engine, db_url, feeds, chats)
    bot_api.latency = 0.005
    # PostgreSQL has no process lock: the killed process's chat leases must expire first.
    env = bot_env(db_url, bot_api, LEASE_SECONDS="3")
    log = tmp_path / "bot.log"
    first = await start_bot(env, log)
    try:
        await bot_api.wait_for(lambda: len(_lisbon_sends(bot_api)) >= 60, timeout=60)
    finally:
        first.kill()
        await first.wait()
    killed_at = len(_lisbon_sends(bot_api))
    assert killed_at < chats, "the fan-out finished before the kill; the test proves nothing"

    second = await start_bot(env, log)
    try:
        await bot_api.wait_for(
            lambda: set(_lisbon_sends(bot_api)) == set(range(1, chats + 1)), timeout=90
        )
    finally:
        second.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(second.wait(), timeout=15)
    assert code == 0
    sends = _lisbon_sends(bot_api)
    assert len(sends) - chats <= 1, f"{len(sends) - chats} duplicates after one kill"
    with Session(engine) as session:
        assert store.pending_count(session) == 0
    if db_url.startswith("sqlite"):
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"


def test_start_up_collects_its_garbage_then_hides_the_rest_from_the_collector() -> None:
    """`run_bot` calls `settle_heap` once started: garbage is freed first, never frozen."""
    import gc
    import weakref

    from bot.services.wiring import settle_heap

    class Node:
        peer: object = None

    cycle = Node()
    cycle.peer = cycle  # only a collection frees a reference cycle
    freed = weakref.ref(cycle)
    del cycle
    try:
        settle_heap()
        assert freed() is None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
