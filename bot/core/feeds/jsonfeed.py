"""JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1) → the same `RawFeed` as RSS and Atom.

Blogs on micro.blog, some Hugo and Eleventy themes and many newsletters publish JSON Feed, often
beside RSS. Its items map onto ours directly: `id` is the key (then `url`), `content_html` (else
`content_text`, escaped, else `summary`) is the body, `tags` are the categories,
`date_published` (else `date_modified`) is the date, `authors` (1.1) or `author` (1.0) the byline,
`image` (else `banner_image`, else the body's first `<img>`) the picture.
The same limits apply as to RSS and Atom; anything that is not a JSON object with a JSON Feed
`version` and an `items` list is not a feed.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

from bot.core.feeds.entries import (
    MAX_ITEMS,
    MAX_TITLE_CHARS,
    NotAFeed,
    item_key,
    one_per_key,
    raw_entry,
)
from bot.core.text import clean_inline
from bot.core.types import RawEntry, RawFeed
from bot.core.urls import off_placeholder, safe_link

# Many real JSON Feeds (WordPress's plugin, several blogs) say http://, as the 1.0 draft did.
VERSION_PREFIXES = ("https://jsonfeed.org/version/1", "http://jsonfeed.org/version/1")
MEDIA_TYPES = ("application/feed+json", "application/json")


def looks_like_json(body: bytes, content_type: str | None) -> bool:
    """A JSON media type, or a body whose first visible character opens an object."""
    media_type = (content_type or "").split(";")[0].strip().lower()
    return media_type in MEDIA_TYPES or body.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def read_json_feed(body: bytes, url: str = "") -> RawFeed:
    """`url`: where the document came from, the base of relative item URLs."""
    try:
        document = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotAFeed(f"not a feed: invalid JSON ({exc})") from None  # json's messages are short
    if not isinstance(document, dict):
        raise NotAFeed("not a feed: JSON, but not an object")
    version = document.get("version")
    if not isinstance(version, str) or not version.strip().startswith(VERSION_PREFIXES):
        raise NotAFeed("not a feed: JSON, but no jsonfeed.org version")
    items = document.get("items")
    if not isinstance(items, list):
        raise NotAFeed("not a feed: JSON, but no items list")
    feed_author = _author(document)
    # Repeated ids inside one document: one copy stands, the same on every poll.
    entries, copies = one_per_key(
        read_item(item, position, feed_author, url)
        for position, item in enumerate(items[:MAX_ITEMS])
        if isinstance(item, dict)
    )
    return RawFeed(
        title=clean_inline(_text(document.get("title")))[:MAX_TITLE_CHARS],
        link=safe_link(_text(document.get("home_page_url"))),
        entries=entries,
        copies=copies,
        language=clean_inline(_text(document.get("language")))[:16] or None,
    )


def read_item(
    item: Mapping[str, Any], position: int, feed_author: str = "", base: str = ""
) -> RawEntry:
    """One item; without authors of its own, the feed's authors are its authors (1.1, 1.0).
    A relative `url` is resolved against `base` (the document's own URL)."""
    title = clean_inline(_text(item.get("title")))[:MAX_TITLE_CHARS]
    published = _date(item.get("date_published")) or _date(item.get("date_modified"))
    url = _text(item.get("url")) or _text(item.get("external_url"))
    tags = item.get("tags")
    body = _body(item)
    summary = html.escape(_text(item.get("summary")))
    return raw_entry(
        key=item_key((_text(item.get("id")), _text(item.get("url"))), title, published),
        title=title,
        link=safe_link(_absolute(url, base)),
        author=_author(item) or feed_author,
        published=published,
        terms=tags if isinstance(tags, list) else (),
        html=body or summary,
        position=position,
        images=(item.get("image"), item.get("banner_image")),
        full=bool(body),
        summary=summary,
    )


def _absolute(url: str, base: str) -> str:
    try:
        return off_placeholder(urljoin(base, url), base) if base and url else url
    except ValueError:  # malformed: `safe_link` refuses it
        return url


def _text(value: object) -> str:
    """Strings as they are, numbers (1.0 allowed numeric ids) as digits, anything else empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def _body(item: Mapping[str, Any]) -> str:
    """The full text (content_html, else content_text as paragraphs); "" when only a summary."""
    content_html = _text(item.get("content_html"))
    if content_html.strip():
        return content_html
    content_text = _text(item.get("content_text"))
    if content_text.strip():
        paragraphs = content_text.replace("\r\n", "\n").split("\n\n")
        return "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs if p.strip())
    return ""


def _author(holder: Mapping[str, Any]) -> str:
    """`authors` (1.1) or `author` (1.0) of a feed or an item, as one byline."""
    authors = holder.get("authors")
    candidates = authors if isinstance(authors, list) else [holder.get("author")]
    names = [_text(a.get("name")) for a in candidates if isinstance(a, dict)]
    return ", ".join(name for name in names if name.strip())


def _date(value: object) -> datetime | None:
    """RFC 3339, as the spec requires; a date without a zone is taken as UTC."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
        return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # not a date, or one past year 9999 once in UTC
        return None
