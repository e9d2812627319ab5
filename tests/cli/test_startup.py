"""Start only what a command needs (issue 48): `--help` loads neither the database layer nor
PTB nor the HTTP client, `health` reads its row with SQLAlchemy's core alone, a dry-run poll
loads no PTB, and a dry-run poll of a quiet feed (a 304) loads nothing of the changed path:
no Alembic, no parser, no plan, no renderer, no PostgreSQL dialect on SQLite, and no SQLModel,
ORM or models (its feeds are read on SQLAlchemy's core, `db/core_tables.py`). Each check
starts the real CLI in a fresh interpreter and lists the modules it imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.startup import QUIET_FEED
from tests.support.fakes.feed_server import FeedServer

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "telegram", "aiohttp", "feedparser", "bot.db")
PROBE = """
import json, sys
from bot.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def imported(args: list[str], env: dict[str, str]) -> tuple[int, set[str], str]:
    """The exit status, the top modules imported and stdout of `python -m bot ARGS`."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=os.getcwd(),
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        check=False,
        timeout=120,
    )
    modules = set(json.loads(result.stderr.strip().splitlines()[-1]))
    return int(result.returncode), modules, result.stdout


def loaded(modules: set[str], *names: str) -> list[str]:
    return [n for n in names if n in modules or any(m.startswith(n + ".") for m in modules)]


def test_help_imports_no_database_layer_ptb_or_http_client(env: dict[str, str]) -> None:
    code, modules, out = imported(["--help"], env)
    assert code == 0 and "feedwatch" in out and "poll" in out
    assert loaded(modules, *HEAVY, "pydantic", "bot.services", "bot.telegram") == []


def test_health_reads_its_row_with_sqlalchemy_core_alone(env: dict[str, str]) -> None:
    code, modules, _ = imported(["health"], env)
    assert code == 1  # a fresh database: no poll cycle has finished yet
    assert "sqlalchemy" in modules
    assert loaded(modules, "sqlmodel", "alembic", "telegram", "aiohttp", "bot.db") == []
    assert loaded(modules, "bot.services", "bot.telegram", "feedparser") == []


@pytest.mark.parametrize("args", [["feed", "list"], ["poll", "--once", "--dry-run"]])
def test_feed_list_and_a_dry_run_poll_import_no_ptb(args: list[str], env: dict[str, str]) -> None:
    assert (
        subprocess.run(
            [sys.executable, "-m", "bot", "migrate"],
            env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    code, modules, _ = imported(args, env)
    assert code == 0
    assert loaded(modules, "telegram", "bot.telegram") == []


# What a changed body needs and a 304 does not (each was loaded by the quiet dry run before).
CHANGED_PATH = (
    "alembic",
    "telegram",
    "feedparser",
    "babel",
    "prometheus_client",
    "sqlalchemy.dialects.postgresql",
    "bot.core.feeds.parse",
    "bot.core.feeds.changed",
    "bot.core.polls.plan",
    "bot.core.detection",
    "bot.core.messages.render",
    "bot.db.store.items",
    "bot.db.store.search",
    "bot.db.store.outbox",
    "bot.services.poll_result",
    "bot.services.enrich",
    "bot.services.watch",
    "bot.services.telegraph",
    "bot.cli.preview",
    # The models and the ORM: a quiet poll reads and decides on the Core table (issue 48).
    "sqlmodel",
    "sqlalchemy.orm",
    "bot.db.tables",
    "bot.db.chat_tables",
    "bot.db.store.feeds",
)


def test_a_dry_run_poll_of_a_quiet_feed_loads_nothing_of_the_changed_path(
    env: dict[str, str], feeds: FeedServer
) -> None:
    url = feeds.serve("/quiet.xml", QUIET_FEED)
    env = {**env, "ALLOW_PRIVATE_FEED_URLS": "true"}
    added = subprocess.run(
        [sys.executable, "-m", "bot", "feed", "add", url, "--name", "quiet"],
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    code, modules, out = imported(["poll", "--once", "--dry-run"], env)
    assert code == 0
    assert "1 feeds, 1 not modified" in out  # the feed answered 304: a quiet poll
    assert loaded(modules, *CHANGED_PATH) == []
    assert loaded(modules, "aiohttp", "bot.db.store.feedstate") == [  # it did poll
        "aiohttp",
        "bot.db.store.feedstate",
    ]
