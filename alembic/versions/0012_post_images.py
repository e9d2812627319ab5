"""the post's image, shown large above its message

`item.image`: the item's picture (Media RSS, an image enclosure, JSON Feed's `image`, or the
body's first `<img>`). `subscription.images`: show it (the default; /preview SLUG image|link|off).
`delivery.image_url`: the picture a queued message previews.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("item", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("image", sqlmodel.sql.sqltypes.AutoString(length=2048), nullable=True)
        )
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("images", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("image_url", sqlmodel.sql.sqltypes.AutoString(length=2048), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.drop_column("image_url")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("images")
    with op.batch_alter_table("item", schema=None) as batch_op:
        batch_op.drop_column("image")
