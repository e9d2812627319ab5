"""A feed document cut into its items, cheaply: expat finds them, feedparser never runs.

A changed feed usually brings one new post among 20-100 it showed before, and feedparser costs
about as much per item as the rest of a poll. Each item's bytes are hashed with what their
reading depends on beyond them (`Split.hashes`); an item whose hash is stored with its row is
that row, unread (`changed.py`), and feedparser reads only the document without those items.

The pass is strict about what it vouches for, and says None for anything else (the document is
then read whole, as before): the bytes must be well-formed UTF-8 XML to expat, with no DOCTYPE
or entity declaration (the entity defences of `xmlsafe.py` stay in front of feedparser), no
`xml:base`, no namespace declared inside an item (feedparser tracks namespaces document-wide),
no item inside an item, and no `item`/`entry` element whose namespace leaves feedparser's
reading of it open. Items are the elements feedparser makes entries of: `item` and `entry`
(any case) in no namespace or in one feedparser reads as its own (RSS 0.9/1.0/2.0, Atom).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NoReturn
from xml.parsers import expat

import feedparser
import feedparser.mixin
from feedparser.encodings import parse_content_type

# What feedparser calls an entry, and the namespaces it reads as its own (a non-empty prefix
# makes `prefix:item`, no entry; a namespace it does not know is named by the document).
ENTRIES = frozenset({"item", "entry"})
_NAMESPACES: dict[str, str] = getattr(feedparser.mixin, "_FeedParserMixin").namespaces  # noqa: B009
_OWN = {uri.lower(): prefix for uri, prefix in _NAMESPACES.items()}
_USERLAND = "backend.userland.com/rss"
_REFUSED = (b"<!ENTITY", b"xml:base")
_TAG = re.compile(rb"<([^\s/>]+)")
_CLOSED = re.compile(rb"\s*>")
_UTF8 = frozenset({"utf-8", "utf8"})
_ASCII = frozenset({"us-ascii", "ascii"})
# Bumped whenever reading an item changes (here, in parse.py or entries.py): every stored raw
# hash then misses once, and the item is read again.
READ_VERSION = f"1/feedparser-{feedparser.__version__}"


@dataclass(frozen=True, slots=True)
class Split:
    """Where each item is (`spans`: byte ranges, in document order) and its hash."""

    spans: tuple[tuple[int, int], ...]
    hashes: tuple[str, ...]


class _Refused(Exception):
    """The pass cannot vouch for this document."""


def _refuse(*_args: object) -> NoReturn:
    raise _Refused


def vouched_split(body: bytes, headers: Mapping[str, str], url: str) -> Split | None:
    """`split_feed` for a body feedparser would read as UTF-8 with no complaint about its type
    (`headers`: the lowercase ones it is given), else None. The context is what else reading
    an item depends on: the document's URL and those headers."""
    encoding = _encoding(headers)
    if encoding not in _UTF8 and not (encoding in _ASCII and body.isascii()):
        return None
    return split_feed(body, repr((url, sorted(headers.items()))))


def _encoding(headers: Mapping[str, str]) -> str | None:
    """The encoding feedparser reads a UTF-8-declared (or undeclared) document in, as RFC 3023
    has it; None when it would also call the media type no XML one."""
    if not headers:
        return "utf-8"
    if "content-type" not in headers:
        return None
    kind, charset = parse_content_type(headers["content-type"])
    if kind == "application/xml" or (kind.startswith("application/") and kind.endswith("+xml")):
        return charset.lower() or "utf-8"
    if kind == "text/xml" or (kind.startswith("text/") and kind.endswith("+xml")):
        return charset.lower() or "us-ascii"
    return None


def split_feed(body: bytes, context: str = "") -> Split | None:
    """The items of `body` and their hashes, or None when the document must be read whole.
    `context`: what else an item's reading depends on (the document's URL, headers)."""
    if any(marker in body for marker in _REFUSED):
        return None
    cutter = _Cutter(body)
    try:
        cutter.parser.Parse(body, True)
    except (_Refused, expat.ExpatError):
        return None
    outer = hashlib.sha256(f"{READ_VERSION}\x1f{context}".encode()).digest()
    hashes = tuple(
        hashlib.sha256(outer + ancestry + body[start:end]).hexdigest()
        for (start, end), ancestry in zip(cutter.spans, cutter.ancestry, strict=True)
    )
    return Split(tuple(cutter.spans), hashes)


def without(body: bytes, spans: tuple[tuple[int, int], ...], drop: frozenset[int]) -> bytes:
    """`body` with the items numbered in `drop` cut out (everything else kept, byte for byte)."""
    pieces: list[bytes] = []
    at = 0
    for n, (start, end) in enumerate(spans):
        if n in drop:
            pieces.append(body[at:start])
            at = end
    pieces.append(body[at:])
    return b"".join(pieces)


class _Cutter:
    """expat's callbacks: the items' byte ranges, and what encloses each."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.spans: list[tuple[int, int]] = []
        self.ancestry: list[bytes] = []
        self.open: list[str] = []  # the elements enclosing the current position (outside items)
        self.declared: list[str] = []  # namespace declarations so far, in order
        self.start: int | None = None  # where the current item starts (None: outside any)
        self.depth = 0  # elements open inside the current item
        self.fresh = False  # the element about to start declares namespaces
        self.closing = b""  # the current item's end tag, as it must be written
        parser = expat.ParserCreate("UTF-8", " ")
        parser.XmlDeclHandler = self._declaration
        parser.StartDoctypeDeclHandler = _refuse  # entities are declared only inside one
        parser.StartNamespaceDeclHandler = self._namespace
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        self.parser = parser

    @staticmethod
    def _declaration(_version: str | None, encoding: str | None, _standalone: int) -> None:
        if encoding is not None and encoding.lower() not in _UTF8:
            raise _Refused

    def _namespace(self, prefix: str | None, uri: str | None) -> None:
        """Declared on the element about to start (expat says so first)."""
        if self.start is not None:
            raise _Refused
        self.fresh = True
        self.declared.append(f"{prefix}={uri}")

    def _start(self, name: str, attributes: dict[str, str]) -> None:
        uri, _, local = name.rpartition(" ")
        is_entry = local.lower() in ENTRIES and _entry_namespace(uri)
        declares, self.fresh = self.fresh, False
        if declares and is_entry is not False:
            raise _Refused  # an item declaring a namespace (or one that may be an item)
        if self.start is not None:
            if is_entry is not False:
                raise _Refused  # an item inside an item, or maybe one
            self.depth += 1
            return
        if is_entry is None:
            raise _Refused
        if is_entry:
            self.start = self.parser.CurrentByteIndex
            self.depth = 0
            tag = _TAG.match(self.body, self.start)
            self.closing = b"</" + (tag[1] if tag else b"")
            return
        self.open.append(f"{name}\x1e{sorted(attributes.items())!r}")

    def _end(self, _name: str) -> None:
        if self.start is None:
            self.open.pop()
            return
        if self.depth:
            self.depth -= 1
            return
        at = self.parser.CurrentByteIndex
        if not _CLOSED.match(self.body, at + len(self.closing)) or not self.body.startswith(
            self.closing, at
        ):  # `<item/>`: expat points past it, at whatever follows
            raise _Refused
        end = self.body.index(b">", at) + 1
        self.spans.append((self.start, end))
        enclosing = "\x1d".join(self.open) + "\x1c" + "\x1d".join(self.declared)
        self.ancestry.append(hashlib.sha256(enclosing.encode()).digest())
        self.start = None


def _entry_namespace(uri: str) -> bool | None:
    """Whether an `item`/`entry` element in namespace `uri` is an entry to feedparser: True in
    no namespace or one of its own, False in a namespace it gives a prefix, None when the
    document's own prefixes would decide."""
    lowered = uri.lower()
    if not lowered or _USERLAND in lowered:
        return True
    prefix = _OWN.get(lowered)
    return None if prefix is None else prefix == ""
