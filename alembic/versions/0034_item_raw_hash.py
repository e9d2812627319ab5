"""parse what changed (issue 48): `item.raw_hash`

The hash of the bytes an item's stored fields were read from (`bot/core/feeds/split.py`): a
later poll whose document holds the same bytes takes the row for the item instead of running
feedparser over it (`bot/core/feeds/changed.py`). Existing rows get NULL: their items are read
once more, and the poll stores their hashes.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("item") as batch:
        batch.add_column(sa.Column("raw_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("item") as batch:
        batch.drop_column("raw_hash")
