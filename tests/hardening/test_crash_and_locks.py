"""Crash safety (a loop of kill -9 during a fan-out), SQLite lock contention, and secrets."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import Session

from bot.db import store
from bot.db.engine import make_engine
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.processes import _prepare_fanout, bot_env, start_bot

ROOT = Path(__file__).resolve().parents[2]
NEW_POSTS = (blog.LISBON,)


def sends(api: FakeBotApi) -> Counter[int]:
    with api.lock:
        return Counter(s.chat_id for s in api.sent if blog.LISBON.title in s.text)


@pytest.mark.slow
async def test_twenty_kills_during_a_fanout_lose_nothing(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    engine = make_engine(sqlite_url)
    chats, kills = 200, 20
    await _prepare_fanout(engine, sqlite_url, feeds, chats)
    bot_api.latency = 0.05
    env = bot_env(sqlite_url, bot_api)
    log = tmp_path / "bot.log"
    rng = random.Random(20261130)
    done_kills = 0
    for _ in range(kills):
        before = sum(sends(bot_api).values())
        process = await start_bot(env, log)
        # kill at a random moment once this run is sending (mid-request or between requests)
        await bot_api.wait_for(lambda n=before: sum(sends(bot_api).values()) > n, timeout=30)
        await asyncio.sleep(rng.uniform(0.0, 0.3))
        process.kill()
        await process.wait()
        done_kills += 1
    assert len(sends(bot_api)) < chats, "the fan-out finished before the last kill"
    final = await start_bot(env, log)
    try:
        await bot_api.wait_for(lambda: len(sends(bot_api)) == chats, timeout=120)
    finally:
        final.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(final.wait(), timeout=15)
    assert code == 0
    counts = sends(bot_api)
    duplicates = sum(n - 1 for n in counts.values())
    assert set(counts) == set(range(1, chats + 1))
    assert duplicates <= done_kills, f"{duplicates} duplicates after {done_kills} kills"
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
    with Session(engine) as session:
        assert store.pending_count(session) == 0
    engine.dispose()


async def test_cli_use_while_the_bot_works_waits_for_the_lock_instead_of_failing(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    engine = make_engine(sqlite_url)
    await _prepare_fanout(engine, sqlite_url, feeds, 150)
    engine.dispose()
    bot_api.latency = 0.002
    env = bot_env(sqlite_url, bot_api)
    process = await start_bot(env, tmp_path / "bot.log")
    try:
        await bot_api.wait_for(lambda: len(sends(bot_api)) >= 10, timeout=60)
        urls = [
            feeds.serve(f"/extra{n}/", blog.rss((blog.PUNE,), title=f"Extra {n}")) for n in range(4)
        ]
        commands = [["feed", "add", url, "--name", f"extra{n}"] for n, url in enumerate(urls)]
        commands += [["feed", "list"]] * 4 + [["feed", "remove", "extra0"]]
        results = await asyncio.gather(*(_cli(sqlite_url, tmp_path, *c) for c in commands[:8]))
        results.append(await _cli(sqlite_url, tmp_path, *commands[8]))
        for code, err in results:
            assert code == 0, err
            assert "locked" not in err
        await bot_api.wait_for(lambda: len(sends(bot_api)) == 150, timeout=60)
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), timeout=15)


async def _cli(db_url: str, cwd: Path, *args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        env={**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_URL": db_url},
        cwd=str(cwd),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _, err = await proc.communicate()
    return proc.returncode or 0, err.decode()


async def test_the_token_appears_nowhere(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    """Not in logs at DEBUG, not in replies after an error, not in `feed list`, not in the database."""
    env = bot_env(sqlite_url, bot_api, LOG_LEVEL="DEBUG")
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    add = await _cli(sqlite_url, tmp_path, "feed", "add", url)
    assert add[0] == 0
    log = tmp_path / "bot.log"
    process = await start_bot(env, log)
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        bot_api.push_command("/subscribe", chat_id=7)
        await bot_api.wait_replies(7, 1)
        bot_api.fail("getChatMember", code=500, description="boom", times=1)
        bot_api.push_command("/subscribe lumen-blog", chat_id=-5, user_id=8)  # admin check fails
        (apology,) = await bot_api.wait_replies(-5, 1)
        assert apology.startswith("Sorry, something went wrong")
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), timeout=15)
    secret_part = bot_api.token.split(":")[1]
    log_text = log.read_text()
    assert "DEBUG" in log_text and secret_part not in log_text
    assert all(secret_part not in s.text for s in bot_api.sent)
    listing = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "feed",
        "list",
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        cwd=str(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await listing.communicate()
    assert secret_part not in (out + err).decode()
    engine = make_engine(sqlite_url)
    rows = 0
    with engine.connect() as conn:
        for table in ("feed", "item", "chat", "subscription", "delivery", "state"):
            for row in conn.execute(text(f"SELECT * FROM {table}")):
                assert secret_part not in repr(tuple(row)), f"token stored in {table}"
                rows += 1
    engine.dispose()
    assert rows > 10  # the database really holds the feed, items, chats and state


def test_sqlite_reads_do_not_queue_behind_a_writer(sqlite_url: str) -> None:
    """Reads begin deferred (WAL lets them run beside a writer); only writes take the lock at
    BEGIN. Every read used to open BEGIN IMMEDIATE and wait for the writer (2.75 s measured)."""
    import sqlite3
    import time
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy.engine import make_url

    from bot.db.engine import transaction

    engine = make_engine(sqlite_url)
    blocker = sqlite3.connect(str(make_url(sqlite_url).database), isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    blocker.execute("INSERT INTO state (key, value, updated_at) VALUES ('x', 'y', '2026-01-01')")

    def read() -> float:
        start = time.monotonic()
        with Session(engine) as session:
            store.list_feeds(session)
            store.pending_count(session)
        return time.monotonic() - start

    def write() -> float:
        start = time.monotonic()
        with transaction(engine) as session:
            store.set_state(session, key="z", value="w", now=datetime.now(UTC))
        return time.monotonic() - start

    with ThreadPoolExecutor(2) as pool:
        reading = pool.submit(read)
        writing = pool.submit(write)
        assert reading.result(timeout=5) < 0.5  # answered while the writer holds the lock
        time.sleep(0.3)
        assert not writing.done()  # a write does wait for the lock …
        blocker.rollback()
        assert writing.result(timeout=5) >= 0.3  # … and goes through once it is free
    blocker.close()
    engine.dispose()
