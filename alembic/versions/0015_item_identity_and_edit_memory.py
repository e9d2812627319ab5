"""what detection on real feeds needs to remember of an item

`canon_key`, `canon_link`, `canon_title`: hashes an item is found by when its feed re-keys it
(bot/core/detection/identity.py), each indexed per feed; existing rows get them computed here.
`full` and `excerpt_hash`: whether the stored text was the full text, and the summary's hash, so
an excerpt is compared with an excerpt (unknown for existing rows). `volatile`: places where the
item's numbers changed before (counters, bot/core/detection/edits.py).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op
from bot.core.detection.identity import identity_of

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_HASH = sqlmodel.sql.sqltypes.AutoString(length=64)


def upgrade() -> None:
    with op.batch_alter_table("item", schema=None) as batch_op:
        batch_op.add_column(sa.Column("canon_key", _HASH, nullable=False, server_default=""))
        batch_op.add_column(sa.Column("canon_link", _HASH, nullable=True))
        batch_op.add_column(sa.Column("canon_title", _HASH, nullable=True))
        batch_op.add_column(sa.Column("full", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("excerpt_hash", _HASH, nullable=True))
        batch_op.add_column(sa.Column("volatile", sa.JSON(), nullable=True))
        batch_op.create_index("ix_item_canon_key", ["feed_id", "canon_key"], unique=False)
        batch_op.create_index("ix_item_canon_link", ["feed_id", "canon_link"], unique=False)
        batch_op.create_index("ix_item_canon_title", ["feed_id", "canon_title"], unique=False)
    item = sa.table(
        "item",
        sa.column("id", sa.Integer()),
        sa.column("key", sa.String()),
        sa.column("link", sa.String()),
        sa.column("title", sa.String()),
        sa.column("published_at", sqlmodel.sql.sqltypes.UTCDateTime()),
        sa.column("canon_key", sa.String()),
        sa.column("canon_link", sa.String()),
        sa.column("canon_title", sa.String()),
    )
    bind = op.get_bind()
    rows = bind.execute(sa.select(item.c.id, item.c.key, item.c.link, item.c.title,
                                  item.c.published_at)).all()  # fmt: skip
    updates = []
    for row_id, key, link, title, published in rows:
        ident = identity_of(key, link, title or "", published)
        updates.append(
            {"row_id": row_id, "ck": ident.canon_key, "cl": ident.canon_link,
             "ct": ident.canon_title}
        )  # fmt: skip
    statement = (
        item.update()
        .where(item.c.id == sa.bindparam("row_id"))
        .values(
            canon_key=sa.bindparam("ck"),
            canon_link=sa.bindparam("cl"),
            canon_title=sa.bindparam("ct"),
        )
    )
    for start in range(0, len(updates), 1000):
        bind.execute(statement, updates[start : start + 1000])


def downgrade() -> None:
    with op.batch_alter_table("item", schema=None) as batch_op:
        batch_op.drop_index("ix_item_canon_title")
        batch_op.drop_index("ix_item_canon_link")
        batch_op.drop_index("ix_item_canon_key")
        batch_op.drop_column("volatile")
        batch_op.drop_column("excerpt_hash")
        batch_op.drop_column("full")
        batch_op.drop_column("canon_title")
        batch_op.drop_column("canon_link")
        batch_op.drop_column("canon_key")
