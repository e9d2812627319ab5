"""OPML 2.0 subscription lists, as feed readers export them (Feedly, Inoreader, NetNewsWire nest
feeds in folder outlines; some tools spell the attribute `xmlurl`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.feeds.opml import OpmlError, OpmlFeed, parse_opml, render_opml
from bot.core.feeds.xmlsafe import REFUSED
from bot.core.lang import UserError

EXPORTED = b"""<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>Subscriptions</title></head>
  <body>
    <outline text="Engineering" title="Engineering">
      <outline type="rss" text="Quillon Labs" title="Quillon  Labs\xe2\x80\x8b"
               xmlUrl="https://quillon.example/feed/" htmlUrl="https://quillon.example/"/>
      <outline type="rss" text="Only text" xmlurl="https://notes.example/rss/"/>
    </outline>
    <outline type="rss" xmlUrl="https://quillon.example/feed/" title="Duplicate"/>
    <outline type="rss" text="Not a feed URL" xmlUrl="javascript:alert(1)"/>
    <outline type="rss" title="No URL"/>
    <outline type="rss" xmlUrl="https://bare.example/index.xml"/>
  </body>
</opml>
"""


def test_every_feed_at_any_depth_once_with_its_title() -> None:
    assert parse_opml(EXPORTED) == [
        OpmlFeed(title="Quillon Labs", url="https://quillon.example/feed/"),
        OpmlFeed(title="Only text", url="https://notes.example/rss/"),
        OpmlFeed(title="", url="https://bare.example/index.xml"),
    ]


def test_titles_are_cut_to_200_characters() -> None:
    doc = f'<opml><body><outline title="{"t" * 250}" xmlUrl="https://a.example/f"/></body></opml>'
    (feed,) = parse_opml(doc.encode())
    assert feed.title == "t" * 200


def error_of(data: bytes) -> OpmlError:
    with pytest.raises(OpmlError) as caught:
        parse_opml(data)
    assert isinstance(caught.value, UserError)
    return caught.value


def test_broken_xml_says_where() -> None:
    error = error_of(b"<opml><body>")
    assert error.template == "not valid XML: {detail}"
    assert str(error) == "not valid XML: no element found: line 1, column 12"


def test_entity_declarations_are_refused() -> None:
    error = error_of(b'<!DOCTYPE opml [<!ENTITY a "aaaa">]><opml><body/></opml>')
    assert (error.template, error.params) == ("not valid XML: {detail}", {"detail": REFUSED})


def test_another_root_is_not_opml() -> None:
    error = error_of(b"<rss><channel/></rss>")
    assert str(error) == error.template == "not an OPML document (no <opml> root)"
    assert parse_opml(b"<OPML><body/></OPML>") == []


def test_rendered_opml_reads_back_and_has_the_standard_shape() -> None:
    feeds = [
        OpmlFeed(title="Quillon & friends", url="https://quillon.example/feed/?a=1&b=2"),
        OpmlFeed(title="调度器", url="https://notes.example/rss/"),
    ]
    created = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
    document = render_opml("Feedwatch feeds", feeds, created=created)
    assert document == (
        b"<?xml version='1.0' encoding='utf-8'?>\n"
        b'<opml version="2.0">\n'
        b"  <head>\n"
        b"    <title>Feedwatch feeds</title>\n"
        b"    <dateCreated>Mon, 30 Nov 2026 09:15:00 +0000</dateCreated>\n"
        b"  </head>\n"
        b"  <body>\n"
        b'    <outline type="rss" text="Quillon &amp; friends" title="Quillon &amp; friends" '
        b'xmlUrl="https://quillon.example/feed/?a=1&amp;b=2" />\n'
        b'    <outline type="rss" text="\xe8\xb0\x83\xe5\xba\xa6\xe5\x99\xa8" '
        b'title="\xe8\xb0\x83\xe5\xba\xa6\xe5\x99\xa8" xmlUrl="https://notes.example/rss/" />\n'
        b"  </body>\n"
        b"</opml>\n"
    )
    assert parse_opml(document) == feeds


def test_only_outline_elements_count() -> None:
    doc = b'<opml><body><link xmlUrl="https://a.example/f"/><outline xmlUrl="https://b.example/f"/>'
    assert parse_opml(doc + b"</body></opml>") == [OpmlFeed(title="", url="https://b.example/f")]
