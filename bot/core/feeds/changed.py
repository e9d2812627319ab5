"""Read only what changed: the entries whose bytes the feed's stored rows were not read from.

`split.py` cuts the document into items and hashes each one's bytes with its context. An item
whose hash is stored with its row (`StoredItem.raw_hash`, the row's fields as read from exactly
those bytes) is that row again: it counts as present, in its place, with its stored fields,
and feedparser never reads it. feedparser reads the document without those items (the head and
everything between the items kept byte for byte), and the new and changed entries it finds are
put back in document order among the stored ones.

Whatever this cannot vouch for is read whole (`parse.read_feed`), as before: JSON Feed, a body
`split.py` refuses (other encodings, entities, `xml:base`, malformed XML), more items than
`MAX_ITEMS`, an item twice in one document, a stored row read under another fingerprint
version, a shortened document feedparser reads differently (a warning, another entry count),
or a key that comes out twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from bot.core.feeds.entries import MAX_ITEMS
from bot.core.feeds.parse import (
    document,
    read_entry,
    read_feed,
    run_feedparser,
    site_of,
    useful_headers,
)
from bot.core.feeds.split import Split, vouched_split, without
from bot.core.text import FINGERPRINT_VERSION
from bot.core.types import RawEntry, RawFeed, StoredItem


def read_changed(
    body: bytes,
    headers: Mapping[str, str] | None,
    url: str,
    known: Mapping[str, StoredItem],
) -> RawFeed:
    """`body` read as `read_feed` reads it, with feedparser running only over the items not
    in `known` (the feed's stored rows of its last document, by raw hash)."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    response_headers = useful_headers(lowered)
    # JSON Feed is no XML: `split.py` refuses it, as anything else it cannot vouch for.
    cut = vouched_split(body, response_headers, url) if known else None
    hits = _hits(cut, known)
    if cut is None or not hits:
        return read_feed(body, headers, url)
    parsed = run_feedparser(without(body, cut.spans, frozenset(hits)), response_headers)
    entries = parsed.get("entries") or []
    fresh = [n for n in range(len(cut.spans)) if n not in hits]
    if parsed.get("bozo") or len(entries) != len(fresh):
        return read_feed(body, headers, url)
    read = {n: entries[k] for k, n in enumerate(fresh)}
    site = site_of(parsed, url)
    raw = tuple(
        _stored_entry(hits[n], n, cut.hashes[n])
        if n in hits
        else read_entry(read[n], n, url, cut.hashes[n], site)
        for n in range(len(cut.spans))
    )
    if len({entry.key for entry in raw}) != len(raw):  # a key twice: `one_per_key` decides
        return read_feed(body, headers, url)
    return document(parsed, raw, {})


def _hits(cut: Split | None, known: Mapping[str, StoredItem]) -> dict[int, StoredItem]:
    """The items (by number) that are stored rows read from the same bytes; none when the
    document's items cannot all be taken in place (too many, or the same bytes twice)."""
    if cut is None or len(cut.hashes) > MAX_ITEMS or len(set(cut.hashes)) != len(cut.hashes):
        return {}
    return {n: known[h] for n, h in enumerate(cut.hashes) if h in known and _usable(known[h], h)}


def _usable(item: StoredItem, raw_hash: str) -> bool:
    """A row whose fields stand for a fresh reading: read from these bytes, fingerprinted under
    the current version, with the fields detection compares."""
    return (
        item.raw_hash == raw_hash
        and item.fingerprint_version == FINGERPRINT_VERSION
        and item.content_hash is not None
        and item.full is not None
        and item.identity is not None
    )


def _stored_entry(item: StoredItem, position: int, raw_hash: str) -> RawEntry:
    """A stored row as the entry its bytes read as: the fields detection and the plan use
    (its markup is not kept: an unchanged entry is never shown)."""
    return RawEntry(
        key=item.key,
        title=item.title,
        link=item.link,
        author=item.author,
        published=item.published,
        categories=item.categories,
        html="",
        content_hash=cast(str, item.content_hash),  # `_usable`: neither is None
        position=position,
        image=item.image,
        full=cast(bool, item.full),
        excerpt_hash=item.excerpt_hash,
        raw_hash=raw_hash,
    )
