"""summaries and translations by the operator's language model (issue 28)

`subscription.summary_mode`: `model` (/summary FEED model) or None, the extractive summary.
`chat.translate`: /translate on. `model_text`: what the model wrote, one row per (post
version, language, kind, model, prompt) under its hash, so a thousand chats and a restart cost
one call.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(sa.Column("summary_mode", sa.String(length=16), nullable=True))
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("translate", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table(
        "model_text",
        sa.Column("key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("feed_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["feed_id"], ["feed.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("model_text", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_model_text_feed_id"), ["feed_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("model_text", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_model_text_feed_id"))
    op.drop_table("model_text")
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("translate")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("summary_mode")
