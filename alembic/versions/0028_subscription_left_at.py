"""left subscriptions are kept (issue 43): `subscription.left_at`

`/unsubscribe` used to delete the row, and every setting of the chat for that feed with it. Now
the row is marked with when it was left: an Undo brings it back within minutes, subscribing
again within `LEFT_SETTINGS_DAYS` restores its settings, and housekeeping deletes it after.
Rows of today's subscriptions stay as they are (NULL: subscribed).

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("left_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )


def downgrade() -> None:
    # Left subscriptions were unsubscribed: without the column they would count as followed.
    op.execute(sa.text("DELETE FROM subscription WHERE left_at IS NOT NULL"))
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("left_at")
