"""full text for excerpt-only feeds (issue 27)

`feed.full_text`: read each new post's page and summarise the article (`feed set SLUG
--full-text on`). `feed.excerpt_only`: the last parse found only excerpts (a hint for
operators). `article`: what a post's page gave, one row per item (its text and image, or why
there is none), so a page is fetched once per post, not once per chat or poll.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("full_text", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("excerpt_only", sa.Boolean(), nullable=True))
    op.create_table(
        "article",
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("html", sa.Text(), nullable=True),
        sa.Column("image", sqlmodel.sql.sqltypes.AutoString(length=2048), nullable=True),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True),
        sa.Column("fetched_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["item_id"], ["item.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("item_id"),
    )


def downgrade() -> None:
    op.drop_table("article")
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.drop_column("excerpt_only")
        batch_op.drop_column("full_text")
