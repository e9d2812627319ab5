"""SQLite: an index of the versions not yet in the search index (`item_search_pending`)

Since session 18 a poll writes its versions without their FTS5 rows and indexes them after its
commit (services/indexing.py); a process's first pass indexes what a crash left behind: the
versions with no `search_key`. Without an index that pass read every stored version (0.07-0.4 s
of CPU at 100,000 versions), paid again by every `poll --once` from cron. This partial index
holds only the versions waiting for their rows, so the pass reads what is pending, usually
nothing. PostgreSQL writes the terms with the version and needs none. The name starts with
`item_search` so the models' comparison leaves it out (alembic/env.py), like the FTS5 table.

Revision ID: 0039
Revises: 0038
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0039"
down_revision: str | None = "0038"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE INDEX IF NOT EXISTS item_search_pending ON item_version (id) "
            "WHERE search_key IS NULL"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP INDEX IF EXISTS item_search_pending")
