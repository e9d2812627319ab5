"""Value types passed between the stages: parse → detect → filter → render."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from bot.core.modes import (
    EDITS,
    FORMAT,
    PREVIEW,
    SILENT,
    SUMMARY,
    AnyMode,
    Edits,
    Format,
    Mode,
    Preview,
    Sound,
    SummaryMode,
)


class MediaKind(StrEnum):
    ALBUM = "album"
    AUDIO = "audio"
    VIDEO = "video"


@dataclass(frozen=True, slots=True)
class Enclosure:
    """A feed entry's audio or video file, as the feed declares it."""

    url: str
    kind: MediaKind  # AUDIO or VIDEO
    length: int | None = None  # bytes, as declared (None: not said)
    duration: int | None = None  # seconds (iTunes duration)
    performer: str | None = None  # the show's author (iTunes author)


@dataclass(frozen=True, slots=True)
class ParsedItem:
    """One entry as read from a feed, already reduced to its visible text."""

    key: str
    title: str
    link: str | None
    author: str | None
    published: datetime | None
    categories: tuple[str, ...]
    text: str
    fingerprint: str
    position: int
    content_hash: str = ""
    image: str | None = None  # an absolute http(s) URL; not part of the fingerprint
    full: bool = True  # the body is the full text (content), not only a summary
    excerpt_hash: str | None = None  # hash of the summary's HTML (to compare like with like)
    html: str = ""  # the body's HTML, for the message's summary ("" when read from storage)
    excerpt: str = ""  # a separate description beside the full text (maybe hand-written)
    images: tuple[str, ...] = ()  # every picture of its own, in order (an album: 2-10)
    enclosure: Enclosure | None = None  # an audio or video file
    raw_hash: str | None = None  # its bytes' hash in the document (feeds/split.py), if known


@dataclass(frozen=True, slots=True)
class RawEntry:
    """An entry before its HTML is turned into text (the expensive step, often skippable)."""

    key: str
    title: str
    link: str | None
    author: str | None
    published: datetime | None
    categories: tuple[str, ...]
    html: str
    content_hash: str
    position: int
    image: str | None = None
    full: bool = True
    excerpt_hash: str | None = None
    excerpt: str = ""  # the entry's own description when it also has the full text
    images: tuple[str, ...] = ()
    enclosure: Enclosure | None = None
    raw_hash: str | None = None  # its bytes' hash in the document (feeds/split.py), if known


@dataclass(frozen=True, slots=True)
class RawFeed:
    title: str
    link: str | None
    entries: tuple[RawEntry, ...]
    warning: str | None = None
    ttl_seconds: int | None = None  # RSS <ttl>: how long the publisher says to cache it
    language: str | None = None  # as the feed declares it (RSS <language>, Atom xml:lang)
    # The other copies of keys the document repeats (`entries.one_per_key`).
    copies: Mapping[str, tuple[RawEntry, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParsedFeed:
    """A feed document that parsed into entries (possibly with recoverable errors)."""

    title: str
    link: str | None
    items: tuple[ParsedItem, ...]
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class Identity:
    """The hashes an item is found by when its key changes (core/detection/identity.py),
    stored with it."""

    canon_key: str
    canon_link: str | None
    canon_title: str | None


@dataclass(frozen=True, slots=True)
class StoredItem:
    """What the database remembers of an item: enough to recognise it, and to detect and
    describe an edit."""

    key: str
    title: str
    text: str
    fingerprint: str
    content_hash: str | None = None
    # The text.FINGERPRINT_VERSION that made `fingerprint` ("" for rows older than versions).
    fingerprint_version: str = ""
    link: str | None = None
    published: datetime | None = None
    identity: Identity | None = None
    full: bool | None = None  # None: stored before Feedwatch told excerpts from full text
    excerpt_hash: str | None = None
    volatile: tuple[str, ...] = ()  # places where its numbers changed before (counters)
    categories: tuple[str, ...] = ()  # as stored: an edit takes them out of the feed's counts
    # The hash of the bytes its stored fields were read from (feeds/split.py), when known.
    raw_hash: str | None = None
    author: str | None = None  # read only with `raw_hash` (an entry's stand-in: feeds/changed.py)
    image: str | None = None


class ChangeKind(StrEnum):
    NEW = "new"
    EDITED = "edited"


class MessageKind(StrEnum):
    """What a queued message is (the outbox's `kind`): about one post, or about several."""

    NEW = "new"  # a new post
    EDITED = "edited"  # an edit (it replies to the chat's message about the post)
    LIST = "list"  # the flood guard's one message listing a poll's new posts
    DIGEST = "digest"  # a digest, or what quiet hours held
    ALERT = "alert"  # an operator's message about a feed's health
    WITHDRAWN = "withdrawn"  # a post withdrawn from its site, or back (replies to the post)


@dataclass(frozen=True, slots=True)
class TextDiff:
    """What changed in an edit, in words a reader can follow."""

    old_title: str | None = None
    new_title: str | None = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    minor: bool = (
        False  # a typo, a word, punctuation (core/detection/weight.py); never a changed number
    )


@dataclass(frozen=True, slots=True)
class Change:
    """An event worth telling subscribers about."""

    kind: ChangeKind
    item: ParsedItem
    diff: TextDiff | None = None


@dataclass(frozen=True, slots=True)
class Detection:
    """Outcome of comparing a feed with stored state.

    `changes` are the events in reading order; `unchanged` are keys whose stored row only needs
    its last-seen time refreshed; `absorbed` maps keys whose fingerprint changed without an edit
    worth telling (a fingerprint version, counters, a template, an excerpt switch) to the reason:
    their stored text is rewritten silently. `history` are never-seen keys stored silently;
    `places` the counter places to remember per key; `notes` say what was absorbed, for the log.
    """

    changes: tuple[Change, ...]
    unchanged: tuple[str, ...] = ()
    absorbed: Mapping[str, str] = field(default_factory=dict)
    history: tuple[str, ...] = ()
    places: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def rebaselined(self) -> tuple[str, ...]:
        """Keys re-baselined because only the fingerprint version changed."""
        return tuple(k for k, why in self.absorbed.items() if why == "fingerprint version")


@dataclass(frozen=True, slots=True)
class IncludeExclude:
    """Names of which a post needs one (when any are given) and may have none of the others."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.include and not self.exclude


@dataclass(frozen=True, slots=True)
class CategoryFilter(IncludeExclude):
    """A chat's category filter for one feed; names are kept in their original spelling."""


@dataclass(frozen=True, slots=True)
class FeedInfo:
    """The feed facts a message needs."""

    slug: str
    title: str


@dataclass(frozen=True, slots=True)
class KeywordFilter(IncludeExclude):
    """Literal words or phrases matched as whole words in title and summary text."""


@dataclass(frozen=True, slots=True)
class Reader:
    """One chat reading one feed (a subscription) as the fan-out sees it: its filters, its
    settings and the chat's language, zone and quiet hours."""

    chat_id: int
    feed_id: int = 0
    categories: CategoryFilter = CategoryFilter()
    keywords: KeywordFilter = KeywordFilter()
    edits: Edits = Edits.ALL  # /edits: which edits are announced
    preview: Preview = Preview.IMAGE  # /preview: the post's image, its link's card, or none
    silent: bool = False  # sent without a notification sound
    thread_id: int | None = None
    digest: bool = False
    language: str | None = None  # the chat's; None is English
    timezone: str = "UTC"  # the chat's (/timezone): dates in messages are its dates
    message_format: Format = Format.SUMMARY  # /format: title, summary or full
    summary_mode: SummaryMode = SummaryMode.EXTRACT  # /summary (the operator's model)
    translate: bool = False  # /translate on: the chat's posts in another language translated
    quiet: str | None = None  # the chat's quiet hours, `HH:MM-HH:MM` (core/rules/quiet.py)
    rules: tuple[str, ...] = ()  # field rules for this feed (core/rules/fields.py)
    chat_rules: tuple[str, ...] = ()  # and for every feed of the chat (/filter all …)

    def value_of(self, mode: Mode) -> AnyMode:
        """This subscription's value of a mode (`core/modes.py`)."""
        values: dict[str, AnyMode] = {
            FORMAT.command: self.message_format,
            PREVIEW.command: self.preview,
            EDITS.command: self.edits,
            SUMMARY.command: self.summary_mode,
            SILENT.command: Sound.SILENT if self.silent else Sound.LOUD,
        }
        return values[mode.command]
