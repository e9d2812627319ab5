"""Parsing: keys, categories, dates, encodings, and what is not a feed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import parse_feed
from bot.core.urls import safe_link
from tests.support.fixtures import blog


def test_parses_the_fixture_like_the_seed() -> None:
    parsed = parse_feed(blog.rss(blog.AFTER_POSTS), {"Content-Type": "application/rss+xml"})
    assert parsed.title == "Lumen Blog"
    first = parsed.items[0]
    assert first.key == blog.LISBON.guid
    assert first.categories == ("Announcements", "Blog", "Press Release")
    assert first.author == "Lumen Foundation"
    assert (
        first.published is not None and first.published.isoformat() == "2026-09-08T01:00:02+00:00"
    )
    assert "Platinum members" in first.text and "<" not in first.text


def test_key_falls_back_to_link_then_to_a_hash_of_title_and_date() -> None:
    no_guid = parse_feed(blog.rss(blog.without_guids(blog.AFTER_POSTS)))
    assert no_guid.items[0].key == blog.LISBON.link
    bare = b"""<rss version="2.0"><channel><title>t</title>
      <item><title>Only a title</title><pubDate>Tue, 08 Sep 2026 01:00:02 +0000</pubDate></item>
    </channel></rss>"""
    key = parse_feed(bare).items[0].key
    assert key.startswith("sha256:") and key == parse_feed(bare).items[0].key


def test_atom_feeds_and_declared_encodings_work() -> None:
    atom = """<?xml version="1.0" encoding="iso-8859-1"?>
    <feed xmlns="http://www.w3.org/2005/Atom"><title>Caf\xe9</title>
    <entry><id>urn:1</id><title type="html">&lt;b&gt;Cr\xe8me&lt;/b&gt; br\xfbl\xe9e</title>
    <link href="https://x.example/1"/><updated>2026-09-08T00:00:00Z</updated>
    <category term=" Dessert "/><content type="html">&lt;p&gt;Sweet.&lt;/p&gt;</content></entry></feed>
    """.encode("iso-8859-1")
    parsed = parse_feed(atom)
    assert parsed.title == "Café"
    item = parsed.items[0]
    assert (item.title, item.categories, item.text) == ("Crème brûlée", ("Dessert",), "Sweet.")


def test_duplicate_guids_inside_one_feed_keep_the_first() -> None:
    doubled = blog.rss((blog.LISBON, blog.LISBON, blog.CORVID))
    assert [i.key for i in parse_feed(doubled).items] == [blog.LISBON.guid, blog.CORVID.guid]


@pytest.mark.parametrize(
    "body",
    [b"", b"<html><body>502 Bad Gateway</body></html>", b'{"a": 1}', b"\xff\xfe\x00garbage"],
)
def test_bodies_that_are_not_feeds_are_refused(body: bytes) -> None:
    with pytest.raises(NotAFeed):
        parse_feed(body)


def test_a_local_path_is_never_opened(tmp_path: Path) -> None:
    """The path of a real, valid feed file: had feedparser opened it, the feed would parse."""
    path = tmp_path / "feed.xml"
    path.write_bytes(blog.rss(blog.BEFORE_POSTS))
    assert parse_feed(path.read_bytes()).items  # the file itself is a feed …
    with pytest.raises(NotAFeed):
        parse_feed(str(path).encode())  # … but its path is only a path


@pytest.mark.parametrize(
    ("link", "kept"),
    [
        ("https://x.example/a", True),
        ("http://x.example/a?b=1", True),
        ("javascript:alert(1)", False),
        ("data:text/html,hi", False),
        ("/relative", False),
        ("https://x.example/a b", False),
    ],
)
def test_only_absolute_http_links_are_kept(link: str, kept: bool) -> None:
    assert (safe_link(link) is not None) is kept


def test_control_and_bidi_characters_are_stripped_from_titles() -> None:
    body = blog.rss((blog.LISBON,)).replace(b"Acme Compute", "Acme\u202e Com\x07pute".encode())
    assert parse_feed(body).items[0].title.startswith("Acme Com pute")
