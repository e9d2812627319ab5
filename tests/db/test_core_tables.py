"""The Core tables a quiet poll reads (`db/core_tables.py`) are the models' tables, column for
column, so the two cannot drift apart; and feed states read on a plain connection are the
ones an ORM session reads (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Column, Engine, Table
from sqlalchemy.engine import Dialect, make_url
from sqlmodel import Session, UTCDateTime

from bot.db import core_tables, store, tables
from bot.db.core_tables import UTCDateTime as CoreUTCDateTime

DIALECTS = tuple(make_url(url).get_dialect()() for url in ("sqlite://", "postgresql+psycopg://"))


def shape(column: Column[object], dialect: Dialect) -> tuple[object, ...]:
    """What the database and a statement see of a column (not the models' Python defaults)."""
    default = column.server_default
    return (
        column.name,
        column.type.compile(dialect=dialect),
        column.nullable,
        column.primary_key,
        bool(column.unique),
        bool(column.index),
        str(getattr(default, "arg", None)) if default is not None else None,
        type(column.type).__name__ == "UTCDateTime",
    )


@pytest.mark.parametrize("name", sorted(core_tables.metadata.tables))
@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_each_core_table_has_the_models_columns(name: str, dialect: Dialect) -> None:
    core: Table = core_tables.metadata.tables[name]
    model: Table = tables.metadata.tables[name]
    assert [shape(c, dialect) for c in core.columns] == [shape(c, dialect) for c in model.columns]


aware = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
) | st.builds(
    lambda moment, minutes: moment.replace(tzinfo=timezone(timedelta(minutes=minutes))),
    st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2200, 1, 1)),
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
moments = aware | st.datetimes(min_value=datetime(1970, 1, 2)) | st.none()


def outcome(convert: object, value: datetime | None, dialect: Dialect) -> object:
    try:
        found = convert(value, dialect)  # type: ignore[operator]
    except ValueError:
        return ValueError
    return (found, found.utcoffset()) if isinstance(found, datetime) else found


@given(value=moments)
def test_the_core_datetime_type_writes_and_reads_as_sqlmodels_does(
    value: datetime | None,
) -> None:
    ours, theirs = CoreUTCDateTime(), UTCDateTime()
    for dialect in DIALECTS:
        for method in ("process_bind_param", "process_result_value"):
            assert outcome(getattr(ours, method), value, dialect) == outcome(
                getattr(theirs, method), value, dialect
            )
    for compared in (timedelta(seconds=5), datetime.now(UTC)):
        ours_type = ours.coerce_compared_value(None, compared)
        theirs_type = theirs.coerce_compared_value(None, compared)
        assert type(ours_type).__name__ == type(theirs_type).__name__


def test_feed_states_on_a_connection_are_those_of_a_session(
    engine: Engine, feed_ids: list[int]
) -> None:
    with Session(engine) as session:
        by_session = store.feed_states(session)
        one = store.feed_states(session, feed_id=feed_ids[0])
    with engine.connect() as connection:
        assert store.feed_states(connection) == by_session
        assert store.feed_states(connection, feed_id=feed_ids[0]) == one
    assert {f.id for f in by_session} == set(feed_ids[:3])  # the gone one is not polled
    assert all(f.due_at is not None and f.due_at.tzinfo is UTC for f in by_session)  # aware
