"""Small cross-process facts, e.g. when the last poll cycle finished (for `health`)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from bot.db.tables import State


def set_state(session: Session, *, key: str, value: str, now: datetime) -> None:
    row = session.get(State, key) or State(key=key)
    row.value, row.updated_at = value, now
    session.add(row)


def get_state(session: Session, *, key: str) -> State | None:
    return session.get(State, key)
