"""Settings for a test: the project's defaults with the test's database, short timeouts, and
nothing from a developer's .env or environment."""

from __future__ import annotations

from bot.runtime.config import Settings, load_settings


def make_settings(db_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "_env_file": None,
        "database_url": db_url,
        "poll_interval_seconds": 60,
        "fetch_timeout_seconds": 3.0,
        "connect_timeout_seconds": 2.0,
        "allow_private_feed_urls": False,
    }
    values.update(overrides)
    return load_settings(**values)
