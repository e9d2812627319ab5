"""the model's hourly budget shared by every process: `model_budget`, one row per share

`MODEL_MAX_CALLS_PER_HOUR` was counted in each process's memory, first come first served, so
one feed could spend it for everyone and N processes spent N budgets. A row per share (the
whole budget, chat-added feeds, one person's feeds, one feed) counts the calls of the current
clock hour across processes (core/polls/shares.py).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "model_budget",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("hour", sa.BigInteger(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("refused", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_model_budget")),
    )


def downgrade() -> None:
    op.drop_table("model_budget")
