"""The XML parsers that never expand a document's own entities (the attack itself, at scale, is in
tests/hardening/test_entity_expansion.py; these pin the parts)."""

from __future__ import annotations

import xml.sax
from xml.sax.handler import ContentHandler

import feedparser.api
import pytest

from bot.core.feeds import xmlsafe
from bot.core.feeds.xmlsafe import REFUSED, FeedSaxParser, create_parser, parse_xml

NETSCAPE = (
    b'<?xml version="1.0"?><!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" '
    b'"http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss version="0.91"><channel>'
    b"<title>Old</title></channel></rss>"
)


class Texts(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.text = ""

    def characters(self, content: str) -> None:
        self.text += content


def sax_parse(document: bytes) -> str:
    parser = create_parser()
    handler = Texts()
    parser.setContentHandler(handler)
    parser.setFeature(xml.sax.handler.feature_namespaces, True)  # as feedparser does
    parser.feed(document)
    parser.close()
    return handler.text


@pytest.mark.parametrize(
    "declaration",
    [
        b'<!ENTITY e "expanded">',
        b'<!ENTITY % p "x">',
        b'<!ENTITY logo SYSTEM "logo.gif" NDATA gif><!NOTATION gif SYSTEM "image/gif">',
        b'<!ENTITY ext SYSTEM "file:///etc/hostname">',
    ],
)
def test_every_entity_declaration_is_a_sax_error_naming_the_refusal(declaration: bytes) -> None:
    document = b"<!DOCTYPE r [" + declaration + b"]><r>text</r>"
    with pytest.raises(xml.sax.SAXParseException) as caught:
        sax_parse(document)
    assert caught.value.getMessage() == REFUSED
    assert caught.value.getLineNumber() == 1


def test_an_external_dtd_is_skipped_not_loaded_and_not_an_error() -> None:
    assert sax_parse(NETSCAPE) == "Old"


def test_a_plain_document_parses() -> None:
    assert sax_parse(b"<r>a<b>c</b></r>") == "ac"


def test_the_driver_entry_point_passes_its_arguments_on() -> None:
    assert create_parser(1)._namespaces == 1  # type: ignore[attr-defined]
    assert create_parser(forbid_dtd=True).forbid_dtd is True


def test_installing_points_feedparser_at_the_refusing_driver(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feedparser.api, "PREFERRED_XML_PARSERS", ["xml.sax.expatreader"])
    xmlsafe.install_feed_parser()
    assert feedparser.api.PREFERRED_XML_PARSERS == ["bot.core.feeds.xmlsafe"]
    made = xml.sax.make_parser(feedparser.api.PREFERRED_XML_PARSERS)
    assert isinstance(made, FeedSaxParser)


def test_installing_fails_loudly_when_the_driver_does_not_take(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import xml.sax.expatreader

    monkeypatch.setattr(xml.sax, "make_parser", lambda _names: xml.sax.expatreader.create_parser())
    with pytest.raises(
        RuntimeError, match=r"^the entity-refusing XML parser could not be installed$"
    ):
        xmlsafe.install_feed_parser()


def test_parse_xml_reads_a_document_and_refuses_declarations() -> None:
    assert parse_xml(b"<opml><body/></opml>").find("body") is not None
    with pytest.raises(ValueError, match=f"^{REFUSED}$"):
        parse_xml(b'<!DOCTYPE o [<!ENTITY a "b">]><opml/>')


def test_references_only_a_declaration_could_mean_are_dropped_before_parsing() -> None:
    body = (
        b'<!DOCTYPE rss [<!ENTITY e "x">]><rss><t>&e;a&amp;&lt;&apos;&nbsp;&#160;&x.y-z:w;'
        b"&_u;b</t></rss>"
    )
    assert xmlsafe.drop_declared_references(body) == (
        b'<!DOCTYPE rss [<!ENTITY e "x">]><rss><t>a&amp;&lt;&apos;&nbsp;&#160;b</t></rss>'
    )


def test_a_document_without_declarations_keeps_every_reference() -> None:
    body = b"<rss><t>&e;&nbsp;</t></rss>"
    assert xmlsafe.drop_declared_references(body) is body
    utf16 = '<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>'.encode("utf-16")
    assert xmlsafe.drop_declared_references(utf16) is utf16
