"""XML parsers that never expand a document's own entity declarations.

Why a parser and not a regex: stripping the first `<!DOCTYPE … [ … ]>` by pattern was fooled by a
decoy inside a comment and by a DOCTYPE placed after a long comment, and expat then expanded a short
entity hundreds of thousands of times. Here expat itself reports every declaration, wherever it
stands and whatever the encoding, and the handler refuses it before anything is stored.

- Feeds: feedparser's strict pass uses `FeedSaxParser`, which turns any entity declaration into a
  SAX error. feedparser then re-reads the document with its loose parser, which leaves undeclared
  references as literal text (`&lol;`), so a feed with a harmless declaration keeps working and a
  hostile one expands nothing.
- OPML: `defusedxml`'s ElementTree refuses any document that declares entities.

The loose pass is slow on references, though: a 1 MB feed of 340,000 `&e;` took over a second in
feedparser and html2text, for text nobody wants. `drop_declared_references` removes them first.
"""

from __future__ import annotations

import re
import xml.sax
from html.entities import name2codepoint
from typing import Any, NoReturn
from xml.etree.ElementTree import Element

import feedparser.api
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as _defused_fromstring
from defusedxml.expatreader import DefusedExpatParser

REFUSED = "entity declarations are refused"
_DECLARES = b"<!ENTITY"
_REFERENCE = re.compile(rb"&([A-Za-z_][\w.:-]*);")
# References every reader resolves without a declaration: XML's five and HTML's names.
_KNOWN_NAMES = frozenset(name.encode() for name in (*name2codepoint, "apos"))


class FeedSaxParser(DefusedExpatParser):
    """defusedxml's SAX driver, raising SAX errors so feedparser falls back instead of crashing."""

    def reset(self) -> None:
        super().reset()
        expat = self._parser  # type: ignore[attr-defined]  # set by reset(); expat reports here
        # Replace defusedxml's handlers, which raise its own exceptions (feedparser would crash
        # instead of falling back), not just add ours.
        expat.EntityDeclHandler = self._refuse
        expat.UnparsedEntityDeclHandler = self._refuse
        expat.ExternalEntityRefHandler = self._skip

    def _refuse(self, *_args: object) -> NoReturn:
        raise xml.sax.SAXParseException(REFUSED, None, self)

    @staticmethod
    def _skip(*_args: object) -> int:
        """An external DTD (RSS 0.91's Netscape one) is never loaded, and that is no error."""
        return 1


def drop_declared_references(body: bytes) -> bytes:
    """In a document that declares entities, drop references to names neither XML nor HTML
    defines: they can only mean a declared entity, which is never expanded (the strict pass
    refuses the declaration), and the loose pass would keep each as literal text, slowly.

    Speed only, not safety: the test is on ASCII-compatible bytes, so a UTF-16 document keeps
    its references and is still read without expanding them.
    """
    if _DECLARES not in body:
        return body
    return _REFERENCE.sub(lambda match: match[0] if match[1] in _KNOWN_NAMES else b"", body)


def create_parser(*args: Any, **kwargs: Any) -> FeedSaxParser:
    """The SAX driver entry point `xml.sax.make_parser` looks up by module name."""
    return FeedSaxParser(*args, **kwargs)


def install_feed_parser() -> None:
    """Make feedparser's strict pass use `FeedSaxParser`, and prove it took effect.

    `xml.sax.make_parser` silently falls back to plain expat when a driver cannot be imported;
    the check turns that into an error at import time rather than an open door.
    """
    feedparser.api.PREFERRED_XML_PARSERS = [__name__]
    probe = xml.sax.make_parser(feedparser.api.PREFERRED_XML_PARSERS)  # noqa: S317 - it is ours
    if not isinstance(probe, FeedSaxParser):  # pragma: no cover - only on a broken install
        raise RuntimeError("the entity-refusing XML parser could not be installed")


def parse_xml(data: bytes) -> Element:
    """ElementTree parse that refuses entity declarations and external references."""
    try:
        return _defused_fromstring(data)
    except DefusedXmlException:
        raise ValueError(REFUSED) from None
