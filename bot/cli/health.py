"""`python -m bot health`: is the database reachable and is polling alive?

The last finished poll cycle is recorded in the database (not in memory), so the check works from
another process, e.g. a container HEALTHCHECK next to the running bot.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from bot.db import store
from bot.db.engine import make_engine
from bot.runtime.clock import utcnow
from bot.runtime.config import Settings
from bot.services.polling import LAST_CYCLE_KEY


def check_health(settings: Settings, now: datetime | None = None) -> tuple[bool, str]:
    now = now or utcnow()
    engine = make_engine(settings.database_url)
    try:
        with Session(engine) as session:
            session.exec(text("SELECT 1"))  # type: ignore[call-overload]
            state = store.get_state(session, key=LAST_CYCLE_KEY)
    except SQLAlchemyError as exc:
        return False, f"unhealthy: database error: {str(exc).splitlines()[0][:200]}"
    finally:
        engine.dispose()
    if state is None:
        return False, "unhealthy: no poll cycle has finished yet"
    finished = datetime.fromisoformat(state.value)
    age = now - finished
    allowed = timedelta(seconds=3 * settings.poll_interval_seconds)
    if age > allowed:
        return False, f"unhealthy: last poll cycle finished {age.total_seconds():.0f} s ago"
    return True, f"healthy: last poll cycle finished {age.total_seconds():.0f} s ago"
