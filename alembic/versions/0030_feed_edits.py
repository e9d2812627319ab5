"""`feed.edits`: whether a feed's edits are reported (`feed set SLUG --edits off`)

An aggregator (a planet) re-publishes the same upstream entries under new dates and texts
every few hours: 62 "Updated:" messages in 30 builds of one planet. The operator can mark such
a feed as new posts only; every existing feed keeps reporting its edits (the default, true).

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("edits", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.drop_column("edits")
