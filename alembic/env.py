"""Alembic environment: the models' metadata, the URL from Feedwatch settings (or the caller)."""

from __future__ import annotations

from logging.config import fileConfig

from sqlalchemy import Connection

from alembic import context
from bot.db import tables
from bot.db.engine import make_engine

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = tables.metadata


def _url() -> str:
    url = config.attributes.get("database_url") or config.get_main_option("sqlalchemy.url")
    if url:
        return str(url)
    from bot.runtime.config import load_settings

    return load_settings().database_url


# The search index is the migrations' own, in each database's form (migration 0031): SQLite's
# FTS5 table with its shadow tables, PostgreSQL's GIN index. The models do not describe it.
SEARCH_INDEX = ("item_search", "ix_item_version_terms")


def _include_name(name: str | None, type_: str, parent_names: object) -> bool:
    return not (name or "").startswith(SEARCH_INDEX)


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=_include_name,
    )


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                # Outside any transaction (inside one SQLite ignores it): batch migrations
                # recreate tables, which must not cascade-delete rows that reference them.
                driver = conn.connection.driver_connection
                assert driver is not None
                driver.execute("PRAGMA foreign_keys=OFF")
            _configure(conn)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
