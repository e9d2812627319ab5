"""CPU-bound parsing runs in its own small pool, never in asyncio's default one.

The default executor (6 threads on 2 cores) serves every database call of every chat. A pasted
link whose 10 MB page took feedparser 13 s held those threads, and another chat's `/feeds`
waited two minutes for a database call. Feeds and pages are parsed here instead, at most
`PARSE_THREADS` at a time; the database's threads stay free.

A changed feed's whole poll work runs here too: its read, plan, render and write (and the
quick parse's read of the rows it knows). In the default executor, ten polls at a time ran
in up to six threads on two cores and spent about a tenth of the change cycle's CPU handing
the GIL between them (the bench's 500-feed change cycle: 1.33-1.47 s of CPU in the default
executor, 1.25-1.29 s here, wall time 17% shorter). One thread per core is all CPU-bound work
can use.

Rule checks a person asks for (the filter test) run in one thread of their own: never on the
event loop, never in the pool feeds need, never in the database's threads.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
PARSE_THREADS = 2
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_rules: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(PARSE_THREADS, thread_name_prefix="feedwatch-parse")
        return _pool


async def parse_off_loop(work: Callable[..., T], *args: object) -> T:
    """`work(*args)` in the parsing pool (feedparser, the page's link finder, a changed
    feed's poll work)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor(), functools.partial(work, *args))


async def check_off_loop(work: Callable[..., T], *args: object) -> T:
    """`work(*args)` in the rule checks' own thread (the filter test)."""
    global _rules
    with _lock:
        if _rules is None:
            _rules = ThreadPoolExecutor(1, thread_name_prefix="feedwatch-rules")
        pool = _rules
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool, functools.partial(work, *args))
