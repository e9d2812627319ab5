"""the fingerprint version each stored item was fingerprinted under

Rows stored before this revision get "" (unknown): the next poll compares their words with the
new rendering and re-baselines them silently (bot/core/detection/detect.py).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("item", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "fingerprint_version",
                sqlmodel.sql.sqltypes.AutoString(length=40),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("item", schema=None) as batch_op:
        batch_op.drop_column("fingerprint_version")
