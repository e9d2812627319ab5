"""The one clock: every service takes a `Clock` (tests pass a fake one), defaulting to `utcnow`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """Aware UTC: what every stored time is."""
    return datetime.now(UTC)
