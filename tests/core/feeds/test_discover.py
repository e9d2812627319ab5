"""Finding a site's feeds in its page (pure): what real generators put in a page's head."""

from __future__ import annotations

import pytest

from bot.core.feeds.discover import (
    MAX_LINKS,
    MAX_PAGE_BYTES,
    FeedLink,
    common_feed_urls,
    feed_links,
    is_comments_feed,
    looks_like_html,
    looks_like_url,
    with_scheme,
)

# The head WordPress writes: the posts feed, then the comments feed, both absolute.
WORDPRESS = b"""<!DOCTYPE html>
<html lang="en-US"><head><meta charset="UTF-8">
<title>Notes on Compilers</title>
<link rel="alternate" type="application/rss+xml" title="Notes on Compilers &raquo; Feed"
 href="https://notes.example/feed/" />
<link rel="alternate" type="application/rss+xml"
 title="Notes on Compilers &raquo; Comments Feed" href="https://notes.example/comments/feed/" />
<link rel="https://api.w.org/" href="https://notes.example/wp-json/" />
</head><body><p>Hello</p></body></html>"""

# Ghost and Hugo write relative hrefs; Jekyll an Atom feed; a JSON Feed beside RSS.
RELATIVE = b"""<html><head>
<base href="/blog/">
<link rel="alternate" type="application/atom+xml" href="atom.xml" title="Atom">
<LINK REL="Alternate Home" TYPE="Application/RSS+XML; charset=utf-8" HREF="rss/">
<link rel="alternate" type="application/feed+json" href="/feed.json" title="JSON Feed">
<link rel="alternate" type="text/html" href="/es/" hreflang="es">
<link rel="stylesheet" type="text/css" href="/style.css">
<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
<link rel="alternate" type="application/rss+xml" href="atom.xml">
<link type="application/rss+xml" href="/no-rel.xml">
<link rel="alternate" type="application/rss+xml">
<link rel="alternate" type="application/rss+xml" href="/last.xml" title="Last">
</head><body>
<link rel="alternate" type="application/rss+xml" href="/in-body.xml">
</body></html>"""


def test_wordpress_posts_feed_without_its_comments_feed() -> None:
    links = feed_links(WORDPRESS, "https://notes.example/")
    assert links == [FeedLink("https://notes.example/feed/", "Notes on Compilers » Feed")]


def test_only_comments_feeds_are_kept_when_there_is_nothing_else() -> None:
    page = b'<link rel="alternate" type="application/rss+xml" href="/comments/feed/">'
    assert feed_links(page, "https://a.example/") == [FeedLink("https://a.example/comments/feed/")]


def test_relative_links_base_case_and_types() -> None:
    links = feed_links(RELATIVE, "https://site.example/blog/post.html")
    assert [link.url for link in links] == [
        "https://site.example/blog/atom.xml",
        "https://site.example/blog/rss/",
        "https://site.example/feed.json",
        "https://site.example/last.xml",
    ]
    assert links[0].title == "Atom" and links[1].title == ""


def test_pages_in_other_encodings_and_long_titles() -> None:
    title = "Café " * 60
    page = (
        '<html><head><title>\xe9t\xe9</title><link rel="alternate" '
        f'type="application/rss+xml" href="/f.xml" title="{title}"></head></html>'
    ).encode("latin-1")
    (link,) = feed_links(page, "https://a.example/")
    assert link.url == "https://a.example/f.xml"
    assert link.title == "Caf\ufffd " * 40  # undecodable bytes replaced; cut at 200


def test_links_after_the_head_and_past_the_cap_are_not_read() -> None:
    many = "".join(
        f'<link rel="alternate" type="application/rss+xml" href="/f{n}.xml">' for n in range(9)
    )
    assert len(feed_links(many.encode(), "https://a.example/")) == MAX_LINKS
    late = b" " * MAX_PAGE_BYTES + b'<link rel="alternate" type="application/rss+xml" href="/x">'
    assert feed_links(late, "https://a.example/") == []


def test_a_self_closing_base_and_links_in_xhtml() -> None:
    page = (
        b'<html xmlns="http://www.w3.org/1999/xhtml"><head><base href="https://cdn.example/s/"/>'
        b'<base href="https://other.example/"/>'
        b'<link rel="alternate" type="application/atom+xml" href="a.xml"/></head></html>'
    )
    assert feed_links(page, "https://a.example/") == [FeedLink("https://cdn.example/s/a.xml")]


@pytest.mark.parametrize(
    ("url", "title", "comments"),
    [
        ("https://a.example/comments/feed/", "", True),
        ("https://a.example/feed/", "Site » Comments Feed", True),
        ("https://a.example/comment-feed.xml", "", True),
        ("https://a.example/feed/", "Site » Feed", False),
        ("https://a.example/commentary/feed/", "Commentary", False),
    ],
)
def test_comments_feeds(url: str, title: str, comments: bool) -> None:
    assert is_comments_feed(FeedLink(url, title)) is comments


def test_common_paths_under_the_page_folder_first_then_the_root() -> None:
    urls = common_feed_urls("https://pytorch.example/blog/index.html?x=1#top")
    assert urls[:3] == [
        "https://pytorch.example/blog/feed/",
        "https://pytorch.example/blog/rss.xml",
        "https://pytorch.example/blog/atom.xml",
    ]
    assert urls[7] == "https://pytorch.example/feed/"
    assert len(urls) == 14 and len(set(urls)) == 14
    root = common_feed_urls("https://a.example")
    assert root == [
        f"https://a.example/{path}"
        for path in ("feed/", "rss.xml", "atom.xml", "index.xml", "feed.xml", "rss/", "feed.json")
    ]
    assert common_feed_urls("https://a.example/") == root


@pytest.mark.parametrize(
    ("body", "content_type", "html"),
    [
        (b"<!DOCTYPE html><html>", "", True),
        (b"  \n<html lang=en>", "", True),
        (b"<?xml version='1.0'?><html>", "", True),
        (b"<?xml version='1.0'?><rss>", "text/html", False),  # a feed mislabelled
        (b"<?xml version='1.0'?><!DOCTYPE html><html>", "application/xml", True),
        (b"\xef\xbb\xbf<html>", "", True),
        (b"<p>hello</p>", "text/html; charset=utf-8", True),
        (b"<p>hello</p>", "application/octet-stream", False),
        (b"<html>" + b"x" * 2000 + b"<rss>", "", True),
        (b"<rss>" + b"x" * 2000, "text/html", False),
        (b" " * 1100 + b"<html>", "", False),  # only the first KB is looked at
        (b"<?xml version='1.0'?><rss version='2.0'>", "application/rss+xml", False),
        (b'{"version": "https://jsonfeed.org/version/1.1"}', "application/json", False),
    ],
)
def test_looks_like_html(body: bytes, content_type: str, html: bool) -> None:
    assert looks_like_html(body, content_type) is html


def test_looks_like_html_reads_only_the_start() -> None:
    assert not looks_like_html(b" " * 1024 + b"<html>")
    assert looks_like_html(b"<!DOCTYPE html>" + b" " * 1100 + b"<html>")


def test_wordpress_without_pretty_links() -> None:
    page = b'<link rel="alternate" type="application/rss+xml" href="?feed=rss2">'
    (link,) = feed_links(page, "https://a.example/index.php")
    assert link.url == "https://a.example/index.php?feed=rss2"


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://pytorch.example/blog/", True),
        ("HTTP://a.example", True),
        ("pytorch.example/blog/feed/", True),
        ("blog.example:8080/feed", True),
        ("www.example.org", True),
        ("lumen", False),
        ("lumen-blog", False),
        ("two words.example", False),
        ("", False),
        ("  ", False),
        ("ftp://a.example/feed", False),
        ("a.example:123456/feed", False),
        ("-bad.example", True),
    ],
)
def test_looks_like_url(text: str, url: bool) -> None:
    assert looks_like_url(text) is url


def test_with_scheme() -> None:
    assert with_scheme(" pytorch.example/blog ") == "https://pytorch.example/blog"
    assert with_scheme("http://a.example/") == "http://a.example/"
    assert with_scheme("HTTPS://a.example/") == "HTTPS://a.example/"
    assert with_scheme("ftp://a.example/") == "ftp://a.example/"  # refused later, not rewritten
