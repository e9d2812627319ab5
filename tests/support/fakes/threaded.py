"""Run an aiohttp app on 127.0.0.1 in a background thread with its own event loop.

A thread keeps the servers alive while a test calls the CLI in-process (which runs its own event
loop) or waits on a subprocess, and lets sync and async tests share the same fakes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from aiohttp import web

T = TypeVar("T")


class ThreadedApp:
    def __init__(self, app: web.Application, port: int = 0) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.port = port  # 0: any free port
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> ThreadedApp:
        self._thread.start()
        self.call(self._start())
        return self

    async def _start(self) -> None:
        self._runner = web.AppRunner(self.app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 10) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def soon(self, fn: Callable[[], Any]) -> None:
        self.loop.call_soon_threadsafe(fn)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self._runner is not None:
            with contextlib.suppress(Exception):
                self.call(self._runner.cleanup(), timeout=5)
        with contextlib.suppress(Exception):
            self.call(_cancel_pending(), timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()


async def _cancel_pending() -> None:
    """Cancel handlers still waiting (long polls, hanging feeds) so none is left dangling."""
    current = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
