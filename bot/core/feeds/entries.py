"""What every feed format's entries come down to: one key, bounded fields, the raw HTML's hash.

feedparser's RSS and Atom (`parse.py`) and JSON Feed (`jsonfeed.py`) both build their entries
here, so every format obeys the same limits and the same identity rule.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from html import unescape
from urllib.parse import urlsplit

from bot.core.feeds.images import body_images, own_images
from bot.core.text import clean_inline
from bot.core.types import Enclosure, RawEntry

MAX_TITLE_CHARS = 1000
# Real feeds carry 10-50 items; a document with thousands is hostile or broken. Only the first
# (newest) ones are read, which bounds the time and memory one poll can take.
MAX_ITEMS = 1000
MAX_KEY_CHARS = 1000
MAX_AUTHOR_CHARS = 200
MAX_CATEGORY_CHARS = 100
MAX_CATEGORIES = 50
# html2text is pure Python and slow on huge inputs (a hostile item of 1 MB of entity references
# took a second); no real post needs more markup than this to yield 100,000 characters of text.
# Everything that reads an item's markup (text, excerpt hash) reads only this much of it.
MAX_HTML_CHARS = 400_000
_TAG = re.compile(r"<[^>]*>")
_NOT_A_WORD = re.compile(r"[\W_]+")


class NotAFeed(ValueError):
    """The body parsed into nothing feed-like (an HTML error page, other JSON, garbage)."""


_CLOCK = re.compile(r"^(?:(\d{1,3}):)?(\d{1,2}):(\d{1,2})(?:\.\d+)?$")  # iTunes h:m:s


def item_key(candidates: Iterable[object], title: str, published: datetime | None) -> str:
    """The first non-blank candidate (the GUID/id, then the link), else a hash of title and
    date: stable across polls."""
    for candidate in candidates:
        # A NUL is no part of any real id, and PostgreSQL refuses to store one.
        text = str(candidate).replace("\x00", "").strip() if candidate is not None else ""
        if text:
            return text[:MAX_KEY_CHARS]
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
    images: Iterable[object] = (),
    full: bool = True,
    summary: str = "",
    enclosure: Enclosure | None = None,
    raw_hash: str | None = None,
    site: str = "",
) -> RawEntry:
    """`images` are candidate images, best first: the first that is the post's own picture
    (`images.own_images`) is kept, else the first such `<img>` of the HTML (relative ones
    resolved against the entry's link, or against `site`, the feed's own address, when the
    link leaves it: `picture_base`). `full` says `html` is the full text; `summary` is the
    entry's own excerpt beside it (hashed, so a later excerpt-only item is compared with it)."""
    content_hash = _sha256(html)
    if not full:
        excerpt_hash: str | None = excerpt_key(html)
    else:
        excerpt_hash = excerpt_key(summary) if summary.strip() and summary != html else None
    # An album comes from one source, the feed's media list or the body's pictures: mixing them
    # would show one picture twice (a feed's thumbnail of the body's first picture). The body
    # is read (once) only when the feed lists fewer than two pictures.
    base = picture_base(link, site)
    pictures = own_images(images, base)
    first = pictures[0] if pictures else None
    if len(pictures) < 2:
        in_body = own_images(body_images(html), base)
        first = first or (in_body[0] if in_body else None)
        pictures = max(pictures, in_body, key=len)
    return RawEntry(
        key=key,
        title=title,
        link=link,
        author=clean_inline(str(author or ""))[:MAX_AUTHOR_CHARS] or None,
        published=published,
        categories=categories(terms),
        html=html,
        content_hash=content_hash,
        position=position,
        image=first,
        full=full,
        excerpt_hash=excerpt_hash,
        excerpt=summary[:MAX_HTML_CHARS] if full and excerpt_hash is not None else "",
        images=pictures,
        enclosure=enclosure,
        raw_hash=raw_hash,
    )


def picture_base(link: str | None, site: str) -> str | None:
    """What a post's relative picture addresses resolve against: the post's page, unless the
    post links away from the site that published it (a link post's link is the project on
    GitHub; its "/assets/icon.png" is the blog's), then the site's own address."""
    if not link or not site or _host(link) == _host(site):
        return link or site or None
    return site


def _host(address: str) -> str:
    try:
        host = urlsplit(address).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.")


def excerpt_key(html: str) -> str:
    """A summary's letters and digits, hashed: the same excerpt whatever its markup."""
    text = unescape(_TAG.sub(" ", html[:MAX_HTML_CHARS]))
    text = unicodedata.normalize("NFKC", text).casefold()
    return _sha256(_NOT_A_WORD.sub("", text))


def _sha256(html: str) -> str:
    return hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest()


def one_per_key(
    entries: Iterable[RawEntry],
) -> tuple[tuple[RawEntry, ...], dict[str, tuple[RawEntry, ...]]]:
    """One entry per key, and the other copies of each repeated key.

    A document that repeats an id (a changelog listing one release twice under one guid, with
    two different bodies) needs one copy to stand for it, the same on every poll, or the other
    copy reads as an edit. The longest copy stands (by its markup; the first of equal ones),
    at the place of the key's first copy; a copy the feed had stored still stands while the
    document shows it (`chosen_copy`)."""
    chosen: dict[str, RawEntry] = {}
    copies: dict[str, list[RawEntry]] = {}
    for entry in entries:
        first = chosen.get(entry.key)
        if first is None:
            chosen[entry.key] = entry
            continue
        copies.setdefault(entry.key, [first]).append(entry)
        if len(entry.html) > len(first.html):
            chosen[entry.key] = replace(entry, position=first.position)
    others = {
        key: tuple(c for c in found if c.content_hash != chosen[key].content_hash)
        for key, found in copies.items()
    }
    return tuple(chosen.values()), {key: found for key, found in others.items() if found}


def chosen_copy(
    entry: RawEntry, copies: Mapping[str, tuple[RawEntry, ...]], stored_hash: str | None
) -> RawEntry:
    """The copy of a repeated key whose markup the feed has stored, else `entry` (the longest):
    a second copy appearing beside the stored one is no edit."""
    for copy in copies.get(entry.key, ()):
        if stored_hash is not None and copy.content_hash == stored_hash:
            return replace(copy, position=entry.position)
    return entry


def duration_seconds(value: object) -> int | None:
    """iTunes durations: seconds ("4385"), "73:05" or "1:13:05"; None when unreadable."""
    text = str(value or "").strip()
    if text.isdigit():
        return int(text) or None
    match = _CLOCK.match(text)
    if match is None:
        return None
    hours, minutes, seconds = (int(g) if g else 0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds or None
