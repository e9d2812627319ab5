"""field filters (issue 29): `subscription.rules` and `chat.rules`

Rules as written (`title:release`, `-author:bot`, `text:/v2\\.\\d+/`), for one feed or for every
feed of a chat (`/filter all …`). None: no rules. Category and keyword filters are untouched.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rules", sa.JSON(), nullable=True))
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rules", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("rules")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("rules")
