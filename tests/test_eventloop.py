"""`bot/runtime/eventloop.py`: every command runs on uvloop unless `EVENT_LOOP=asyncio` says otherwise."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
import uvloop

from bot.runtime import eventloop
from bot.runtime.config import load_settings


async def _kind() -> tuple[str, str]:
    return eventloop.running(), type(asyncio.get_running_loop()).__module__


def test_uvloop_by_default_and_asyncio_on_request() -> None:
    assert load_settings(_env_file=None).event_loop == "uvloop"
    assert eventloop.loop_factory() is uvloop.new_event_loop
    assert eventloop.run(_kind())[0] == "uvloop"
    assert eventloop.run(_kind())[1].startswith("uvloop")
    assert eventloop.loop_factory("asyncio") is None
    assert eventloop.run(_kind(), "asyncio") == ("asyncio", "asyncio.unix_events")


def test_the_setting_reaches_the_loop() -> None:
    """`EVENT_LOOP=asyncio` in the environment: the loop a command gets is asyncio's."""
    code = (
        "from bot.runtime import eventloop; from bot.runtime.config import load_settings;"
        "import asyncio\n"
        "async def kind(): return eventloop.running()\n"
        "print(eventloop.run(kind(), load_settings(_env_file=None).event_loop))"
    )
    for value, expected in (("asyncio", "asyncio"), ("uvloop", "uvloop")):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"EVENT_LOOP": value, "PATH": "/usr/bin:/bin"},
        )
        assert done.stdout.strip() == expected


def test_a_missing_uvloop_falls_back_to_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import fails as if not installed
    assert eventloop.loop_factory("uvloop") is None
    assert eventloop.run(_kind()) == ("asyncio", "asyncio.unix_events")
