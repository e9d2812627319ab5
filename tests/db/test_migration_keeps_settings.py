"""Migrations 0019–0023 (full text, the model, edit weight, quiet hours, field rules) keep what
chats had set (issue 29): a database at the schema before them, with category and keyword
filters and every per-subscription and per-chat setting, comes out with all of it intact and
the new settings at their defaults."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Boolean, DateTime, column, insert, table
from sqlmodel import Session

from alembic import command
from bot.core.modes import Edits, Format, Preview, SummaryMode
from bot.db import store
from bot.db.engine import make_engine
from bot.db.migrate import alembic_config

NOW = datetime(2026, 11, 1, tzinfo=UTC)
FEED = table(
    "feed",
    *(column(n) for n in ("id", "slug", "url", "title", "status", "error_count")),
    *(column(n, Boolean) for n in ("trusted", "baseline_done")),
    *(column(n, DateTime(timezone=True)) for n in ("created_at", "next_check_at")),
)
CHAT = table(
    "chat",
    *(column(n) for n in ("id", "type", "title", "timezone", "language")),
    *(column(n, Boolean) for n in ("active", "paused")),
    column("created_at", DateTime(timezone=True)),
)
SUBSCRIPTION = table(
    "subscription",
    *(column(n) for n in ("id", "chat_id", "feed_id", "digest", "digest_at", "message_format")),
    *(
        column(n, JSON)
        for n in ("categories", "without_categories", "keywords", "without_keywords")
    ),
    *(column(n, Boolean) for n in ("edits", "preview", "silent", "images")),
    column("created_at", DateTime(timezone=True)),
)


def test_every_filter_and_setting_survives_the_upgrade(db_url: str) -> None:
    config = alembic_config(db_url)
    command.downgrade(config, "0018")
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
                [{"id": 7, "type": "group", "title": "G", "timezone": "Europe/Madrid",
                  "language": "es", "active": True, "paused": False, "created_at": NOW}],
            )  # fmt: skip
            connection.execute(
                insert(SUBSCRIPTION),
                [{"id": 1, "chat_id": 7, "feed_id": 1, "digest": "daily", "digest_at": "08:30",
                  "message_format": "full", "categories": ["Blog"],
                  "without_categories": ["Press Release"], "keywords": ["compiler"],
                  "without_keywords": ["webinar"], "edits": False, "preview": True,
                  "silent": True, "images": False, "created_at": NOW}],
            )  # fmt: skip
        command.upgrade(config, "head")
        with Session(engine) as session:
            (reader,) = store.feed_audience(session, feed_id=1)
            feed = store.get_feed(session, slug="lumen")
        assert reader.categories.include == ("Blog",)
        assert reader.categories.exclude == ("Press Release",)
        assert (reader.keywords.include, reader.keywords.exclude) == (("compiler",), ("webinar",))
        assert (reader.edits, reader.preview, reader.silent) == (Edits.OFF, Preview.LINK, True)
        assert (reader.digest, reader.message_format) == (True, Format.FULL)
        assert (reader.language, reader.timezone) == ("es", "Europe/Madrid")
        # The new settings, at their defaults.
        assert reader.rules == () and reader.chat_rules == ()
        assert reader.quiet is None and not reader.translate
        assert reader.summary_mode is SummaryMode.EXTRACT
        assert feed is not None and not feed.full_text and not feed.excerpt_only
    finally:
        engine.dispose()
