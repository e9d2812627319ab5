"""A Telegram outage is a few log lines, and SIGTERM still stops `run` in time (issue 11,
item 17). getUpdates answers 502 (as Telegram's front end does in an outage); PTB retries with
a growing pause (1 s, 1.5 s, 2.25 s … up to 30 s) that its own shutdown used to wait out."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.processes import bot_env, start_bot


@pytest.mark.slow
async def test_an_outage_is_one_line_per_step_and_sigterm_still_stops_within_10_s(
    sqlite_url: str, bot_api: FakeBotApi, tmp_path: Path
) -> None:
    log = tmp_path / "bot.log"
    process = await start_bot(bot_env(sqlite_url, bot_api), log)
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        bot_api.fail("getUpdates", code=502, description="Bad Gateway", times=4)
        await bot_api.wait_for(lambda: "Telegram answers again" in log.read_text(), timeout=40)
        text = log.read_text()
        assert text.count("Telegram is unreachable") == 1
        assert text.count("Telegram still unreachable") == 3
        assert "Traceback" not in text
        # A long outage: after the 7th failed poll PTB pauses about 11 s before the next one.
        bot_api.fail("getUpdates", code=502, description="Bad Gateway", times=10**6)
        await bot_api.wait_for(
            lambda: log.read_text().count("Telegram still unreachable") >= 9, timeout=60
        )
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
        assert time.monotonic() - started < 10
        assert code == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert "Traceback" not in log.read_text()
