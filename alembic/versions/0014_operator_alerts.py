"""operators hear about broken feeds: the feed's alert state, and messages about no item

`feed.failing_since`: the first failed poll of the current failure (None when healthy).
`feed.alert`: what operators were last told (failing, gone, moved), so nothing repeats.
`delivery.item_id` becomes optional: an operator alert is about a feed, not an item.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("failing_since", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )
        batch_op.add_column(
            sa.Column("alert", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True)
        )
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.alter_column("item_id", existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM delivery WHERE item_id IS NULL")
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.alter_column("item_id", existing_type=sa.Integer(), nullable=False)
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.drop_column("alert")
        batch_op.drop_column("failing_since")
