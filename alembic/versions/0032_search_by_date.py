"""SQLite's search index numbered by the post's date: `item_version.search_key`

At 100,000 posts a word in half of them took 50-100 ms on SQLite: FTS5 gives its matches in
rowid order, so they were all read to be sorted by date. Its rows are now numbered by the
post's date (`core/search/match.fts5_rowid`: the seconds, then the version's id) and carry
the feed's id, so FTS5 itself hands out a chat's matches newest first and the search stops at
the tenth post. `search_key` is that number (the trigger that empties a deleted version's row
needs it). PostgreSQL only gets the (unused) column.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-03
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa

from alembic import op
from bot.core.search.match import fts5_rowid
from bot.core.search.terms import index_text

revision: str = "0032"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 500
_TOKENIZE = "tokenize = 'unicode61 remove_diacritics 0', columnsize = 0"


def upgrade() -> None:
    op.add_column("item_version", sa.Column("search_key", sa.BigInteger(), nullable=True))
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("DROP TRIGGER IF EXISTS item_search_gone")
    op.execute("DROP TABLE IF EXISTS item_search")
    op.execute(
        "CREATE VIRTUAL TABLE item_search USING fts5("
        f"terms, feed, version UNINDEXED, item UNINDEXED, {_TOKENIZE})"
    )
    op.execute(
        "CREATE TRIGGER item_search_gone AFTER DELETE ON item_version BEGIN "
        "DELETE FROM item_search WHERE rowid = old.search_key; END"
    )
    _refill(dated=True)


def _posted(value: object) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)


def _refill(*, dated: bool) -> None:
    """Every version's FTS5 row: numbered by date (`dated`), or by its id as in 0031."""
    bind = op.get_bind()
    last = 0
    while True:
        rows = bind.execute(
            sa.text(
                "SELECT id, item_id, feed_id, posted, title, text FROM item_version "
                "WHERE id > :last ORDER BY id LIMIT :n"
            ),
            {"last": last, "n": _BATCH},
        ).all()
        if not rows:
            return
        keys = [fts5_rowid(_posted(row[3]), row[0]) if dated else row[0] for row in rows]
        if dated:
            bind.execute(
                sa.text(
                    "INSERT INTO item_search (rowid, terms, feed, version, item) "
                    "VALUES (:key, :terms, :feed, :id, :item)"
                ),
                [
                    {"key": key, "terms": index_text(r[4], r[5]), "feed": str(r[2])}
                    | {"id": r[0], "item": r[1]}
                    for key, r in zip(keys, rows, strict=True)
                ],
            )
            bind.execute(
                sa.text("UPDATE item_version SET search_key = :key WHERE id = :id"),
                [{"key": key, "id": r[0]} for key, r in zip(keys, rows, strict=True)],
            )
        else:
            bind.execute(
                sa.text("INSERT INTO item_search (rowid, terms) VALUES (:id, :terms)"),
                [{"id": r[0], "terms": index_text(r[4], r[5])} for r in rows],
            )
        last = rows[-1][0]


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:  # before the batch below rebuilds item_version (and drops its triggers)
        op.execute("DROP TRIGGER IF EXISTS item_search_gone")
        op.execute("DROP TABLE IF EXISTS item_search")
    with op.batch_alter_table("item_version") as batch:
        batch.drop_column("search_key")
    if sqlite:
        op.execute(f"CREATE VIRTUAL TABLE item_search USING fts5(terms, {_TOKENIZE})")
        op.execute(
            "CREATE TRIGGER item_search_gone AFTER DELETE ON item_version BEGIN "
            "DELETE FROM item_search WHERE rowid = old.id; END"
        )
        _refill(dated=False)
