"""One poller per SQLite database.

SQLite has no row locks, and two processes polling and delivering from one file would step on
each other's leases and fight for the write lock. So `run`, `worker` and `poll --once` take an
exclusive OS lock on a file next to the database; the kernel releases it when the process dies,
even by `kill -9`, so a restart is never blocked. Several pollers need PostgreSQL.
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import IO

from sqlalchemy.engine import make_url

from bot.db.engine import is_sqlite
from bot.runtime.config import SettingsError


class PollerLock:
    def __init__(self, handle: IO[str] | None) -> None:
        self._handle = handle

    @property
    def exclusive(self) -> bool:
        """True when this process is known to be the only poller (SQLite)."""
        return self._handle is not None

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def acquire_poller_lock(database_url: str) -> PollerLock:
    """Take the SQLite poller lock, or fail with one clear line; a no-op for PostgreSQL."""
    if not is_sqlite(database_url):
        return PollerLock(None)
    database = make_url(database_url).database
    if not database or database == ":memory:":
        return PollerLock(None)
    path = Path(database).with_name(Path(database).name + ".poller.lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise SettingsError(
            f"another Feedwatch process (run, worker or poll --once) is already polling "
            f"{database}; SQLite allows one, use PostgreSQL to run several"
        ) from None
    return PollerLock(handle)
