"""Feed bytes + response headers → `ParsedFeed`.

feedparser is only ever handed a byte stream: given a string or bytes that look like a path or a
URL it would open local files or fetch over the network by itself (no timeout, no size cap).
"""

from __future__ import annotations

import calendar
import io
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser

from bot.core.feeds.entries import (
    MAX_HTML_CHARS,
    MAX_ITEMS,
    MAX_TITLE_CHARS,
    NotAFeed,
    chosen_copy,
    duration_seconds,
    item_key,
    one_per_key,
    raw_entry,
)
from bot.core.feeds.jsonfeed import looks_like_json, read_json_feed
from bot.core.feeds.split import vouched_split
from bot.core.feeds.xmlsafe import drop_declared_references, install_feed_parser
from bot.core.text import FINGERPRINT_VERSION, clean_inline, fingerprint, html_to_text
from bot.core.types import (
    Enclosure,
    MediaKind,
    ParsedFeed,
    ParsedItem,
    RawEntry,
    RawFeed,
    StoredItem,
)
from bot.core.urls import off_placeholder, safe_link

install_feed_parser()

# Headers feedparser reads to pick the encoding and resolve relative links; it wants them lowercase.
_USEFUL_HEADERS = ("content-type", "content-location", "content-language")
MAX_TEXT_CHARS = 100_000
TINY_IMAGE_BYTES = 2048  # an image file this small is a pixel or an icon, never a photo


def parse_feed(body: bytes, headers: Mapping[str, str] | None = None, url: str = "") -> ParsedFeed:
    """Parse a feed document; a bozo feed that still has entries is accepted with a warning."""
    return finish_feed(read_feed(body, headers, url))


def read_feed(
    body: bytes, headers: Mapping[str, str] | None = None, url: str = "", *, hashed: bool = True
) -> RawFeed:
    """The first pass: entries with keys and raw HTML, no text extraction yet. JSON Feed is read
    by `jsonfeed.py`, RSS and Atom by feedparser. `url`: where the document was fetched from,
    the base of relative entry links (Hexo, hand-made Atom) unless the response names another.
    `hashed`: each entry carries its bytes' hash when `split.py` vouches for the document (a
    later poll then reads only the entries whose bytes changed: `changed.py`).

    feedparser's HTML sanitizer and relative-URI resolver are off: Feedwatch never shows feed
    HTML (only html2text's text, escaped), and the two passes cost ~85% of parsing time.
    """
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    if looks_like_json(body, lowered.get("content-type")):
        return read_json_feed(body, url)
    response_headers = useful_headers(lowered)
    cut = vouched_split(body, response_headers, url) if hashed else None
    parsed = run_feedparser(body, response_headers)
    entries = parsed.get("entries") or []
    if not entries and (not parsed.get("version") or parsed.get("bozo")):
        reason = parsed.get("bozo_exception")
        detail = f": {type(reason).__name__}: {reason}" if reason else ""
        raise NotAFeed(f"not a feed{detail}"[:300])
    hashes: Sequence[str | None] = [None] * len(entries)
    if cut is not None and len(cut.hashes) == len(entries) and not parsed.get("bozo"):
        hashes = cut.hashes
    # Repeated GUIDs inside one document: one copy stands, the same on every poll.
    site = site_of(parsed, url)
    raw, copies = one_per_key(
        read_entry(e, n, url, hashes[n], site) for n, e in enumerate(entries[:MAX_ITEMS])
    )
    return document(parsed, raw, copies)


def useful_headers(lowered: Mapping[str, str]) -> dict[str, str]:
    """The response headers feedparser is given (lowercase keys)."""
    return {k: lowered[k] for k in _USEFUL_HEADERS if k in lowered}


def run_feedparser(body: bytes, response_headers: Mapping[str, str]) -> Any:
    """feedparser over `body`, as a byte stream, with its entity defences in front."""
    return feedparser.parse(
        io.BytesIO(drop_declared_references(body)),
        response_headers=dict(response_headers),
        sanitize_html=False,
        resolve_relative_uris=False,
    )


def document(
    parsed: Any, raw: tuple[RawEntry, ...], copies: Mapping[str, tuple[RawEntry, ...]]
) -> RawFeed:
    """The feed-level fields of a feedparser result, around the entries read from it."""
    feed_meta = parsed["feed"]  # feedparser always sets it
    warning = None
    if parsed.get("bozo"):
        warning = f"recoverable feed error: {parsed.get('bozo_exception')}"[:300]
    return RawFeed(
        title=clean_inline(str(feed_meta.get("title") or ""))[:MAX_TITLE_CHARS],
        link=safe_link(feed_meta.get("link")),
        entries=raw,
        warning=warning,
        ttl_seconds=_ttl(feed_meta.get("ttl")),
        language=clean_inline(str(feed_meta.get("language") or ""))[:16] or None,
        copies=copies,
    )


def _ttl(minutes: object) -> int | None:
    """RSS <ttl> is in minutes; anything but a positive whole number is ignored."""
    text = str(minutes or "").strip()
    return int(text) * 60 if text.isdigit() and 0 < int(text) < 10**6 else None


def finish_feed(raw: RawFeed, stored: Mapping[str, StoredItem] | None = None) -> ParsedFeed:
    """Turn entries into items with visible text and fingerprints.

    An entry whose raw HTML hashes as the stored one did reuses the stored text instead of
    running html2text again (deterministic, so identical), unless that text was rendered under
    another fingerprint version.
    """
    known = {
        key: item
        for key, item in (stored or {}).items()
        if item.content_hash and item.fingerprint_version == FINGERPRINT_VERSION
    }
    items = []
    for entry in raw.entries:
        if raw.copies and entry.key in raw.copies and entry.key in (stored or {}):
            entry = chosen_copy(entry, raw.copies, (stored or {})[entry.key].content_hash)
        cached = known.get(entry.key)
        if cached is not None and cached.content_hash == entry.content_hash:
            text = cached.text
            same = cached.title == entry.title  # then the fingerprint is the stored one too
            hashed = cached.fingerprint if same else fingerprint(entry.title, text)
        else:
            text = html_to_text(entry.html[:MAX_HTML_CHARS])[:MAX_TEXT_CHARS]
            hashed = fingerprint(entry.title, text)
        items.append(
            ParsedItem(
                key=entry.key,
                title=entry.title,
                link=entry.link,
                author=entry.author,
                published=entry.published,
                categories=entry.categories,
                text=text,
                fingerprint=hashed,
                position=entry.position,
                content_hash=entry.content_hash,
                image=entry.image,
                full=entry.full,
                excerpt_hash=entry.excerpt_hash,
                html=entry.html[:MAX_HTML_CHARS],
                excerpt=entry.excerpt,
                images=entry.images,
                enclosure=entry.enclosure,
                raw_hash=entry.raw_hash,
            )
        )
    return ParsedFeed(title=raw.title, link=raw.link, items=tuple(items), warning=raw.warning)


def read_entry(
    entry: Mapping[str, Any],
    position: int,
    base: str = "",
    raw_hash: str | None = None,
    site: str = "",
) -> RawEntry:
    """Reduce one feedparser entry to the fields Feedwatch stores and shows. A link still
    relative after the feed's own `xml:base` resolves against `base`, the document's URL (the
    key keeps the link as the feed wrote it, so no stored post is announced again). `site`:
    the feed's own address (`site_of`), for the pictures of posts that link elsewhere."""
    title = _title(entry)
    published = _published(entry)
    content = _content_html(entry)
    summary = str(entry.get("summary") or "")
    return raw_entry(
        key=item_key((entry.get("id"), entry.get("link")), title, published),
        title=title,
        link=safe_link(_absolute(entry.get("link"), base)),
        author=entry.get("author"),
        published=published,
        terms=(tag.get("term") for tag in entry.get("tags") or []),
        html=content or summary,
        position=position,
        images=_images(entry),
        full=bool(content),
        summary=summary,
        enclosure=_enclosure(entry),
        raw_hash=raw_hash,
        site=site,
    )


def site_of(parsed: Mapping[str, Any], url: str) -> str:
    """The feed's own site: its `<link>` (resolved against the document's URL), else that URL."""
    link = _absolute((parsed.get("feed") or {}).get("link"), url)
    return link if isinstance(link, str) and link.strip() else url


def _absolute(link: object, base: str) -> object:
    """`link` resolved against `base` when it is a relative reference, or moved to its host
    when it names a placeholder one (`off_placeholder`)."""
    if not isinstance(link, str) or not base:
        return link
    try:
        if urlsplit(link.strip()).scheme:
            return off_placeholder(link.strip(), base)
        return urljoin(base, link.strip())
    except ValueError:  # a malformed reference stays as it is (and `safe_link` refuses it)
        return link


def _images(entry: Mapping[str, Any]) -> list[object]:
    """Media RSS thumbnails and image content (YouTube, WordPress plugins), then image
    enclosures; `raw_entry` falls back to the body's first `<img>`."""
    found: list[object] = list(entry.get("media_thumbnail") or [])  # url, width, height
    for media in entry.get("media_content") or []:
        kind = str(media.get("medium") or media.get("type") or "")
        if kind == "image" or kind.startswith("image/"):
            found.append(media)
    for link in entry.get("enclosures") or []:
        if str(link.get("type") or "").startswith("image/") and not _tiny(link):
            found.append(link)
    return found


def _tiny(link: Mapping[str, Any]) -> bool:
    """An image enclosure declared under `TINY_IMAGE_BYTES` (a pixel, an icon): not a picture of
    the post. A length of 0 or 1 is the convention for "unknown", not a size."""
    length = str(link.get("length") or "").strip()
    return length.isdigit() and 1 < int(length) < TINY_IMAGE_BYTES


def _enclosure(entry: Mapping[str, Any]) -> Enclosure | None:
    """The entry's first audio or video file (a podcast's episode), with the iTunes duration
    and author; the declared length only when it is a positive number."""
    for link in entry.get("enclosures") or []:
        kind = str(link.get("type") or "").split(";")[0].strip().lower()
        url = safe_link(str(link.get("href") or link.get("url") or "").strip())
        if url is None or not kind.startswith(("audio/", "video/")):
            continue
        length = str(link.get("length") or "").strip()
        author = clean_inline(str(entry.get("itunes_author") or entry.get("author") or ""))
        return Enclosure(
            url,
            MediaKind.AUDIO if kind.startswith("audio/") else MediaKind.VIDEO,
            length=int(length) if length.isdigit() and int(length) > 0 else None,
            duration=duration_seconds(entry.get("itunes_duration")),
            performer=author[:MAX_TITLE_CHARS] or None,
        )
    return None


def _title(entry: Mapping[str, Any]) -> str:
    raw = str(entry.get("title") or "")
    detail = entry.get("title_detail") or {}
    if detail.get("type") in ("text/html", "application/xhtml+xml"):
        raw = html_to_text(raw)
    return clean_inline(raw)[:MAX_TITLE_CHARS]


_MARKUP = ("text/html", "application/xhtml+xml")


def _content_html(entry: Mapping[str, Any]) -> str:
    """The fullest content the entry offers (content:encoded, Atom content); "" when it has
    only a summary. feedparser files Media RSS `<media:description>` (an image's alt text on
    Mastodon, a video's blurb) under `content` as plain text: plain-text content is the body
    only when the entry has no markup content and no summary of its own."""
    contents = [c for c in entry.get("content") or [] if str(c.get("value") or "").strip()]
    marked = [c for c in contents if str(c.get("type") or "text/html") in _MARKUP]
    if not marked and (entry.get("summary") or "").strip():
        return ""
    best = ""
    for content in marked or contents:
        value = str(content.get("value") or "")
        if len(value) > len(best):
            best = value
    return best


def _published(entry: Mapping[str, Any]) -> datetime | None:
    for name in ("published_parsed", "updated_parsed", "created_parsed"):
        value = entry.get(name)
        if isinstance(value, time.struct_time):
            try:
                return datetime.fromtimestamp(calendar.timegm(value), tz=UTC)
            except (OverflowError, ValueError, OSError):
                continue
    return None
