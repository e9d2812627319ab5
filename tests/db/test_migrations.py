"""Alembic owns the schema: migrations build it from nothing and match the models exactly."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect

from alembic import command
from bot.db.engine import make_engine
from bot.db.migrate import alembic_config, at_head, head_revisions, is_current, upgrade


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


def test_at_head_lets_a_current_schema_skip_alembic(db_url: str, tmp_path: Path) -> None:
    """`open_database` runs Alembic only when `at_head` says the schema is behind."""
    engine = make_engine(db_url)
    assert at_head(engine)  # the fixture's database is migrated
    command.downgrade(alembic_config(db_url), "-1")
    assert not at_head(engine)
    upgrade(db_url)
    assert at_head(engine) and is_current(engine, db_url)
    # Files read as text: the heads are the revisions no file names as its down revision.
    versions = tmp_path / "versions"
    versions.mkdir()
    for name, body in {
        "0001_a.py": 'revision: str = "0001"\ndown_revision: str | None = None\n',
        "0002_b.py": "revision = '0002'\ndown_revision = '0001'\n",
        "0003_c.py": 'revision: str = "0003"\ndown_revision = ("0002",)\n',
        "0003_d.py": 'revision: str = "0004"\ndown_revision: str | None = "0002"\n',
    }.items():
        (versions / name).write_text(body)
    assert head_revisions(tmp_path) == {"0003", "0004"}
    assert not at_head(engine, tmp_path)  # this database knows none of them
    engine.dispose()
    fresh = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    assert not at_head(fresh)  # no version table yet
    fresh.dispose()
