"""Showing feed URLs without their secrets.

A private feed's URL often carries its credentials (`https://deploy:…@host/feed`) or a token in
its query (`?token=…`). Chats never see the user name and password; only operators see the
query; logs see neither.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "…"
_USERINFO = re.compile(r"(?i)\b(https?://)[^/\s@?#]+@")
_QUERY = re.compile(r"(?i)\b(https?://[^\s?#\"'<>]+)\?[^\s#\"'<>]+")


def shown_url(url: str, *, operator: bool = False) -> str:
    """`url` for a chat: never its user name or password; its query only for operators."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return _USERINFO.sub(r"\1", url) if operator else redact_urls(url)
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    query = parts.query if operator else (HIDDEN if parts.query else "")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_urls(text: str) -> str:
    """Every URL in a log line loses its credentials and its query string."""
    text = _USERINFO.sub(rf"\1{HIDDEN}@", text)
    return _QUERY.sub(rf"\1?{HIDDEN}", text)
