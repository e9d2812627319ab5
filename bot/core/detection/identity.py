"""Who a never-seen entry really is: the same post under a new key, history, or news.

Sites re-key their items for reasons that have nothing to do with news: a GUID rewritten from
http to https or given a `&v=2`, a new generator with new ids, a domain move. Before an unseen
key becomes "new" it is reconciled with the feed's stored items that are absent from this
document, by the first of these that matches exactly one post on both sides:

1. the canonical id (a URL-like GUID normalised like a link);
2. the canonical link (scheme, host case, `www.`, default port, trailing slash, fragment and
   tracking parameters normalised away);
3. the same title on the same UTC publication date (a domain move changes ids and links but
   keeps both), when the two texts are alike too: in an aggregated (planet) feed a withdrawn
   post's decoy with the same title and date is another post. A weekly "This Week in X" has a
   new date, so it stays a new post.

What is still unseen afterwards is sorted into news and history (`sort_unseen`).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit

from bot.core.text import html_to_text
from bot.core.types import Identity, StoredItem

# Query parameters that only say where a reader came from.
_TRACKING_PREFIXES = ("utm_", "mc_", "_hs", "pk_", "mtm_")
_TRACKING = frozenset(
    {"fbclid", "gclid", "dclid", "gclsrc", "msclkid", "yclid", "igshid", "_ga", "ref_src",
     "twclid", "li_fat_id", "wt_mc", "oly_enc_id", "oly_anon_id", "vero_id", "rb_clickid"}
)  # fmt: skip
_DEFAULT_PORTS = {"http": 80, "https": 443}
# A never-seen post dated before the oldest known post the feed shows, and this much older than
# the newest known one, is the feed's window growing into its past, not news (a post backdated
# by hours or days is still news). Measured against the feed's own dates, not the clock, so a
# feed whose posts are all old (or whose clock is off) is judged the same way.
RECENT = timedelta(days=7)
# Title and date match only posts whose words are this alike (shared words / all words).
ALIKE = 0.5
_WORD = re.compile(r"\w+")


class Entry(Protocol):
    """An entry of the document (a RawEntry before text extraction, or a ParsedItem)."""

    @property
    def key(self) -> str: ...
    @property
    def link(self) -> str | None: ...
    @property
    def title(self) -> str: ...
    @property
    def published(self) -> datetime | None: ...
    @property
    def position(self) -> int: ...


class Match(StrEnum):
    """How an unseen entry was recognised as a stored post."""

    ID = "id"
    LINK = "link"
    TITLE_DATE = "title and date"


@dataclass(frozen=True, slots=True)
class Rekey:
    old_key: str
    new_key: str
    match: Match


def canonical_url(url: str | None) -> str | None:
    """A link with what never distinguishes two posts taken out; None when it is no URL."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    host = host.removeprefix("www.")
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    path = parts.path.rstrip("/") or ""
    query = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not _is_tracking(name)
    ]
    canonical = f"{host}{path}"
    if query:
        canonical += "?" + urlencode(sorted(query))
    return canonical


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in _TRACKING or lowered.startswith(_TRACKING_PREFIXES)


def canonical_id(key: str) -> str:
    """A URL-like GUID normalised like a link; any other id as it is."""
    return canonical_url(key) or key.strip()


def title_date(title: str, published: datetime | None) -> str | None:
    words = " ".join(title.casefold().split())
    if not words or published is None:
        return None
    return f"{words}\x1f{published.date().isoformat()}"


def _hash(value: str | None) -> str | None:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest() if value else None


def identity_of(key: str, link: str | None, title: str, published: datetime | None) -> Identity:
    return Identity(
        canon_key=_hash(canonical_id(key)) or "",
        canon_link=_hash(canonical_url(link)),
        canon_title=_hash(title_date(title, published)),
    )


def reconcile(
    entries: Sequence[Entry],
    known: Mapping[str, StoredItem],
    candidates: Iterable[StoredItem],
) -> list[Rekey]:
    """Unseen entries that are stored posts under another key.

    `candidates` are stored items of the feed absent from this document (those present keep
    their key). An identity shared by two entries, or by two candidates, proves nothing and is
    not used."""
    absent = [c for c in candidates if c.key not in known and c.identity is not None]
    if not absent:
        return []
    mine = {entry.key: identity_of(entry.key, entry.link, entry.title, entry.published)
            for entry in entries}  # fmt: skip
    rekeys: list[Rekey] = []
    taken: set[str] = set()
    for match, field in (
        (Match.ID, "canon_key"),
        (Match.LINK, "canon_link"),
        (Match.TITLE_DATE, "canon_title"),
    ):
        feed_side = Counter(getattr(ident, field) for ident in mine.values())
        stored_side: dict[str, list[StoredItem]] = {}
        for candidate in absent:
            value = getattr(candidate.identity, field)
            if value:
                stored_side.setdefault(value, []).append(candidate)
        for entry in entries:
            if entry.key in known or entry.key in {r.new_key for r in rekeys}:
                continue
            value = getattr(mine[entry.key], field)
            found = stored_side.get(value)  # never holds None: only stored values are keys
            if not found or len(found) != 1 or feed_side[value] != 1:
                continue
            if found[0].key in taken:
                continue
            if match is Match.TITLE_DATE and (
                other_page(entry.link, found[0].link) or not alike(entry, found[0])
            ):
                continue
            taken.add(found[0].key)
            rekeys.append(Rekey(found[0].key, entry.key, match))
    return rekeys


def other_page(link: str | None, stored: str | None) -> bool:
    """Two links on the same site whose last path segments differ: two posts, whatever their
    titles (a classifieds listing, a "Daily thread" posted again). A domain move changes the
    host, and a new permalink structure (`/2026/09/slug` → `/blog/slug`) keeps the slug."""
    mine, theirs = canonical_url(link), canonical_url(stored)
    if mine is None or theirs is None:
        return False
    my_host, _, my_path = mine.partition("/")
    their_host, _, their_path = theirs.partition("/")
    return my_host == their_host and _slug(my_path) != _slug(their_path)


def _slug(path: str) -> str:
    return path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]


def alike(entry: Entry, stored: StoredItem) -> bool:
    """The entry's text and the stored one share most of their words (or one has none, so
    there is nothing to tell them apart by)."""
    html = getattr(entry, "html", None)
    text = getattr(entry, "text", None) or (html_to_text(html) if html else "")
    mine, theirs = set(_WORD.findall(text.casefold())), set(_WORD.findall(stored.text.casefold()))
    if not mine or not theirs:
        return True
    return len(mine & theirs) >= ALIKE * len(mine | theirs)


@dataclass(frozen=True, slots=True)
class Unseen:
    """Never-seen entries sorted: `news` are announced, `history` stored silently."""

    news: tuple[str, ...]
    history: tuple[str, ...]
    migration: bool = False  # the whole window changed identity and nothing matched


def sort_unseen(
    entries: Sequence[Entry],
    known: Mapping[str, StoredItem],
    newest_stored: datetime | None,
    has_stored: bool,
    *,
    full_list: bool = False,
) -> Unseen:
    """Which never-seen entries are news.

    - Dated: history when older than the oldest known post shown and over a week older than
      the newest: the window grew into the feed's past. A post placed low but dated within the
      known window, or within the week, is news (backdated by hours or days).
    - Undated: history when listed below every known post (feeds list newest first), else news.
    - A feed listing every post it has (`full_list`: no item of the last document dropped out)
      that gains exactly one such older post did not grow a window: a window grows by a batch
      of its past, a full list by one post at a time. That post is news (a first real post
      dated before the placeholders already there).
    - No entry known although the feed has stored posts: the whole window changed identity in a
      way nothing matched. Only entries dated after the newest stored post are news.
    """
    unseen = [entry for entry in entries if entry.key not in known]
    present = [entry for entry in entries if entry.key in known]
    if not present:
        if not has_stored:  # nothing stored at all: everything is news
            return Unseen(tuple(e.key for e in unseen), ())
        news = tuple(
            e.key
            for e in unseen
            if e.published is not None and (newest_stored is None or e.published > newest_stored)
        )
        history = tuple(e.key for e in unseen if e.key not in set(news))
        return Unseen(news, history, migration=True)
    dates = [entry.published for entry in present if entry.published is not None]
    oldest, newest = (min(dates), max(dates)) if dates else (None, None)
    lowest = max(entry.position for entry in present)
    news_keys: list[str] = []
    history_keys: list[str] = []
    for entry in unseen:
        if entry.published is None:
            old = entry.position > lowest
        else:
            old = (
                oldest is not None
                and newest is not None
                and entry.published < oldest
                and entry.published < newest - RECENT
            )
        (history_keys if old else news_keys).append(entry.key)
    if full_list and len(history_keys) == 1:  # one post, not a window: see the docstring
        return Unseen((*news_keys, *history_keys), ())
    return Unseen(tuple(news_keys), tuple(history_keys))
