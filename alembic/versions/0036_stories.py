"""one story, one message (issue 46): `story` and `chat.duplicates`

A new post's message in a chat is remembered as a `story` (its canonical link's hash, its
title's and opening's words), read by (chat, link) and (chat, time) when a later post of
another feed may repeat it. `chat.duplicates` is how the chat wants such a post: folded into
the first message's "Also in" line (the default) or shown as a quiet reply to it. Existing
chats fold; no message sent before has a story, so nothing old is matched.

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0036"
down_revision: str | None = "0035"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "story",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("delivery_id", sa.Integer(), nullable=False),
        sa.Column("feed_id", sa.Integer(), nullable=False),
        sa.Column("link", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("opening", sa.Text(), nullable=False),
        sa.Column("also", sa.JSON(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["delivery.id"],
            name=op.f("fk_story_delivery_id_delivery"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["feed_id"], ["feed.id"], name=op.f("fk_story_feed_id_feed"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_story")),
    )
    op.create_index("ix_story_link", "story", ["chat_id", "link"], unique=False)
    op.create_index("ix_story_recent", "story", ["chat_id", "created_at"], unique=False)
    op.create_index(op.f("ix_story_delivery_id"), "story", ["delivery_id"], unique=False)
    op.create_index(op.f("ix_story_feed_id"), "story", ["feed_id"], unique=False)
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "duplicates",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                server_default="fold",
                nullable=False,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("duplicates")
    op.drop_index(op.f("ix_story_feed_id"), table_name="story")
    op.drop_index(op.f("ix_story_delivery_id"), table_name="story")
    op.drop_index("ix_story_recent", table_name="story")
    op.drop_index("ix_story_link", table_name="story")
    op.drop_table("story")
