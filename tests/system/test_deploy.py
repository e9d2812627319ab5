"""Deployment: the image's install and entry command, health, one SQLite poller, webhook mode,
metrics and JSON logs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine

from bot import __version__
from bot.cli.health import check_health
from bot.db.runlock import acquire_poller_lock
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.databases import IN_CI
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.processes import _listening, bot_env, free_port, start_bot
from tests.support.settings import make_settings

ROOT = Path(__file__).resolve().parents[2]


def cli(
    *args: str, env: dict[str, str], cwd: Path | None = None, python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-m", "bot", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        cwd=cwd,
        timeout=120,
        check=False,
    )


async def test_health_reports_database_and_poll_freshness(
    engine: Engine, db_url: str, feeds: FeedServer
) -> None:
    settings = make_settings(db_url, poll_interval_seconds=60)
    ok, line = check_health(settings)
    assert (ok, line) == (False, "unhealthy: no poll cycle has finished yet")
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings)
        await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
        await poller.poll_due(all_feeds=True)
    ok, line = check_health(settings)
    assert ok and line.startswith("healthy: last poll cycle finished")
    ok, line = check_health(settings, now=datetime.now(UTC) + timedelta(seconds=181))
    assert not ok and line.startswith("unhealthy: last poll cycle finished 18")
    env = {"DATABASE_URL": db_url, "POLL_INTERVAL_SECONDS": "60"}
    result = cli("health", env=env)
    assert result.returncode == 0 and result.stdout.startswith("healthy")


def test_health_fails_in_one_line_when_the_database_is_down(tmp_path: Path) -> None:
    result = cli(
        "health",
        env={"DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:1/nothing"},
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("unhealthy: database error:") and result.stderr.count("\n") == 1


def test_a_second_poller_on_one_sqlite_database_is_refused(
    sqlite_url: str, bot_api: FakeBotApi, tmp_path: Path
) -> None:
    lock = acquire_poller_lock(sqlite_url)
    try:
        env = bot_env(sqlite_url, bot_api)
        for command in (["worker"], ["run"], ["poll", "--once"]):
            result = cli(*command, env=env, cwd=tmp_path)
            assert result.returncode == 1, result.stderr
            assert "already polling" in result.stderr and "use PostgreSQL" in result.stderr
            assert result.stderr.count("\n") == 1
        assert cli("poll", "--once", "--dry-run", env=env, cwd=tmp_path).returncode == 0
    finally:
        lock.release()


async def test_webhook_mode_checks_the_secret_on_every_request(
    sqlite_url: str, bot_api: FakeBotApi, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram-hook"
    env = bot_env(
        sqlite_url,
        bot_api,
        WEBHOOK_URL=url,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET="s3cret-value-0123456",
        LOG_LEVEL="DEBUG",  # PTB logs every call's parameters at DEBUG, setWebhook's too
    )
    process = await start_bot(env, tmp_path / "bot.log", "run", "--webhook")
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setWebhook")), timeout=30)
        (call,) = bot_api.calls_to("setWebhook")
        assert call.params["url"] == url and call.params["secret_token"] == "s3cret-value-0123456"
        update = {
            "update_id": 1,
            "message": {
                "message_id": 1,
                "date": 0,
                "text": "/start",
                "chat": {"id": 9, "type": "private", "first_name": "Ada"},
                "from": {"id": 9, "is_bot": False, "first_name": "Ada"},
                "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
            },
        }
        async with httpx.AsyncClient() as client:
            await bot_api.wait_for(lambda: _listening(port), timeout=15)
            wrong = await client.post(
                url, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "nope"}
            )
            assert wrong.status_code == 403
            right = await client.post(
                url,
                json=update,
                headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret-value-0123456"},
            )
            assert right.status_code == 200
        replies = await bot_api.wait_replies(9, 1)
        assert len(replies) == 1 and "/help for every command" in replies[0]
        assert not bot_api.calls_to("getUpdates")
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    assert code == 0
    log = (tmp_path / "bot.log").read_text()
    assert "setWebhook" in log  # the DEBUG lines were written …
    assert "s3cret-value-0123456" not in log and bot_api.token not in log  # … without the secrets


def test_webhook_without_its_settings_is_one_line(
    sqlite_url: str, bot_api: FakeBotApi, tmp_path: Path
) -> None:
    result = cli("run", "--webhook", env=bot_env(sqlite_url, bot_api), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == "error: --webhook needs WEBHOOK_URL and WEBHOOK_SECRET\n"


async def test_worker_serves_metrics_and_polls_without_telegram_updates(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS), honour_validators=False)
    add_env = {"DATABASE_URL": sqlite_url, "POLL_INTERVAL_SECONDS": "1"}
    assert cli("feed", "add", url, "--name", "lumen", env=add_env, cwd=tmp_path).returncode == 0
    port = free_port()
    env = bot_env(sqlite_url, bot_api, METRICS_PORT=str(port), POLL_INTERVAL_SECONDS="1")
    process = await start_bot(env, tmp_path / "bot.log", "worker")
    try:
        async with httpx.AsyncClient() as client:

            async def scrape() -> str:
                try:
                    return (await client.get(f"http://127.0.0.1:{port}/metrics")).text
                except httpx.HTTPError:
                    return ""

            text = ""
            for _ in range(300):
                text = await scrape()
                if 'feedwatch_polls_total{outcome="unchanged"}' in text:
                    break
                await asyncio.sleep(0.05)
        assert 'feedwatch_polls_total{outcome="unchanged"}' in text
        assert "feedwatch_pending_deliveries 0.0" in text
        assert not bot_api.calls_to("getUpdates")  # a worker takes no Telegram updates
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    assert code == 0


def test_json_logs_are_one_object_per_line(
    sqlite_url: str, feeds: FeedServer, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": sqlite_url, "LOG_FORMAT": "json"}
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert cli("feed", "add", url, env=env, cwd=tmp_path).returncode == 0
    feeds.serve("/feed/", b"<html></html>", content_type="text/html")
    result = cli("poll", "--once", "--dry-run", env=env, cwd=tmp_path)
    records = [json.loads(line) for line in result.stderr.splitlines() if line.strip()]
    messages = [r["message"] for r in records]
    assert any(m.startswith("feed lumen-blog: not a feed") for m in messages)
    assert any(m.startswith("poll cycle: 1 feeds") for m in messages)
    assert all({"time", "level", "logger", "message"} <= r.keys() for r in records)


@pytest.mark.slow
@pytest.mark.skipif(IN_CI, reason="CI's image step builds this install in the image and runs it")
def test_the_image_install_runs_its_entry_commands(tmp_path: Path) -> None:
    """What the Dockerfile does, without Docker: build the wheel, install it into a fresh venv
    with the pinned versions, and run the image's entry command from outside the checkout.
    (Under CI, `./dev image` does exactly this inside the image and smoke-tests the same
    commands, `tests/system/image_smoke.py`; the test is for machines without buildah.)"""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    (wheel,) = wheels.glob("feedwatch-*.whl")
    subprocess.run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-c",
            str(ROOT / "constraints.txt"),
            str(wheel),
        ],
        check=True,
        timeout=600,
    )
    python = str(venv / "bin" / "python")
    workdir = tmp_path / "data"
    workdir.mkdir()
    clean_env = {"PYTHONPATH": "", "DATABASE_URL": f"sqlite:///{workdir / 'feedwatch.db'}"}
    help_run = cli("--help", env=clean_env, cwd=workdir, python=python)
    assert help_run.returncode == 0 and "usage: feedwatch" in help_run.stdout
    script = subprocess.run(
        [str(venv / "bin" / "feedwatch"), "--version"],
        capture_output=True,
        text=True,
        cwd=workdir,
        check=False,
    )
    assert script.stdout.strip() == f"feedwatch {__version__}"
    migrate = cli("migrate", env=clean_env, cwd=workdir, python=python)
    assert migrate.returncode == 0, migrate.stderr
    health = cli("health", env=clean_env, cwd=workdir, python=python)
    assert health.returncode == 1 and health.stderr == "unhealthy: no poll cycle has finished yet\n"
    catalogs = subprocess.run(  # the wheel carries the translations
        [
            python,
            "-c",
            "from bot.runtime.i18n import translator as t; print(t('es').gettext('Other'))",
        ],
        capture_output=True,
        text=True,
        cwd=workdir,
        check=True,
    )
    assert catalogs.stdout.strip() == "Otros"
    where = subprocess.run(
        [python, "-c", "import bot, feedwatch_migrations; print(bot.__file__)"],
        capture_output=True,
        text=True,
        cwd=workdir,
        check=True,
    )
    assert str(venv) in where.stdout  # the installed package ran, not the checkout
