"""the ranked digest across feeds (issue 46): `chat.digest_top`

`/digest all daily 08:00 [top N]` gives every feed of the chat that daily digest and sets
`chat.digest_top` to N: the chat's digests due together are then one message, ranked, its N
first with their summaries (core/messages/ranked.py). NULL, every existing chat: one digest per
feed, as before.

Revision ID: 0038
Revises: 0037
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0038"
down_revision: str | None = "0037"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("digest_top", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("digest_top")
