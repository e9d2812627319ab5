"""Showing feed URLs without their secrets.

A private feed's URL often carries its credentials (`https://deploy:…@host/feed`) or a token in
its query (`?token=…`). Chats never see the user name and password; only operators see the
query; logs see neither.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, urlsplit, urlunsplit

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


def url_problem(url: str) -> str | None:
    """Why `url` is not a fetchable web address (None when it is): the one URL check, used by
    the fetcher on every hop, by the catalog before fetching, and by the parser for links."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError as exc:
        return f"invalid URL: {exc}"[:300]
    if parts.scheme.lower() not in ("http", "https"):
        return f"only http and https URLs are fetched, not {parts.scheme or 'none'!r}"
    if not parts.hostname:
        return "the URL has no host name"
    return None


def safe_link(value: object) -> str | None:
    """Only absolute http(s) links are kept: `javascript:` and friends never reach a message.

    Invisible format characters (bidi overrides, zero-width spaces) are percent-encoded, so
    `…/\u202egpj.exe` cannot display as a harmless `…/exe.jpg`.
    """
    if not value:
        return None
    link = str(value).strip()
    # Format (Cf), control and space characters are all unprintable but for " ": a printable
    # link without spaces skips the two passes over each character (a poll reads ~20 links).
    if not link.isprintable() or " " in link:
        link = "".join(quote(ch) if unicodedata.category(ch) == "Cf" else ch for ch in link)
        if any(ch.isspace() or ord(ch) < 32 for ch in link):
            return None
    if len(link) > 2000 or url_problem(link) is not None:
        return None
    return link


# Hosts a site generator writes when its address was never set (Jekyll's `url` left at
# "http://yourdomain.com"): no reader can open them. (example.com and localhost are left
# alone: test fixtures and local servers use them on purpose.)
_PLACEHOLDER_HOST = re.compile(
    r"^(?:www\.)?your-?(?:domain|site|blog|website)\.com$", re.IGNORECASE
)


def off_placeholder(link: str, base: str) -> str:
    """`link` on the host of `base` (the address the feed was fetched from) when the feed
    wrote a placeholder host for its posts (`http://yourdomain.com/2016/06/24/post.html`), as
    a relative link would be; as it is otherwise."""
    try:
        parts, home = urlsplit(link), urlsplit(base)
        host, home_host = parts.hostname or "", home.hostname or ""
    except ValueError:
        return link
    if not _PLACEHOLDER_HOST.match(host) or _PLACEHOLDER_HOST.match(home_host) or not home_host:
        return link
    if home.scheme not in ("http", "https"):
        return link
    return urlunsplit((home.scheme, home.netloc, parts.path, parts.query, parts.fragment))
