"""a feed's own pace, and the caching hint it gives

`feed.interval_seconds`: `feed set SLUG --interval 15m` (None: POLL_INTERVAL_SECONDS).
`feed.ttl_seconds`: the feed's RSS <ttl> as last read; with Cache-Control max-age it may lengthen
the interval up to an hour, never shorten it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.add_column(sa.Column("interval_seconds", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("ttl_seconds", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("feed", schema=None) as batch_op:
        batch_op.drop_column("ttl_seconds")
        batch_op.drop_column("interval_seconds")
