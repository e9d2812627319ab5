"""the outbox in order (issue 30): `ix_delivery_queue` on `delivery (status, id)`

Claiming chats walks pending messages in id order and stops at the claim's size, instead of
ordering every waiting chat by its oldest message at each claim.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_delivery_queue", "delivery", ["status", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_delivery_queue", table_name="delivery")
