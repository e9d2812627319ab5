"""Feed bytes + response headers → `ParsedFeed`.

feedparser is only ever handed a byte stream: given a string or bytes that look like a path or a
URL it would open local files or fetch over the network by itself (no timeout, no size cap).
"""

from __future__ import annotations

import calendar
import hashlib
import io
import time
import unicodedata
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import feedparser

from bot.core.model import ParsedFeed, ParsedItem, RawEntry, RawFeed, StoredItem
from bot.core.text import FINGERPRINT_VERSION, clean_inline, fingerprint, html_to_text
from bot.core.urls import url_problem
from bot.core.xmlsafe import install_feed_parser

install_feed_parser()

# Headers feedparser reads to pick the encoding and resolve relative links; it wants them lowercase.
_USEFUL_HEADERS = ("content-type", "content-location", "content-language")
MAX_TITLE_CHARS = 1000
MAX_TEXT_CHARS = 100_000
# html2text is pure Python and slow on huge inputs (a hostile item of 1 MB of entity references
# took a second); no real post needs more markup than this to yield MAX_TEXT_CHARS of text.
MAX_HTML_CHARS = 400_000
# Real feeds carry 10-50 items; a document with thousands is hostile or broken. Only the first
# (newest) ones are read, which bounds the time and memory one poll can take.
MAX_ITEMS = 1000


class NotAFeed(ValueError):
    """The body parsed into nothing feed-like (an HTML error page, JSON, garbage)."""


def parse_feed(body: bytes, headers: Mapping[str, str] | None = None) -> ParsedFeed:
    """Parse a feed document; a bozo feed that still has entries is accepted with a warning."""
    return finish_feed(read_feed(body, headers))


def read_feed(body: bytes, headers: Mapping[str, str] | None = None) -> RawFeed:
    """feedparser's pass: entries with keys and raw HTML, no text extraction yet.

    feedparser's HTML sanitizer and relative-URI resolver are off: Feedwatch never shows feed
    HTML (only html2text's text, escaped), and the two passes cost ~85% of parsing time.
    """
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    response_headers = {k: lowered[k] for k in _USEFUL_HEADERS if k in lowered}
    parsed = feedparser.parse(
        io.BytesIO(body),
        response_headers=response_headers,
        sanitize_html=False,
        resolve_relative_uris=False,
    )
    entries = parsed.get("entries") or []
    if not entries and (not parsed.get("version") or parsed.get("bozo")):
        reason = parsed.get("bozo_exception")
        detail = f": {type(reason).__name__}: {reason}" if reason else ""
        raise NotAFeed(f"not a feed{detail}"[:300])
    feed_meta = parsed["feed"]  # feedparser always sets it
    raw: list[RawEntry] = []
    seen: set[str] = set()
    for position, entry in enumerate(entries[:MAX_ITEMS]):
        item = read_entry(entry, position)
        if item.key in seen:  # duplicate GUIDs inside one document: the first one wins
            continue
        seen.add(item.key)
        raw.append(item)
    warning = None
    if parsed.get("bozo"):
        warning = f"recoverable feed error: {parsed.get('bozo_exception')}"[:300]
    return RawFeed(
        title=clean_inline(str(feed_meta.get("title") or ""))[:MAX_TITLE_CHARS],
        link=safe_link(feed_meta.get("link")),
        entries=tuple(raw),
        warning=warning,
    )


def finish_feed(raw: RawFeed, stored: Mapping[str, StoredItem] | None = None) -> ParsedFeed:
    """Turn entries into items with visible text and fingerprints.

    An entry whose raw HTML hashes as the stored one did reuses the stored text instead of
    running html2text again (deterministic, so identical), unless that text was rendered under
    another fingerprint version.
    """
    known = {
        key: (item.content_hash, item.text)
        for key, item in (stored or {}).items()
        if item.content_hash and item.fingerprint_version == FINGERPRINT_VERSION
    }
    items = []
    for entry in raw.entries:
        cached = known.get(entry.key)
        if cached is not None and cached[0] == entry.content_hash:
            text = cached[1]
        else:
            text = html_to_text(entry.html[:MAX_HTML_CHARS])[:MAX_TEXT_CHARS]
        items.append(
            ParsedItem(
                key=entry.key,
                title=entry.title,
                link=entry.link,
                author=entry.author,
                published=entry.published,
                categories=entry.categories,
                text=text,
                fingerprint=fingerprint(entry.title, text),
                position=entry.position,
                content_hash=entry.content_hash,
            )
        )
    return ParsedFeed(title=raw.title, link=raw.link, items=tuple(items), warning=raw.warning)


def read_entry(entry: Mapping[str, Any], position: int) -> RawEntry:
    """Reduce one feedparser entry to the fields Feedwatch stores and shows."""
    title = _title(entry)
    html = _content_html(entry)
    published = _published(entry)
    return RawEntry(
        key=item_key(entry, title, published),
        title=title,
        link=safe_link(entry.get("link")),
        author=clean_inline(str(entry.get("author") or ""))[:200] or None,
        published=published,
        categories=_categories(entry),
        html=html,
        content_hash=hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest(),
        position=position,
    )


def item_key(entry: Mapping[str, Any], title: str, published: datetime | None) -> str:
    """GUID/id first, then the link, then a hash of title and date: stable across polls."""
    for candidate in (entry.get("id"), entry.get("link")):
        if candidate and str(candidate).strip():
            return str(candidate).strip()[:1000]
    stamp = published.isoformat() if published else ""
    digest = hashlib.sha256(f"{title}\x1f{stamp}".encode()).hexdigest()
    return f"sha256:{digest}"


def safe_link(value: object) -> str | None:
    """Only absolute http(s) links are kept: `javascript:` and friends never reach a message.

    Invisible format characters (bidi overrides, zero-width spaces) are percent-encoded, so
    `…/\u202egpj.exe` cannot display as a harmless `…/exe.jpg`.
    """
    if not value:
        return None
    link = "".join(
        quote(ch) if unicodedata.category(ch) == "Cf" else ch for ch in str(value).strip()
    )
    if url_problem(link) is not None:
        return None
    if any(ch.isspace() or ord(ch) < 32 for ch in link) or len(link) > 2000:
        return None
    return link


def _title(entry: Mapping[str, Any]) -> str:
    raw = str(entry.get("title") or "")
    detail = entry.get("title_detail") or {}
    if detail.get("type") in ("text/html", "application/xhtml+xml"):
        raw = html_to_text(raw)
    return clean_inline(raw)[:MAX_TITLE_CHARS]


def _content_html(entry: Mapping[str, Any]) -> str:
    """The fullest body the entry offers: content:encoded / atom content, else the summary."""
    best = ""
    for content in entry.get("content") or []:
        value = str(content.get("value") or "")
        if len(value) > len(best):
            best = value
    return best or str(entry.get("summary") or "")


def _published(entry: Mapping[str, Any]) -> datetime | None:
    for name in ("published_parsed", "updated_parsed", "created_parsed"):
        value = entry.get(name)
        if isinstance(value, time.struct_time):
            try:
                return datetime.fromtimestamp(calendar.timegm(value), tz=UTC)
            except (OverflowError, ValueError, OSError):
                continue
    return None


def _categories(entry: Mapping[str, Any]) -> tuple[str, ...]:
    names: dict[str, str] = {}
    for tag in entry.get("tags") or []:
        term = clean_inline(str(tag.get("term") or ""))[:100]
        if term and term.casefold() not in names:
            names[term.casefold()] = term
    return tuple(names.values())[:50]
