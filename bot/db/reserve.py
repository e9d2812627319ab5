"""A full disk: recognised in one place, and a little space kept for the writes that free it.

When the disk under SQLite fills, every write fails, and so did the operator's `feed remove`:
SQLite must append to its write-ahead log even to delete. A reserve file beside the database
(`RESERVE_BYTES`, made at start and again each poll cycle while there is room) is given back
when a removal meets a full disk, so the removal goes through; it is made again when space
returns. PostgreSQL manages its own disk: there, removal needs the server to have room.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Engine

from bot.db.engine import transaction

if TYPE_CHECKING:
    from sqlmodel import Session

log = logging.getLogger(__name__)
T = TypeVar("T")
RESERVE_BYTES = 4 * 1024 * 1024
_FULL = (
    "database or disk is full",
    "no space left on device",
    "could not extend file",
    "disk full",
)


def disk_full(exc: BaseException) -> bool:
    """The database refused a write because its disk is full (SQLite's SQLITE_FULL,
    PostgreSQL's 53100 or a failed file extension)."""
    text = str(exc).lower()
    code = getattr(getattr(exc, "orig", None), "sqlstate", None)
    return code == "53100" or any(sign in text for sign in _FULL)


def reserve_path(engine: Engine) -> Path | None:
    """Where the reserve lives: beside a SQLite file; None for PostgreSQL or in-memory."""
    if engine.dialect.name != "sqlite" or not engine.url.database:
        return None
    if engine.url.database == ":memory:":
        return None
    return Path(engine.url.database).with_name(Path(engine.url.database).name + ".reserve")


def keep_reserve(engine: Engine) -> bool:
    """Make the reserve if it is missing and the disk has room; True when it exists."""
    path = reserve_path(engine)
    if path is None:
        return False
    if path.exists():
        return True
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return False
    try:
        os.posix_fallocate(fd, 0, RESERVE_BYTES)
    except OSError:  # no room yet: leave no partial file behind
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        return False
    os.close(fd)
    return True


def release_reserve(engine: Engine) -> bool:
    """Give the reserve back to the disk; True if there was one."""
    path = reserve_path(engine)
    if path is None or not path.exists():
        return False
    with contextlib.suppress(OSError):
        path.unlink()
        return True
    return False


def freeing_write(engine: Engine, work: Callable[[Session], T]) -> T:
    """A transaction that frees space (removing a feed): on a full disk, the reserve is given
    back and the transaction tried once more."""
    try:
        with transaction(engine) as session:
            return work(session)
    except Exception as exc:
        if not disk_full(exc) or not release_reserve(engine):
            raise
        log.warning("the database's disk is full: used the reserve space to remove data")
    with transaction(engine) as session:
        return work(session)
