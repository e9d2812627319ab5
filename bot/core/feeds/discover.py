"""Finding a site's feeds from one of its web pages (pure: bytes in, URLs out).

People paste a blog's address, not its feed's. Browsers and feed readers look for
`<link rel="alternate" type="application/rss+xml" href="…">` in the page's head; blogs without
one usually still answer on a handful of well-known paths. The service layer fetches what this
module proposes, each through the SSRF guard, and keeps what parses as a feed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit, urlunsplit

from bot.core.urls import url_problem

FEED_TYPES = frozenset(
    {
        "application/rss+xml",
        "application/atom+xml",
        "application/rdf+xml",
        "application/feed+json",
        "application/json",  # JSON Feed's older media type
    }
)
# Where WordPress, Ghost, Hugo, Jekyll and static generators put their feed, likeliest first.
COMMON_PATHS = ("feed/", "rss.xml", "atom.xml", "index.xml", "feed.xml", "rss/", "feed.json")
MAX_PAGE_BYTES = 1024 * 1024  # the head is at the top; a huge page is not read to its end
MAX_LINKS = 6
_COMMENTS = re.compile(r"(?i)comments?(/feed|[-_ ]feed|\b)")


@dataclass(frozen=True, slots=True)
class FeedLink:
    """A feed a page points to: its absolute URL and the title the page gives it."""

    url: str
    title: str = ""


class _LinkFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.base: str | None = None
        self.links: list[FeedLink] = []
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        values = {name.lower(): value.strip() for name, value in attrs if value is not None}
        if tag == "base" and values.get("href") and self.base is None:
            self.base = values["href"]
        elif tag == "link":
            rel = values.get("rel", "").lower().split()
            kind = values.get("type", "").lower().split(";")[0].strip()
            if "alternate" in rel and kind in FEED_TYPES and values.get("href"):
                self.links.append(FeedLink(values["href"], values.get("title", "")))
        elif tag == "body":
            self.done = True  # feed links live in the head; the rest is only slower

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


SNIFF_BYTES = 1024  # what a document's first bytes must say about it
_FEED_ROOTS = (b"<rss", b"<feed", b"<rdf:rdf")


def looks_like_html(body: bytes, content_type: str = "") -> bool:
    """A web page rather than a feed, judged by its first bytes before its media type: many
    servers label feeds `text/html`, and an XHTML page starts with `<?xml` like a feed. Only
    this much is read before anything is parsed (a page may be 10 MB of markup)."""
    head = body[:SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"{", b"[")):
        return False  # JSON: a JSON Feed or nothing
    page = _first(head, (b"<html", b"<!doctype html"))
    feed = _first(head, _FEED_ROOTS)
    if feed >= 0 and (page < 0 or feed < page):
        return False
    return page >= 0 or "html" in content_type.lower()


def _first(head: bytes, marks: tuple[bytes, ...]) -> int:
    """Where the first of `marks` starts in `head`, or -1."""
    return min((i for i in (head.find(mark) for mark in marks) if i >= 0), default=-1)


def feed_links(page: bytes, page_url: str) -> list[FeedLink]:
    """The feeds a page announces, absolute, http(s) only, each once, in the page's order.

    A blog's comments feed is dropped when the page also has another one: people subscribing
    to a blog want its posts (WordPress announces both on every page).
    """
    finder = _LinkFinder()
    head = page[:MAX_PAGE_BYTES]
    body_at = head.lower().find(b"<body")
    finder.feed(head[: body_at if body_at >= 0 else None].decode("utf-8", "replace"))
    base = urljoin(page_url, finder.base or "")
    found: list[FeedLink] = []
    seen: set[str] = set()
    for link in finder.links:
        url = urljoin(base, link.url)
        if url_problem(url) is not None or url in seen:
            continue
        seen.add(url)
        found.append(FeedLink(url, link.title[:200]))
    posts = [link for link in found if not is_comments_feed(link)]
    return (posts or found)[:MAX_LINKS]


def is_comments_feed(link: FeedLink) -> bool:
    return bool(_COMMENTS.search(urlsplit(link.url).path) or _COMMENTS.search(link.title))


def common_feed_urls(page_url: str) -> list[str]:
    """Well-known feed paths to try when a page announces none: under the page's own folder
    first (`/blog/feed/` for `/blog/`), then at the site's root."""
    parts = urlsplit(page_url)
    folder = parts.path.rpartition("/")[0] + "/"
    urls: list[str] = []
    for place in (folder, "/"):
        for path in COMMON_PATHS:
            url = urlunsplit((parts.scheme, parts.netloc, place + path, "", ""))
            if url not in urls:
                urls.append(url)
    return urls


def with_scheme(text: str) -> str:
    """`example.org/feed` as people type it → `https://example.org/feed`."""
    text = text.strip()
    return text if re.match(r"(?i)^[a-z][a-z0-9+.-]*://", text) else "https://" + text


def looks_like_url(text: str) -> bool:
    """What /subscribe treats as an address rather than a feed's name: a scheme, or a dotted
    host name (`pytorch.org/blog`); feed names have no dots."""
    text = text.strip()
    if any(ch.isspace() for ch in text):
        return False
    if re.match(r"(?i)^https?://", text):
        return True
    host = text.split("/")[0]
    return bool(re.fullmatch(r"(?i)[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]{1,5})?", host))
