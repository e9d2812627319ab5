"""The search index's rows of a poll's versions, written after the poll's commit.

Why: on SQLite every write waits for one lock (`BEGIN IMMEDIATE`), and tokenising each new
or edited post's versions and FTS5's own writes inside a poll's transaction made every other
poll wait for them. The poll now writes its versions without their FTS5 rows (storage marks
them: no `search_key`), hands their ids here once committed, and they are indexed in one
transaction for a batch of polls (each claim batch, each flush of quiet polls). A crash
between the two loses nothing: a process's first pass indexes every version still without
its row. PostgreSQL writes its `tsvector` with the version: nothing waits here.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from bot.db import store
from bot.db.engine import transaction

if TYPE_CHECKING:
    from sqlmodel import Session

log = logging.getLogger(__name__)


class SearchIndexer:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._pending: list[int] = []
        self._caught_up = engine.dialect.name != "sqlite"  # the first pass finds any left

    def defer(self, session: Session) -> list[int]:
        """Have this write transaction leave its versions' search rows for later; the list
        fills with their ids, to be handed to `add` once the transaction committed."""
        later: list[int] = []
        session.info[store.DEFERRED] = later
        return later

    def add(self, version_ids: list[int]) -> None:
        with self._lock:
            self._pending += version_ids

    @property
    def pending(self) -> bool:
        return bool(self._pending) or not self._caught_up

    def flush(self) -> int:
        """Index what is pending (the first time, every version left unindexed) in one
        transaction; returns how many. A failure is logged and tried again next time."""
        with self._lock:
            ids, self._pending = self._pending, []
            everything = not self._caught_up
        if not ids and not everything:
            return 0
        from bot.runtime.metrics import cpu_of  # not at import: a dry run loads no metrics

        try:
            with cpu_of("index"), transaction(self.engine) as session:
                done = store.index_versions(session, None if everything else ids)
        except Exception:
            log.exception("search index: %d version(s) not indexed yet", len(ids))
            self.add(ids)
            return 0
        if everything:
            self._caught_up = True
            if done > len(ids):
                log.info("search index: %d version(s) left unindexed were indexed", done)
        return done
