"""The README's "Try it without Telegram" (issue 43, item 8): the console starts the fake Bot
API on the port the README names, prints the command that runs the bot against it, and what is
typed reaches the bot as a private chat's message."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.fakes.bot_api import TOKEN

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_console_is_a_private_chat_with_the_bot() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "python -m tests.support.console" in readme
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in readme and "127.0.0.1:8081/bot" in readme
    port = _free_port()
    console = subprocess.Popen(
        [sys.executable, "-m", "tests.support.console", "--port", str(port)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert console.stdout is not None and console.stdin is not None
        printed = console.stdout.readline() + console.stdout.readline() + console.stdout.readline()
        base = f"http://127.0.0.1:{port}/bot"
        assert f"TELEGRAM_API_BASE_URL={base} ALLOW_PRIVATE_FEED_URLS=true ./dev run" in printed
        assert httpx.post(f"{base}{TOKEN}/getMe").json()["ok"]
        console.stdin.write("/start\n")
        console.stdin.flush()
        deadline = time.monotonic() + 10
        updates: list[dict[str, object]] = []
        while not updates and time.monotonic() < deadline:
            updates = httpx.post(f"{base}{TOKEN}/getUpdates", json={"timeout": 0}).json()["result"]
            time.sleep(0.1)
        (update,) = updates
        message = update["message"]
        assert isinstance(message, dict) and message["text"] == "/start"
        assert message["chat"]["type"] == "private"
    finally:
        console.terminate()
        console.wait(timeout=10)
