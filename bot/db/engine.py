"""Engine and session factory.

SQLite: WAL (readers do not block the writer), a busy timeout, foreign keys on. Write
transactions (`transaction()`, `writer()`) begin with `BEGIN IMMEDIATE`, so read-then-write
never fails half way with SQLITE_BUSY; reads begin deferred and never queue behind a writer.
PostgreSQL (psycopg 3) needs nothing special.

The engine is SQLAlchemy's own and the ORM session is imported where a transaction opens: a
quiet `poll --once --dry-run` reads its feeds on a connection and never loads SQLModel or the
ORM, 0.13 s of its start-up (issue 48).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

if TYPE_CHECKING:
    from sqlmodel import Session

BUSY_TIMEOUT_MS = 30_000
_WRITE_OPTION = "feedwatch_write"
_writers: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def make_engine(url: str) -> Engine:
    if not is_sqlite(url):
        return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # let SQLAlchemy's "begin" event decide
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        writes = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

    return engine


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) marked for writing: SQLite takes the write lock at BEGIN."""
    found = _writers.get(engine)
    if found is None:
        found = _writers[engine] = engine.execution_options(**{_WRITE_OPTION: True})
    return found


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work that writes: commit on success, roll back on any exception."""
    from sqlmodel import Session  # the ORM loads with the first write, not at start (above)

    with Session(writer(engine), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
