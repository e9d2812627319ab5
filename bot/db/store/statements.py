"""How the poll's hot path runs SQL: statements built once, run on the session's connection.

Why: `session.exec(update(Item).where(...).values(...))` builds the expression again and goes
through the ORM's execution layer on every call, about 300 µs on this machine. The same statement
built once with bind parameters and run on `session.connection()` costs about 26 µs (SQLAlchemy's
compiled cache does the rest), and a changed feed's poll runs some thirty of them. Commands and
other cold paths keep the plainer ORM style.

SQLModel is imported for the type checker only: a quiet poll reads its feeds through `run` on a
plain connection and loads no ORM (`store/feedstate.py`, issue 48).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Connection, CursorResult, Executable, Table

if TYPE_CHECKING:
    from typing import TypeAlias

    from sqlmodel import Session, SQLModel

    # Where a statement runs: an ORM session's transaction, or a connection (a read that
    # needs no ORM, e.g. a dry run's list of feeds).
    Runner: TypeAlias = Session | Connection


def table(model: type[SQLModel]) -> Table:
    """The Core table behind a SQLModel class (its columns carry the same types)."""
    found = model.__table__  # type: ignore[attr-defined]  # set by SQLModel for table=True
    assert isinstance(found, Table)
    return found


def columns(source: type[SQLModel] | Table, names: str) -> tuple[Column[Any], ...]:
    """The named columns (space-separated) of a Core table or a model's, in that order."""
    found = source if isinstance(source, Table) else table(source)
    return tuple(found.c[name] for name in names.split())


def run(
    session: Runner,
    statement: Executable,
    params: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
) -> CursorResult[Any]:
    """Run `statement` in the session's transaction, after writing any pending ORM objects
    (the connection does not autoflush); on a connection, as it is."""
    if isinstance(session, Connection):
        return session.execute(statement, params)
    session.flush()
    return session.connection().execute(statement, params)
