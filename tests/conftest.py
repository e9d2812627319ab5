"""Shared fixtures: real databases (SQLite always, PostgreSQL when TEST_DATABASE_URL is set),
a local feed server and the fake Bot API, all over loopback."""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from bot.db.engine import make_engine
from bot.db.migrate import upgrade
from tests.support.databases import IN_CI, PG_URL, postgres_database
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer

# Tests must never pick up a developer's .env or environment.
for _name in list(os.environ):
    if _name.startswith(("TELEGRAM_", "DATABASE_URL", "POLL_", "ALLOW_PRIVATE", "BOT_ADMIN")):
        del os.environ[_name]


def _backends() -> list[str]:
    return ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file per test run; each test gets a copy (an upgrade per test cost
    0.5-1 s, about a third of the suite's time)."""
    path = tmp_path_factory.mktemp("template") / "feedwatch.db"
    upgrade(f"sqlite:///{path}")
    with sqlite3.connect(path) as connection:  # everything in the main file, none in the WAL
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def _sqlite_copy(template: Path, tmp_path: Path) -> str:
    target = tmp_path / "feedwatch.db"
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """One migrated PostgreSQL database per run, cloned for each test (`CREATE DATABASE …
    TEMPLATE`)."""
    import psycopg

    admin = make_url(PG_URL)
    name = f"fw_template_{uuid.uuid4().hex[:8]}"
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        upgrade(admin.set(database=name).render_as_string(hide_password=False))
        yield name
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=_backends())
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, migrated database: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield _sqlite_copy(request.getfixturevalue("sqlite_template"), tmp_path)
        return
    if not PG_URL:
        if IN_CI:
            pytest.fail("CI=true but TEST_DATABASE_URL is not set: PostgreSQL tests must run")
        pytest.skip("TEST_DATABASE_URL not set")
    yield from postgres_database(request.getfixturevalue("postgres_template"))


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    return _sqlite_copy(sqlite_template, tmp_path)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def feeds() -> Iterator[FeedServer]:
    server = FeedServer().start()
    yield server
    server.stop()


@pytest.fixture
def bot_api() -> Iterator[FakeBotApi]:
    api = FakeBotApi().start()
    yield api
    api.stop()


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    values = {"DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "LOG_LEVEL": "WARNING"}
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)  # no stray .env, and ./data stays inside tmp
    return values
