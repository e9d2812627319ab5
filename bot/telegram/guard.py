"""Keep one noisy chat or user from slowing everyone else down.

PTB handles updates one at a time by default, so a group member sending fifteen commands (each a
`getChatMember` and a reply through that group's 20-per-minute limiter) held up every other chat
for half a minute. Here updates run concurrently while each chat's own stay in order; admin status
is cached briefly; a refusal is said once per window, not once per command; and each user's
commands are throttled with one short "slow down".
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

Clock = Callable[[], float]


class ChatOrderedProcessor(BaseUpdateProcessor):
    """Concurrent across chats, sequential within one chat (a chat's commands keep their order)."""

    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._chats: dict[int, tuple[asyncio.Lock, int]] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        lock, users = self._chats.get(chat.id, (asyncio.Lock(), 0))
        self._chats[chat.id] = (lock, users + 1)
        try:
            async with lock:
                await coroutine
        finally:
            lock, users = self._chats[chat.id]
            if users <= 1:
                del self._chats[chat.id]  # no lock kept for chats that went quiet
            else:
                self._chats[chat.id] = (lock, users - 1)

    async def initialize(self) -> None:
        """Nothing to set up: locks are made per chat on demand."""

    async def shutdown(self) -> None:
        """Nothing to release."""


@dataclass
class TtlCache:
    """A small time-bounded memo (admin status: changes are rare, lookups cost a request)."""

    seconds: float
    clock: Clock = time.monotonic
    _values: dict[Hashable, tuple[float, Any]] = field(default_factory=dict)

    def get(self, key: Hashable) -> Any | None:
        found = self._values.get(key)
        if found is None or found[0] <= self.clock():
            self._values.pop(key, None)
            return None
        return found[1]

    def put(self, key: Hashable, value: Any) -> None:
        if len(self._values) > 10_000:  # bounded: drop what has expired
            now = self.clock()
            self._values = {k: v for k, v in self._values.items() if v[0] > now}
        self._values[key] = (self.clock() + self.seconds, value)


@dataclass
class OncePer:
    """True the first time a key is seen in each window: one refusal, not one per command."""

    seconds: float
    clock: Clock = time.monotonic
    _said: TtlCache = field(init=False)

    def __post_init__(self) -> None:
        self._said = TtlCache(self.seconds, self.clock)

    def first(self, key: Hashable) -> bool:
        if self._said.get(key) is not None:
            return False
        self._said.put(key, True)
        return True


class Verdict(StrEnum):
    ALLOW = "allow"
    WARN = "warn"  # over the limit: say "slow down" once
    DROP = "drop"  # still over the limit: ignore silently


@dataclass
class Throttle:
    """At most `limit` actions per key in any `seconds`-long window (a sliding log)."""

    limit: int
    seconds: float = 60.0
    clock: Clock = time.monotonic
    max_keys: int = 10_000  # past this many keys, the quiet ones are forgotten
    _log: dict[Hashable, deque[float]] = field(default_factory=dict)
    _warned: OncePer = field(init=False)

    def __post_init__(self) -> None:
        self._warned = OncePer(self.seconds, self.clock)

    def check(self, key: Hashable) -> Verdict:
        now = self.clock()
        if len(self._log) >= self.max_keys:
            self.forget_quiet(now)
        recent = self._log.setdefault(key, deque())
        while recent and recent[0] <= now - self.seconds:
            recent.popleft()
        if len(recent) < self.limit:
            recent.append(now)
            return Verdict.ALLOW
        return Verdict.WARN if self._warned.first(key) else Verdict.DROP

    def forget_quiet(self, now: float) -> None:
        """Drop every key with nothing in the window: a million users seen once cost nothing
        once their minute has passed (858 MB per million users when kept for ever)."""
        since = now - self.seconds
        self._log = {key: log for key, log in self._log.items() if log and log[-1] > since}


@dataclass
class Guard:
    """The per-process state the handlers consult before doing any work for a chat."""

    commands_per_minute: int
    admin_seconds: float = 30.0
    refusal_seconds: float = 60.0
    clock: Clock = time.monotonic
    admins: TtlCache = field(init=False)
    refusals: OncePer = field(init=False)
    users: Throttle = field(init=False)

    def __post_init__(self) -> None:
        self.admins = TtlCache(self.admin_seconds, self.clock)
        self.refusals = OncePer(self.refusal_seconds, self.clock)
        self.users = Throttle(self.commands_per_minute, 60.0, self.clock)
