"""The event loop every command runs on: uvloop by default, asyncio's own on request.

Why: a fan-out is thousands of small callbacks (a slot from the budget, a request written, an
answer read, a mark), and asyncio's pure-Python loop was a sixth of each message's CPU. On
uvloop the same 5,000-chat fan-out cost 0.59-0.65 ms a message instead of 0.69-0.78 ms (issue
30, alternating runs on this project's 2-core machine). A quiet poll (a 304) is mostly aiohttp's
own work and showed no difference. Nothing in Feedwatch depends on which loop runs: both are
`asyncio` loops, with the same signal handlers, executors and timeouts. `EVENT_LOOP=asyncio`
picks asyncio's loop (to compare the two); where uvloop is not installed (Windows) asyncio's is
used whatever the setting says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

T = TypeVar("T")
LoopName = Literal["uvloop", "asyncio"]


def loop_factory(wanted: LoopName = "uvloop") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop when wanted and installed; None means asyncio's default loop."""
    if wanted != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:  # a platform uvloop does not serve
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], wanted: LoopName = "uvloop") -> T:
    """`asyncio.run(main)` on the loop `loop_factory` picks."""
    with asyncio.Runner(loop_factory=loop_factory(wanted)) as runner:
        return runner.run(main)


def running() -> str:
    """The running loop's kind, for the start-up log line."""
    module = type(asyncio.get_running_loop()).__module__
    return "uvloop" if module.startswith("uvloop") else "asyncio"
