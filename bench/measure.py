"""Timing helpers: wall time, CPU time of the whole process (all threads) and peak RSS."""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass
class Span:
    wall: float = 0.0
    cpu: float = 0.0


@contextmanager
def span() -> Iterator[Span]:
    result = Span()
    wall, cpu = time.perf_counter(), time.process_time()
    yield result
    result.wall = time.perf_counter() - wall
    result.cpu = time.process_time() - cpu


def on_bots_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run a measured coroutine on the loop `python -m bot` runs on (uvloop unless
    `EVENT_LOOP=asyncio`), so the figures are the bot's."""
    from bot.runtime import eventloop
    from bot.runtime.config import load_settings

    return eventloop.run(main, load_settings(_env_file=None).event_loop)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def emit(payload: dict[str, object]) -> None:
    """Children report one JSON line on stdout."""
    sys.stdout.write(json.dumps(payload) + "\n")
