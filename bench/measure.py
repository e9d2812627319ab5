"""Timing helpers: wall time, CPU time of the whole process (all threads) and peak RSS."""

from __future__ import annotations

import json
import resource
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


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


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def emit(payload: dict[str, object]) -> None:
    """Children report one JSON line on stdout."""
    sys.stdout.write(json.dumps(payload) + "\n")
