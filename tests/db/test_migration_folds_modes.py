"""Migration 0026 folds each mode's pair of booleans into one column (issue 41): every
combination a chat could have set comes out as the same choice, and `message_format` and
`summary_mode` hold their default instead of NULL; the downgrade gives the pairs back."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Boolean, DateTime, column, insert, select, table
from sqlmodel import Session

from alembic import command
from bot.core.modes import Edits, Format, Preview, SummaryMode
from bot.db import store
from bot.db.engine import make_engine
from bot.db.migrate import alembic_config

NOW = datetime(2026, 12, 1, tzinfo=UTC)
FEED = table(
    "feed",
    *(column(n) for n in ("id", "slug", "url", "title", "status", "error_count")),
    *(column(n, Boolean) for n in ("trusted", "baseline_done")),
    *(column(n, DateTime(timezone=True)) for n in ("created_at", "next_check_at")),
)
CHAT = table(
    "chat",
    *(column(n) for n in ("id", "type", "title", "timezone")),
    *(column(n, Boolean) for n in ("active", "paused")),
    column("created_at", DateTime(timezone=True)),
)
OLD = ("edits", "minor_edits", "images", "preview", "silent")
SUBSCRIPTION = table(
    "subscription",
    *(column(n) for n in ("id", "chat_id", "feed_id", "message_format", "summary_mode")),
    *(column(n, Boolean) for n in OLD),
    *(column(n, JSON) for n in ("categories", "without_categories")),
    column("created_at", DateTime(timezone=True)),
)
# (edits, minor_edits, images, preview, silent, format, summary) → what the chat chose.
CASES = [
    ((True, True, True, False, False, None, None),
     (Edits.ALL, Preview.IMAGE, False, Format.SUMMARY, SummaryMode.EXTRACT)),
    ((True, False, False, True, True, "full", "model"),
     (Edits.SUBSTANTIVE, Preview.LINK, True, Format.FULL, SummaryMode.MODEL)),
    ((False, True, False, False, False, "title", None),
     (Edits.OFF, Preview.OFF, False, Format.TITLE, SummaryMode.EXTRACT)),
    ((False, False, True, True, False, "summary", None),  # both previews: the image won
     (Edits.OFF, Preview.IMAGE, False, Format.SUMMARY, SummaryMode.EXTRACT)),
]  # fmt: skip


def test_each_pair_of_switches_becomes_one_mode_keeping_the_choice(db_url: str) -> None:
    config = alembic_config(db_url)
    command.downgrade(config, "0025")
    engine = make_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                insert(FEED),
                [{"id": 1, "slug": "lumen", "url": "https://l.example/feed", "title": "Lumen",
                  "status": "ok", "error_count": 0, "trusted": True, "baseline_done": True,
                  "created_at": NOW, "next_check_at": NOW}],
            )  # fmt: skip
            connection.execute(
                insert(CHAT),
                [
                    {"id": n, "type": "private", "title": "", "timezone": "UTC", "active": True,
                     "paused": False, "created_at": NOW}
                    for n in range(1, len(CASES) + 1)
                ],
            )  # fmt: skip
            connection.execute(
                insert(SUBSCRIPTION),
                [
                    {"id": n, "chat_id": n, "feed_id": 1, "created_at": NOW, "categories": [],
                     "without_categories": [],
                     **dict(zip((*OLD, "message_format", "summary_mode"), old, strict=True))}
                    for n, (old, _) in enumerate(CASES, start=1)
                ],
            )  # fmt: skip
        command.upgrade(config, "head")
        with Session(engine) as session:
            readers = store.feed_audience(session, feed_id=1)
        got = [(r.edits, r.preview, r.silent, r.message_format, r.summary_mode) for r in readers]
        assert got == [want for _, want in CASES]
        command.downgrade(config, "0025")
        with engine.connect() as connection:
            rows = connection.execute(
                select(*SUBSCRIPTION.c[*OLD]).order_by(SUBSCRIPTION.c.id)
            ).all()
        # The fourth row had both previews on (image won) and `minor_edits` off under edits off
        # (meaningless): it comes back as the one choice it meant.
        back = [old[:5] for old, _ in CASES]
        back[3] = (False, True, True, False, False)
        assert [tuple(bool(v) for v in row) for row in rows] == back
    finally:
        engine.dispose()
