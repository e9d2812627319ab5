"""Run Alembic from code: `python -m bot migrate`, and the automatic upgrade at start."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from alembic import command


def script_location() -> Path:
    """`alembic/` beside the package in a checkout; the packaged copy in an installed wheel."""
    checkout = Path(__file__).resolve().parents[2] / "alembic"
    if (checkout / "env.py").is_file():
        return checkout
    spec = importlib.util.find_spec("feedwatch_migrations")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Feedwatch's migration scripts are missing from this installation")
    return Path(next(iter(spec.submodule_search_locations)))


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(script_location()))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logging"] = False
    return config


def upgrade(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")


def is_current(engine: Engine, database_url: str) -> bool:
    heads = set(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())
    with engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    return current == heads
