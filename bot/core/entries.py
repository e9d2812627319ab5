"""What every feed format's entries come down to: one key, bounded fields, the raw HTML's hash.

feedparser's RSS and Atom (`parse.py`) and JSON Feed (`jsonfeed.py`) both build their entries
here, so every format obeys the same limits and the same identity rule.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from bot.core.model import RawEntry
from bot.core.text import clean_inline

MAX_TITLE_CHARS = 1000
# Real feeds carry 10-50 items; a document with thousands is hostile or broken. Only the first
# (newest) ones are read, which bounds the time and memory one poll can take.
MAX_ITEMS = 1000
MAX_KEY_CHARS = 1000
MAX_AUTHOR_CHARS = 200
MAX_CATEGORY_CHARS = 100
MAX_CATEGORIES = 50


class NotAFeed(ValueError):
    """The body parsed into nothing feed-like (an HTML error page, other JSON, garbage)."""


def item_key(candidates: Iterable[object], title: str, published: datetime | None) -> str:
    """The first non-blank candidate (the GUID/id, then the link), else a hash of title and
    date: stable across polls."""
    for candidate in candidates:
        if candidate is not None and str(candidate).strip():
            return str(candidate).strip()[:MAX_KEY_CHARS]
    stamp = published.isoformat() if published else ""
    digest = hashlib.sha256(f"{title}\x1f{stamp}".encode()).hexdigest()
    return f"sha256:{digest}"


def categories(terms: Iterable[object]) -> tuple[str, ...]:
    """Distinct non-empty names (case-insensitively), each and all of them bounded."""
    names: dict[str, str] = {}
    for term in terms:
        name = clean_inline(str(term or ""))[:MAX_CATEGORY_CHARS]
        if name and name.casefold() not in names:
            names[name.casefold()] = name
    return tuple(names.values())[:MAX_CATEGORIES]


def raw_entry(
    *,
    key: str,
    title: str,
    link: str | None,
    author: object,
    published: datetime | None,
    terms: Iterable[object],
    html: str,
    position: int,
) -> RawEntry:
    return RawEntry(
        key=key,
        title=title,
        link=link,
        author=clean_inline(str(author or ""))[:MAX_AUTHOR_CHARS] or None,
        published=published,
        categories=categories(terms),
        html=html,
        content_hash=hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest(),
        position=position,
    )
