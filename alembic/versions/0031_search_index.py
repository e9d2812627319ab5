"""every version of every post, searchable: `item_version` and its full-text index

`/search` finds a chat's posts by any version of their title and text (an edited sentence
stays findable). `item_version` keeps the first version of each post, one per edit, and after
each the latest silent rewrite (db/store/search.py writes them with the items). The index
holds `core/search/terms.index_text` (folded words, CJK as overlapping pairs): on PostgreSQL
a `tsvector` column (`to_tsvector('simple', …)`) with a GIN index; on SQLite an FTS5 table
whose rowid is the version's id, emptied with it by a trigger (also when a post or a feed is
deleted: the foreign keys cascade, and SQLite fires the trigger for cascaded rows).

Existing posts get their stored text as their first version. A batch migration of
`item_version` on SQLite would drop the trigger: recreate it there.

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from sqlalchemy.dialects import postgresql

from alembic import op
from bot.core.search.terms import index_text

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 500


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "item_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("feed_id", sa.Integer(), nullable=False),
        sa.Column("posted", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("silent", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("terms", sa.Text().with_variant(postgresql.TSVECTOR(), "postgresql")),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["feed_id"], ["feed.id"], name=op.f("fk_item_version_feed_id_feed"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["item_id"], ["item.id"], name=op.f("fk_item_version_item_id_item"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_item_version")),
    )
    op.create_index(op.f("ix_item_version_feed_id"), "item_version", ["feed_id"])
    op.create_index("ix_item_version_item", "item_version", ["item_id", "id"])
    op.create_index("ix_item_version_posted", "item_version", ["posted", "feed_id", "item_id"])
    if sqlite:
        op.execute(
            "CREATE VIRTUAL TABLE item_search USING fts5("
            "terms, tokenize = 'unicode61 remove_diacritics 0', columnsize = 0)"
        )
        op.execute(
            "CREATE TRIGGER item_search_gone AFTER DELETE ON item_version BEGIN "
            "DELETE FROM item_search WHERE rowid = old.id; END"
        )
    else:
        op.create_index("ix_item_version_terms", "item_version", ["terms"], postgresql_using="gin")
    _backfill(sqlite)


def _backfill(sqlite: bool) -> None:
    """Each stored post's current text is its first version, in batches by id."""
    bind = op.get_bind()
    insert = sa.text(
        "INSERT INTO item_version (item_id, feed_id, posted, title, text, terms, created_at) "
        "VALUES (:item_id, :feed_id, :posted, :title, :text, "
        + ("NULL" if sqlite else "to_tsvector('simple', :terms)")
        + ", :created_at)"
    )
    last = 0
    while True:
        rows = bind.execute(
            sa.text(
                "SELECT id, feed_id, title, text, last_changed_at, "
                "coalesce(published_at, first_seen_at) FROM item "
                "WHERE id > :last ORDER BY id LIMIT :n"
            ),
            {"last": last, "n": _BATCH},
        ).all()
        if not rows:
            return
        values = [
            {
                "item_id": row[0],
                "feed_id": row[1],
                "title": row[2] or "",
                "text": row[3] or "",
                "terms": index_text(row[2] or "", row[3] or ""),
                "created_at": row[4],
                "posted": row[5],
            }
            for row in rows
        ]
        bind.execute(insert, values)
        if sqlite:
            bind.execute(
                sa.text(
                    "INSERT INTO item_search (rowid, terms) "
                    "SELECT id, :terms FROM item_version WHERE item_id = :item_id"
                ),
                [{"terms": v["terms"], "item_id": v["item_id"]} for v in values],
            )
        last = rows[-1][0]


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS item_search_gone")
        op.execute("DROP TABLE IF EXISTS item_search")
    else:
        op.drop_index("ix_item_version_terms", table_name="item_version")
    op.drop_index("ix_item_version_posted", table_name="item_version")
    op.drop_index("ix_item_version_item", table_name="item_version")
    op.drop_index(op.f("ix_item_version_feed_id"), table_name="item_version")
    op.drop_table("item_version")
