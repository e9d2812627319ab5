"""one column per subscription mode (issue 41): `edit_mode`, `preview_mode`

The pairs of booleans become one value each, keeping every chat's choice:
`edits`/`minor_edits` → `edit_mode` (`off` when edits were off, else `all` or `substantive`),
`images`/`preview` → `preview_mode` (`image` when images were on, else `link` or `off`).
`message_format` and `summary_mode` keep their names but hold their default instead of NULL
(`summary`, `extract`), so every mode is one non-null column (bot/core/modes.py).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STRING = sa.String(length=16)


def upgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.add_column(sa.Column("edit_mode", _STRING, server_default="all", nullable=False))
        batch_op.add_column(
            sa.Column("preview_mode", _STRING, server_default="image", nullable=False)
        )
    op.execute(
        "UPDATE subscription SET edit_mode = CASE WHEN NOT edits THEN 'off' "
        "WHEN NOT minor_edits THEN 'substantive' ELSE 'all' END"
    )
    op.execute(
        "UPDATE subscription SET preview_mode = CASE WHEN images THEN 'image' "
        "WHEN preview THEN 'link' ELSE 'off' END"
    )
    op.execute("UPDATE subscription SET message_format = 'summary' WHERE message_format IS NULL")
    op.execute("UPDATE subscription SET summary_mode = 'extract' WHERE summary_mode IS NULL")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.alter_column(
            "message_format",
            existing_type=_STRING,
            nullable=False,
            server_default="summary",
        )
        batch_op.alter_column(
            "summary_mode",
            existing_type=_STRING,
            nullable=False,
            server_default="extract",
        )
        batch_op.drop_column("edits")
        batch_op.drop_column("minor_edits")
        batch_op.drop_column("images")
        batch_op.drop_column("preview")


def downgrade() -> None:
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        for name in ("edits", "minor_edits", "images"):
            batch_op.add_column(
                sa.Column(name, sa.Boolean(), server_default=sa.true(), nullable=False)
            )
        batch_op.add_column(
            sa.Column("preview", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        for name in ("message_format", "summary_mode"):
            batch_op.alter_column(name, existing_type=_STRING, nullable=True, server_default=None)
    op.execute(
        "UPDATE subscription SET edits = (edit_mode <> 'off'), "
        "minor_edits = (edit_mode <> 'substantive'), images = (preview_mode = 'image'), "
        "preview = (preview_mode = 'link')"
    )
    op.execute("UPDATE subscription SET message_format = NULL WHERE message_format = 'summary'")
    op.execute("UPDATE subscription SET summary_mode = NULL WHERE summary_mode = 'extract'")
    with op.batch_alter_table("subscription", schema=None) as batch_op:
        batch_op.drop_column("edit_mode")
        batch_op.drop_column("preview_mode")
