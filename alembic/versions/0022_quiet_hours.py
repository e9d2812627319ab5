"""quiet hours (issue 29): `chat.quiet`

`HH:MM-HH:MM` in the chat's time zone (/quiet 22:00-07:00), or None. Messages due in the window
are held in the outbox and released (or made a digest) when it ends.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("quiet", sa.String(length=11), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("quiet")
