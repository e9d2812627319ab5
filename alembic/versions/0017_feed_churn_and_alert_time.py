"""a feed's churn count and when its operators were last alerted

`feed.churn_polls`: consecutive polls that stored (almost) every item as new
(core/detection/churn.py).
`feed.alerted_at`: when the operators were last told about the feed (a feed that keeps moving
is announced at most once a day).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.add_column(sa.Column("churn_polls", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("alerted_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.drop_column("alerted_at")
        batch_op.drop_column("churn_polls")
