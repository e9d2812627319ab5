"""per-feed category counts, kept up to date instead of scanning every item

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

import json
from collections import Counter
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    table = op.create_table(
        "feed_category",
        sa.Column("feed_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("shown", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["feed_id"],
            ["feed.id"],
            name=op.f("fk_feed_category_feed_id_feed"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("feed_id", "name", name=op.f("pk_feed_category")),
    )
    # Backfill from the items already stored (once; afterwards the counts are maintained).
    counts: Counter[tuple[int, str]] = Counter()
    spelling: dict[tuple[int, str], str] = {}
    items = op.get_bind().execute(sa.text("SELECT feed_id, categories FROM item"))
    for feed_id, categories in items:
        names = json.loads(categories) if isinstance(categories, str) else categories
        for folded, shown in {c.casefold(): c for c in names or ()}.items():
            key = (feed_id, folded[:100])
            spelling.setdefault(key, shown[:100])
            counts[key] += 1
    rows = [
        {"feed_id": feed_id, "name": name, "shown": spelling[feed_id, name], "count": n}
        for (feed_id, name), n in counts.items()
    ]
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_table("feed_category")
