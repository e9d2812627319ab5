"""Logging set-up: one line per event, optional JSON, and no secret ever written.

httpx logs every request URL at INFO and PTB's URLs contain the token; at DEBUG PTB logs every
call's parameters (the webhook secret among them). So httpx is raised to WARNING *and* every
record, at every level, passes through a filter that replaces each secret wherever it appears
(messages, arguments, tracebacks) and strips credentials and query strings from URLs.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

from bot.core.urls import redact_urls

REDACTED = "[REDACTED-TOKEN]"


class RedactFilter(logging.Filter):
    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return redact_urls(text)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redact(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self.redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


class OneLineNetworkErrors(logging.Filter):
    """A network error is a fact about the outside world, not a bug: one line, no traceback
    (PTB logs e.g. its last getUpdates during a Telegram outage with a full traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and _is_network_error(exc):
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc})"
            record.args, record.exc_info, record.exc_text = None, None, None
        return True


def _is_network_error(exc: BaseException) -> bool:
    return any(
        cls.__module__ == "telegram.error" and cls.__name__ == "NetworkError"
        for cls in type(exc).__mro__
    )


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_text:
            payload["exception"] = record.exc_text
        return json.dumps(payload, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "text", secrets: list[str] | None = None) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(OneLineNetworkErrors())
    handler.addFilter(RedactFilter(secrets or []))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for noisy in ("httpx", "httpcore", "apscheduler", "alembic"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
