"""albums, episodes and videos (issue 47): `delivery.media`

A message may be sent as an album of the post's pictures or as a playable audio or video file
(`bot/core/messages/media.py`); the outbox row keeps what to send, as JSON text. Existing rows
get NULL: they are sent as the messages they were.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("delivery") as batch:
        batch.add_column(sa.Column("media", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("delivery") as batch:
        batch.drop_column("media")
