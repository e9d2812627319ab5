"""The tables a quiet poll reads, as SQLAlchemy Core `Table`s: no SQLModel, no ORM.

Why: a cron `poll --once` over quiet feeds (a 304, the same body) is nearly all start-up, and
importing SQLModel with SQLAlchemy's ORM and declaring the models (`tables.py`) cost about
0.13 s of its 0.45 s. The quiet path reads and writes each feed's poll state
(`store/feedstate.py`) with the statements below, built on these tables; the models stay the
rest of the program's, and Alembic's migrations own the schema.

These are the same columns as the models', not a second schema: `tests/db/test_core_tables.py`
fails when a column's name, order, type (as SQLite and PostgreSQL spell it), nullability, key
or server default differs from `tables.py`. They are for queries and updates; rows are
inserted through the models, whose Python-side defaults are not repeated here.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    Integer,
    Interval,
    MetaData,
    String,
    Table,
    TypeDecorator,
    false,
    true,
)
from sqlalchemy.types import TypeEngine

metadata = MetaData()


class UTCDateTime(TypeDecorator[datetime]):
    """SQLModel's type for every `datetime` field (`sqlmodel.sql.sqltypes.UTCDateTime`):
    writes aware values as UTC, reads them back aware (SQLite stores no offset). Named here
    because importing it from there loads all of SQLModel; the test checks both agree."""

    impl = DateTime
    cache_ok = True

    def __init__(self) -> None:
        super().__init__(timezone=True)

    def coerce_compared_value(self, op: Any, value: Any) -> TypeEngine[Any]:
        return Interval() if isinstance(value, timedelta) else self

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            raise ValueError("datetimes stored must be aware (UTC)")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.utcoffset() is None else value.astimezone(UTC)


feed = Table(
    "feed",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("slug", String(64), nullable=False, unique=True),
    Column("url", String(2048), nullable=False),
    Column("title", String(1000), nullable=False),
    Column("trusted", Boolean, nullable=False),
    Column("etag", String(1024)),
    Column("last_modified", String(256)),
    Column("body_hash", String(64)),
    Column("status", String(16), nullable=False),
    Column("last_error", String(1000)),
    Column("error_count", Integer, nullable=False),
    Column("interval_seconds", Integer),
    Column("ttl_seconds", Integer),
    Column("failing_since", UTCDateTime),
    Column("alert", String(16)),
    Column("alerted_at", UTCDateTime),
    Column("churn_polls", Integer),
    Column("baseline_done", Boolean, nullable=False),
    Column("full_text", Boolean, nullable=False, server_default=false()),
    Column("excerpt_only", Boolean),
    Column("edits", Boolean, nullable=False, server_default=true()),
    Column("added_by", BigInteger, index=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("last_checked_at", UTCDateTime),
    Column("next_check_at", UTCDateTime, nullable=False, index=True),
    Column("lease_until", UTCDateTime),
    Column("lease_owner", String(128)),
)
