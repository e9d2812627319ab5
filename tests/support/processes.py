"""The bot as a real process (`python -m bot …`) for system and CLI tests: its environment,
starting it with a log file, free ports, and the CLI run to completion."""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings

ROOT = Path(__file__).resolve().parents[2]


async def start_bot(
    env: dict[str, str], log: Path, *command: str, nofile: int | None = None
) -> asyncio.subprocess.Process:
    """`nofile`: the process's descriptor limit (a test reaches it with few sockets)."""
    handle = log.open("ab")

    def limit() -> None:
        if nofile is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *(command or ("run",)),
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        stdout=handle,
        stderr=handle,
        cwd=str(log.parent),
        preexec_fn=limit if nofile is not None else None,
    )


def bot_env(db_url: str, api: FakeBotApi, **extra: str) -> dict[str, str]:
    return {
        "DATABASE_URL": db_url,
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": api.base_url,
        "POLL_INTERVAL_SECONDS": "1",
        "TELEGRAM_RATE_PER_SECOND": "1000",
        **extra,
    }


async def _prepare_fanout(engine: Engine, db_url: str, feeds: FeedServer, chats: int) -> None:
    settings = make_settings(db_url)
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    async with make_fetcher(settings) as fetcher:
        await Catalog(Poller(engine, fetcher, settings)).add_feed(url, slug="lumen", trusted=True)
    with transaction(engine) as session:
        feed = session.exec(select(Feed).where(Feed.slug == "lumen")).one()
        assert feed.id is not None
        feed.next_check_at = datetime.now(UTC)  # due at once for the bot process
        session.add(feed)
        for chat_id in range(1, chats + 1):
            store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
            store.subscribe(session, chat_id=chat_id, feed_id=feed.id)
    feeds.serve("/feed/", blog.rss((blog.LISBON, *blog.BEFORE_POSTS)))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def run_cli(
    *args: str, env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
