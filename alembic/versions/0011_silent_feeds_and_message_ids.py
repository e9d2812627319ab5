"""quiet subscriptions, and the Telegram message id of every delivered message

`subscription.silent` and `delivery.silent`: a feed's messages sent without a notification sound.
`delivery.message_id`: what Telegram answered, so an edit can reply to the original message.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("silent", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("silent", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("message_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.drop_column("message_id")
        batch_op.drop_column("silent")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("silent")
