"""who was told about a post (issue 43): `ix_delivery_item_id` on `delivery (item_id)`

An edit goes only to chats sent a message about its post: that question is asked by post
(`store.told_about`), and pruning deletes a post's messages by post too. Without the index
both read the whole outbox.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-03
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_delivery_item_id", "delivery", ["item_id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_delivery_item_id", table_name="delivery")
