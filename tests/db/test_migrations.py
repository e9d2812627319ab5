"""Alembic owns the schema: migrations build it from nothing and match the models exactly."""

from __future__ import annotations

from sqlalchemy import inspect

from alembic import command
from bot.db.engine import make_engine
from bot.db.migrate import alembic_config, is_current, upgrade


def test_migrations_match_the_models(db_url: str) -> None:
    # db_url was created empty and upgraded to head by the fixture; autogenerate must find nothing
    command.check(alembic_config(db_url))
    engine = make_engine(db_url)
    try:
        tables = set(inspect(engine).get_table_names())
        assert {"feed", "item", "chat", "subscription", "delivery", "state"} <= tables
        assert is_current(engine, db_url)
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_downgrade_works(db_url: str) -> None:
    upgrade(db_url)
    command.downgrade(alembic_config(db_url), "base")
    engine = make_engine(db_url)
    try:
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
    upgrade(db_url)
    command.check(alembic_config(db_url))


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    finally:
        engine.dispose()
