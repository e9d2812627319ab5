"""SQLAlchemy statements run on the pool's DBAPI cursor: the write every sent message makes.

Why: through a SQLAlchemy `Connection`, a sent mark and its story cost ~500 Python calls (the
connection, the `begin` event's own BEGIN statement, each statement's cache key and execution
context, the commit): 150 µs on a warm loop, about 0.3 ms at Telegram's 30 messages a second,
where every message finds the caches cold (issue 30: the row "CPU share at 30 messages/s").
Here the same write is ~60 calls. What stays SQLAlchemy's: the statements (compiled once per
dialect, their bound values through the column types' own bind processors, so a row reads back
as if the ORM wrote it) and the pool (its connect pragmas, PostgreSQL's pre-ping). The
transaction is `writer()`'s: BEGIN IMMEDIATE on SQLite, psycopg's implicit one on PostgreSQL.
What is lost is the engine's statement events (`before_cursor_execute`, `commit`), so nothing
that needs them goes through here.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

Processor = Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A statement compiled for one dialect: its SQL, the order of its positional parameters
    (None for named ones), each parameter's bind processor, and the values bound in it."""

    sql: str
    order: tuple[str, ...] | None
    processors: tuple[tuple[str, Processor], ...]
    fixed: Mapping[str, Any]

    def parameters(self, row: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        values = {**self.fixed, **row}
        for name, process in self.processors:
            values[name] = process(values[name])
        if self.order is None:
            return values
        return tuple(values[name] for name in self.order)


# Per dialect (one an engine: its driver's paramstyle, its server's version), per statement.
_prepared: weakref.WeakKeyDictionary[Dialect, dict[ClauseElement, Prepared]] = (
    weakref.WeakKeyDictionary()
)


def prepare(statement: ClauseElement, dialect: Dialect) -> Prepared:
    """Compile once per statement and engine (the statements are module constants)."""
    known = _prepared.setdefault(dialect, {})
    found = known.get(statement)
    if found is not None:
        return found
    compiled = statement.compile(dialect=dialect)
    assert isinstance(compiled, SQLCompiler)
    names = compiled.bind_names  # each bound parameter and its name in the SQL
    processors = []
    for bind, name in names.items():
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            processors.append((name, process))
    fixed = {name: bind.effective_value for bind, name in names.items() if not bind.required}
    order = tuple(compiled.positiontup) if compiled.positiontup is not None else None
    prepared = known[statement] = Prepared(compiled.string, order, tuple(processors), fixed)
    return prepared


class Direct:
    """One write transaction's cursor: `run` (executemany) and `first` (one row)."""

    def __init__(self, cursor: Any, dialect: Dialect) -> None:
        self.cursor = cursor
        self.dialect = dialect

    def run(self, statement: ClauseElement, rows: Sequence[Mapping[str, Any]]) -> int:
        """Every row through the statement; the rows it changed."""
        prepared = prepare(statement, self.dialect)
        self.cursor.executemany(prepared.sql, [prepared.parameters(row) for row in rows])
        return int(self.cursor.rowcount)

    def first(self, statement: ClauseElement, row: Mapping[str, Any]) -> Sequence[Any] | None:
        """The statement's first result row, as the driver returns it (no result processing)."""
        prepared = prepare(statement, self.dialect)
        self.cursor.execute(prepared.sql, prepared.parameters(row))
        found: Sequence[Any] | None = self.cursor.fetchone()
        return found


@contextmanager
def begin(engine: Engine) -> Iterator[Direct]:
    """A write transaction on a pooled connection: committed when the block ends, rolled back
    if it raises (a connection that cannot roll back is dropped from the pool)."""
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        if engine.dialect.name == "sqlite":  # autocommit driver (engine.py): take the lock now
            cursor.execute("BEGIN IMMEDIATE")
        try:
            yield Direct(cursor, engine.dialect)
            connection.commit()
        except BaseException:
            try:
                connection.rollback()
            except Exception:
                connection.invalidate()
            raise
        finally:
            cursor.close()
    finally:
        connection.close()  # back to the pool
