"""When a message that Telegram or the network failed is tried again, and whether that failure
counts against it (`DELIVERY_MAX_ATTEMPTS`): the delivery service's retry policy."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.db.store import Queued
from bot.runtime.clock import Clock

log = logging.getLogger("bot.services.delivery")
PROBE_SECONDS = 10.0  # how long one answer (or silence) of getMe stands for Telegram's state


def retry_delay(attempts: int, base: float = 5.0) -> timedelta:
    """Backoff after the n-th failed attempt: 5 s, 10 s, 20 s … capped at 10 minutes."""
    return timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), 600))


@dataclass(frozen=True, slots=True)
class Retry:
    at: datetime
    give_up: bool
    spend: bool  # an attempt: the failure is about this message


class Retries:
    """The retry policy for network failures and 5xx. An attempt is spent only when Telegram
    works for others (it took other messages since this one last failed, or answers `getMe`
    now): then the failure is about this message. In an outage, however long, it waits, each
    message backing off on its own (a blip must not push every chat's next try out by ten
    minutes), and `getMe` is asked at most once per `PROBE_SECONDS`."""

    def __init__(self, max_attempts: int, base: float, clock: Clock) -> None:
        self.max_attempts, self.base, self.clock = max_attempts, base, clock
        self.accepted_at: float | None = None  # monotonic time Telegram last took a message
        self._failed_at: dict[int, float] = {}  # delivery id → its last network failure
        self._waits: dict[int, int] = {}  # delivery id → its failures during outages
        self._probe: tuple[float, bool] | None = None  # when getMe was asked, and its answer

    def accepted(self, delivery_id: int) -> None:
        self.accepted_at = time.monotonic()
        self._failed_at.pop(delivery_id, None)
        self._waits.pop(delivery_id, None)

    async def after_failure(
        self, delivery: Queued, error: str, answers: Callable[[], Awaitable[bool]]
    ) -> Retry:
        key = delivery.id or 0
        before = self._failed_at.get(key)
        others_sent = before is not None and (self.accepted_at or 0.0) > before
        outage = not others_sent and not await self._telegram_up(answers)
        self._failed_at[key] = time.monotonic()
        where = f"delivery {delivery.id} to chat {delivery.chat_id}: {error}"
        if outage:
            waits = self._waits[key] = self._waits.get(key, 0) + 1
            log.warning("%s (Telegram unreachable; retrying, no attempt spent)", where)
            return Retry(self.clock() + retry_delay(waits, self.base), False, False)
        attempts = delivery.attempts + 1
        give_up = attempts >= self.max_attempts
        suffix = "; giving up" if give_up else ""
        log.warning("%s (attempt %d/%d)%s", where, attempts, self.max_attempts, suffix)
        if give_up:
            self._failed_at.pop(key, None)
            self._waits.pop(key, None)
        return Retry(self.clock() + retry_delay(attempts, self.base), give_up, True)

    async def _telegram_up(self, answers: Callable[[], Awaitable[bool]]) -> bool:
        now = time.monotonic()
        if self._probe is not None and now - self._probe[0] < PROBE_SECONDS:
            return self._probe[1]
        up = await answers()
        self._probe = (time.monotonic(), up)
        return up
