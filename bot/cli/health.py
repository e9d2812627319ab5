"""`python -m bot health`: is the database reachable and is polling alive?

The last finished poll cycle is recorded in the database (not in memory), so the check works from
another process, e.g. a container HEALTHCHECK next to the running bot. A container runs it every
few seconds, so it reads that one row with SQLAlchemy's core alone: no ORM, no store, no PTB,
no HTTP client (`tests/cli/test_startup.py`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import create_engine, text
from sqlalchemy.exc import SQLAlchemyError

from bot.core.polls.schedule import LAST_CYCLE_KEY
from bot.runtime.clock import utcnow
from bot.runtime.config import Settings

_LAST_CYCLE = text("SELECT value FROM state WHERE key = :key")
BUSY_TIMEOUT_S = 30  # as the bot's own SQLite connections wait (bot/db/engine.py)


def check_health(settings: Settings, now: datetime | None = None) -> tuple[bool, str]:
    now = now or utcnow()
    url = settings.database_url
    options = {"connect_args": {"timeout": BUSY_TIMEOUT_S}} if url.startswith("sqlite") else {}
    engine = create_engine(url, **options)
    try:
        with engine.connect() as connection:
            value = connection.execute(_LAST_CYCLE, {"key": LAST_CYCLE_KEY}).scalar()
    except SQLAlchemyError as exc:
        return False, f"unhealthy: database error: {str(exc).splitlines()[0][:200]}"
    finally:
        engine.dispose()
    if value is None:
        return False, "unhealthy: no poll cycle has finished yet"
    finished = datetime.fromisoformat(value)
    age = now - finished
    allowed = timedelta(seconds=3 * settings.poll_interval_seconds)
    if age > allowed:
        return False, f"unhealthy: last poll cycle finished {age.total_seconds():.0f} s ago"
    return True, f"healthy: last poll cycle finished {age.total_seconds():.0f} s ago"
