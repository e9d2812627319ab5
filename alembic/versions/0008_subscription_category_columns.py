"""subscription.include/exclude renamed categories/without_categories, beside keywords and
without_keywords

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.alter_column("include", new_column_name="categories")
        batch_op.alter_column("exclude", new_column_name="without_categories")


def downgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.alter_column("categories", new_column_name="include")
        batch_op.alter_column("without_categories", new_column_name="exclude")
