"""Every core test starts with the core's caches empty.

`summarize`, the sentence split and the parsed rules are cached per process. A test that met
a cached answer never ran the code behind it, so a mutant of `read_blocks` went unseen by the
summary tests when mutmut forked its workers from a process that had run the suite (blocks.py
scored 54% instead of 90%); and a test's result must not depend on the ones before it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import pytest

import bot.core


def _caches() -> list[object]:
    found = []
    for info in pkgutil.walk_packages(bot.core.__path__, "bot.core."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            ours = str(getattr(value, "__module__", "")).startswith("bot.")
            if ours and hasattr(value, "cache_clear") and value not in found:
                found.append(value)
    return found


_CACHES = _caches()


@pytest.fixture(autouse=True)
def _empty_caches() -> Iterator[None]:
    for cached in _CACHES:
        cached.cache_clear()  # type: ignore[attr-defined]
    yield
