"""channels managed from a private chat, and who added a feed

`chat.managing`: the channel a private chat is managing (/channel), None for the chat itself.
`feed.added_by`: the Telegram user who added the feed from a chat (None: an operator or the
CLI), for the per-user limit and for operators to see.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("managing", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.add_column(sa.Column("added_by", sa.BigInteger(), nullable=True))
        batch_op.create_index("ix_feed_added_by", ["added_by"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.drop_index("ix_feed_added_by")
        batch_op.drop_column("added_by")
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("managing")
