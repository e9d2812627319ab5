"""reactions that tune (issue 46): `tuning` and `subscription.muted_until`

A 👍 or 👎 on a post's message moves the chat's weight of the post's feed and of each of its
categories (`tuning`, one row per chat, kind and name); /list shows them, /tuning reset clears
them. A 👎 offers "Mute FEED for a day": `subscription.muted_until`. Existing chats start with
no weights and nothing muted.

Revision ID: 0037
Revises: 0036
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0037"
down_revision: str | None = "0036"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tuning",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("shown", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("weight", sa.Integer(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", "kind", "name", name=op.f("pk_tuning")),
    )
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("muted_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("muted_until")
    op.drop_table("tuning")
