"""Settings from the environment (and an optional `.env`), validated once at start.

Every value has a default except the bot token, which only commands that talk to Telegram need.
A bad value becomes one line naming the variable (`SettingsError`), never a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.runtime.eventloop import LoopName

DEFAULT_SQLITE_PATH = Path("data") / "feedwatch.db"


class SettingsError(Exception):
    """A configuration value is missing or invalid; the message names the variable."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    telegram_bot_token: SecretStr | None = None
    telegram_api_base_url: str = "https://api.telegram.org/bot"
    database_url: str = f"sqlite:///{DEFAULT_SQLITE_PATH}"
    poll_interval_seconds: int = Field(default=300, ge=1)
    allow_private_feed_urls: bool = False
    bot_admin_ids: Annotated[frozenset[int], NoDecode] = frozenset()
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    log_format: Literal["text", "json"] = "text"
    max_feed_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    fetch_timeout_seconds: float = Field(default=30.0, gt=0)
    connect_timeout_seconds: float = Field(default=10.0, gt=0)
    poll_concurrency: int = Field(default=10, ge=1, le=200)
    # A changed feed's unchanged items (the same bytes as last time) are not parsed again
    # (core/feeds/changed.py); off: every changed document is read whole.
    quick_parse: bool = True
    prune_after_days: int = Field(default=90, ge=1)
    # Stored items per feed: past this, the oldest absent from the feed are forgotten first.
    max_items_per_feed: int = Field(default=500, ge=20)
    delivery_max_attempts: int = Field(default=8, ge=1)
    delivery_retry_seconds: float = Field(default=5.0, gt=0)
    lease_seconds: int = Field(default=120, ge=1)
    telegram_rate_per_second: float = Field(default=30.0, gt=0)
    telegram_group_rate_per_minute: float = Field(default=20.0, gt=0)
    delivery_concurrency: int = Field(default=1, ge=1, le=64)
    # uvloop: a fan-out's many small callbacks cost less (runtime/eventloop.py); asyncio to compare.
    event_loop: LoopName = "uvloop"
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"  # noqa: S104 - a container listens on all interfaces
    webhook_port: int = Field(default=8443, ge=1, le=65535)
    webhook_secret: SecretStr | None = None
    # Connections the webhook server keeps open at once (at most half the descriptor limit):
    # Telegram opens up to 40 by default; a slowloris's wait their turn (telegram/hookserver.py).
    webhook_max_connections: int = Field(default=100, ge=1, le=10_000)
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    metrics_listen: str = "127.0.0.1"  # a container's scraper: 0.0.0.0
    max_subscriptions_per_chat: int = Field(default=50, ge=1)
    # Posts one chat may follow at once (/follow, the "Follow changes" button).
    max_follows_per_chat: int = Field(default=20, ge=1, le=1000)
    # A post that left its feed from between others and whose page answered 404/410 is checked
    # again this much later before chats hear it was withdrawn (at most a day).
    withdrawal_recheck_seconds: int = Field(default=21_600, ge=1, le=86_400)
    # Leaving a feed: the answer's Undo works this long; the chat's settings for the feed are
    # kept this long and come back on resubscribe (core/rules/leaving.py).
    unsubscribe_undo_minutes: int = Field(default=10, ge=1, le=1440)
    left_settings_days: int = Field(default=30, ge=1)
    # Who may add a feed by sending its address (/subscribe URL): everyone, or operators only.
    feed_adding: Literal["everyone", "operators"] = "everyone"
    max_feeds_per_user: int = Field(default=20, ge=0)
    max_feeds: int = Field(default=10_000, ge=1)
    # Flood guard: more new posts than this from one poll of one feed become one list per chat.
    max_new_per_poll: int = Field(default=10, ge=1)
    max_categories_per_filter: int = Field(default=50, ge=1)
    commands_per_minute: int = Field(default=30, ge=1)
    feed_alert_after_seconds: float = Field(default=86_400.0, ge=0)
    # Full-text feeds: how long a new post's message waits for its page before it goes out
    # with the feed's excerpt (the page is still stored when it comes).
    full_text_wait_seconds: float = Field(default=5.0, ge=0, le=60)
    # A post's page is read up to this many bytes (its top: the message needs no more); the
    # article is extracted from a bounded tree in a worker process (services/pageworkers.py).
    full_text_max_bytes: int = Field(default=512 * 1024, ge=16 * 1024, le=10 * 1024 * 1024)
    # The operator's language model (any OpenAI-compatible chat-completions server): off
    # unless MODEL_API_URL is set; nothing is ever sent anywhere without it.
    model_api_url: str | None = None
    model_api_key: SecretStr | None = None
    model_name: str = ""
    model_prompt_file: Path | None = None  # its text replaces the summary instruction
    model_timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    model_max_calls_per_hour: int = Field(default=200, ge=0)  # every process together
    # Shares of it a chat-added feed draws on too (core/polls/shares.py): all chat-added feeds
    # together, everything one person added, the feed itself. Operator feeds use the rest.
    model_chat_feeds_share: float = Field(default=0.5, ge=0, le=1)
    model_user_share: float = Field(default=0.2, ge=0, le=1)
    model_feed_share: float = Field(default=0.1, ge=0, le=1)
    # Long `full` posts as public Telegraph pages their messages link to (issue 47): off.
    telegraph_enabled: bool = False
    telegraph_access_token: SecretStr | None = None  # None: one account, created and stored
    telegraph_api_url: str = "https://api.telegra.ph"
    telegraph_timeout_seconds: float = Field(default=10.0, gt=0, le=60)

    @field_validator("log_level", "feed_adding", mode="before")
    @classmethod
    def _case(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value
        return value.upper() if info.field_name == "log_level" else value.lower()

    @field_validator("bot_admin_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        if isinstance(value, str):
            return frozenset(int(part) for part in value.replace(" ", "").split(",") if part)
        if isinstance(value, int):
            return frozenset({value})
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _strong_secret(cls, value: SecretStr | None) -> SecretStr | None:
        """Telegram allows 1-256 of A-Z a-z 0-9 _ -; a guessable one is no secret."""
        if value is None:
            return None
        secret = value.get_secret_value()
        if not re.fullmatch(r"[A-Za-z0-9_-]{16,256}", secret):
            raise ValueError("must be 16 to 256 letters, digits, '_' or '-'")
        return value

    @model_validator(mode="after")
    def _model_named(self) -> Settings:
        if self.model_api_url and not self.model_name.strip():
            raise ValueError("MODEL_NAME must name the model when MODEL_API_URL is set")
        if self.model_api_url and not self.model_api_url.startswith(("http://", "https://")):
            raise ValueError("MODEL_API_URL must be an http(s) URL")
        if not self.telegraph_api_url.startswith(("http://", "https://")):
            raise ValueError("TELEGRAPH_API_URL must be an http(s) URL")
        return self

    @field_validator("database_url")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        if not value.startswith(("sqlite://", "postgresql")):
            raise ValueError("must start with sqlite:/// or postgresql+psycopg://")
        return value

    def secrets(self) -> list[str]:
        """Every configured secret, for the log filter: token, webhook secret, DB password."""
        keys = self.telegram_bot_token, self.webhook_secret, self.model_api_key
        found = [v.get_secret_value() for v in (*keys, self.telegraph_access_token) if v]
        try:
            password = make_url(self.database_url).password
        except ArgumentError:
            password = None
        if password:
            found.append(str(password))
        return [secret for secret in found if len(secret) >= 4]

    @property
    def token(self) -> str:
        """The bot token; raises a one-line error when it is not configured."""
        if self.telegram_bot_token is None or not self.telegram_bot_token.get_secret_value():
            raise SettingsError("TELEGRAM_BOT_TOKEN is not set: get one from @BotFather")
        return self.telegram_bot_token.get_secret_value()


def load_settings(**overrides: object) -> Settings:
    """Build the settings, turning pydantic's report into one line per bad variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = str(error["loc"][0]).upper() if error["loc"] else "settings"
            problems.append(f"{name}: {error['msg']}")
        raise SettingsError("invalid configuration: " + "; ".join(problems)) from None
