"""Run Alembic from code: `python -m bot migrate`, and the automatic upgrade at start.

Every command upgrades the schema before it starts, and importing Alembic alone cost about
0.5 s of a quiet `poll --once` (cron runs it every few minutes). So `at_head` first compares
the database's `alembic_version` with the heads of the migration files, read as text; Alembic
is imported and run only when they differ (or cannot be read).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

if TYPE_CHECKING:
    from alembic.config import Config

_REVISION = re.compile(r"^revision\s*(?::[^=]*)?=\s*[\"']([^\"']+)[\"']", re.MULTILINE)
_DOWN = re.compile(r"^down_revision\s*(?::[^=]*)?=(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"[\"']([^\"']+)[\"']")


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
    from alembic.config import Config

    # Alembic's default stdout is the sys.stdout of when alembic.config was first imported,
    # which a lazy import may meet replaced (a test's capture, closed since): pass today's.
    config = Config(stdout=sys.stdout)
    config.set_main_option("script_location", str(script_location()))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logging"] = False
    return config


def upgrade(database_url: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(database_url), "head")


def head_revisions(location: Path | None = None) -> frozenset[str]:
    """The revisions no migration file names as its `down_revision`, read as text. A file
    whose lines cannot be read leaves a set that matches no database: Alembic then decides."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in sorted(((location or script_location()) / "versions").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        revisions.update(_REVISION.findall(source))
        for line in _DOWN.findall(source):
            downs.update(_QUOTED.findall(line))
    return frozenset(revisions - downs)


def at_head(engine: Engine, location: Path | None = None) -> bool:
    """The database's schema is the newest the migration files describe (False when it has
    no version table yet, or anything cannot be read)."""
    heads = head_revisions(location)
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:
        return False
    return bool(heads) and {row[0] for row in rows} == heads


def is_current(engine: Engine, database_url: str) -> bool:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    heads = set(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())
    with engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    return current == heads
