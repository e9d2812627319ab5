"""followed posts and withdrawal checks: `follow`, `post_check`, `delivery.follow_label`

A chat may follow one post's changes for a period (`follow`); a followed post that left its
feed is read on its page, whose last reading and validators live in `post_check`, beside the
state of a post's withdrawal check (pending checks survive a restart). A new post's message
carries a "Follow changes" button, its label in the chat's language (`delivery.follow_label`).
Nothing existing changes: every chat keeps its data.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "follow",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["item.id"], name=op.f("fk_follow_item_id_item"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_follow")),
        sa.UniqueConstraint("chat_id", "item_id", name=op.f("uq_follow_chat_id")),
    )
    with op.batch_alter_table("follow", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_follow_chat_id"), ["chat_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_follow_item_id"), ["item_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_follow_until"), ["until"], unique=False)
    op.create_table(
        "post_check",
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("etag", sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=True),
        sa.Column("last_modified", sqlmodel.sql.sqltypes.AutoString(length=256), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("page_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("gone_since", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("misses", sa.Integer(), nullable=False),
        sa.Column("check_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("withdrawn", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["item.id"], name=op.f("fk_post_check_item_id_item"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("item_id", name=op.f("pk_post_check")),
    )
    with op.batch_alter_table("post_check", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_post_check_check_at"), ["check_at"], unique=False)
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("follow_label", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.drop_column("follow_label")
    op.drop_table("post_check")
    op.drop_table("follow")
