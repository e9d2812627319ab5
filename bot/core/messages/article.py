"""A post's web page → its article: the main text as simple HTML, and its image.

Extraction is trafilatura's (`bare_extraction`, precision over recall, no comments) on HTML we
fetched ourselves: its own downloader would bypass the SSRF guard and the size limits, so it is
never called (`tests/test_architecture.py` keeps `trafilatura.downloads` out of the core).
Navigation, cookie banners, ads, related posts and comments are not the article; what is left
goes through the same summary rules as a feed's own HTML (`core/messages/summary.py`).

trafilatura's cost grows faster than the page (about n² in one block's inline elements: 120 KB
of `<span>`s took 2.3 s, 450 KB 42 s), so the tree it sees is bounded first (`bounded`): the
first `MAX_ELEMENTS` elements in document order (the message needs the top of the article), at
most `MAX_CHILDREN` children per element and `MAX_DEPTH` levels. Where it runs, it can still be
stopped (`services/pageworkers.py`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from bot.core.urls import url_problem

NO_TEXT = "no article text found on the page"
MIN_WORDS = 30  # less than this is a login wall, an error page or a gallery, not an article
MAX_ARTICLE_CHARS = 200_000  # the stored HTML; summaries read far less
# A real article's page holds 1,000-5,000 elements and its text blocks tens of inline ones; a
# bounded tree costs trafilatura at most about a second of CPU, whatever its shape.
MAX_ELEMENTS = 8_000
MAX_CHILDREN = 500
MAX_DEPTH = 64
_BODY = re.compile(r"<body>(.*)</body>", re.DOTALL)
_HEADING = re.compile(r"^\s*<h1>(.*?)</h1>\s*", re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True, slots=True)
class Article:
    """What a post's page gave: the article as HTML (p, h2–h6, lists, quotes, tables), its
    image (an absolute http(s) URL), or `error` saying why there is none."""

    html: str = ""
    image: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return bool(self.html) and self.error is None


def failed(reason: str) -> Article:
    return Article(error=reason[:300])


def extract_article(page: bytes, url: str, title: str = "") -> Article:
    """The article on `page` (fetched from `url`), or an Article saying why there is none."""
    # Imported on first use: trafilatura and its date libraries hold ~26 MB, which a bot
    # without full-text feeds never needs.
    from trafilatura import bare_extraction
    from trafilatura.htmlprocessing import build_html_output
    from trafilatura.metadata import examine_meta
    from trafilatura.settings import Document
    from trafilatura.utils import load_html

    try:
        tree = load_html(page)
        if tree is None:
            return failed(NO_TEXT)
        bounded(tree)
        # The page's own metadata gives the image and the title; the rest of trafilatura's
        # metadata (dates through htmldate, authors, licences) would cost twice the extraction.
        meta = examine_meta(tree)
        # Tables are kept and images and links left out by default; links and images are the
        # message's own business (only checked, absolute links; the post's one image).
        found = bare_extraction(
            tree, url=url, favor_precision=True, include_comments=False, include_formatting=True
        )
    except Exception as exc:  # a library fault on one hostile page is that page's problem
        return failed(f"extraction failed: {type(exc).__name__}")
    if not isinstance(found, Document) or found.body is None:
        return failed(NO_TEXT)
    body = _inner(build_html_output(found))
    body = _without_title(body, title or (meta.title or ""))
    if _words(body) < MIN_WORDS:
        return failed("no article text found on the page (too few words: a login or an index?)")
    image = urljoin(url, meta.image) if meta.image else None
    if image is not None and url_problem(image) is not None:
        image = None
    return Article(html=body[:MAX_ARTICLE_CHARS], image=image)


def bounded(root: Any) -> int:
    """Cut `root` (an lxml tree) to its first `MAX_ELEMENTS` elements in document order, at
    most `MAX_CHILDREN` children each, `MAX_DEPTH` levels deep; return how many subtrees went.
    A walk in document order whose unvisited subtrees are dropped once the budget is spent."""
    seen = 0
    cut = []
    stack = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        if seen >= MAX_ELEMENTS:
            cut.append(element)
            continue
        seen += 1
        children = [child for child in element if isinstance(child.tag, str)]
        if depth >= MAX_DEPTH:
            cut.extend(children)
            continue
        cut.extend(children[MAX_CHILDREN:])
        stack.extend((child, depth + 1) for child in reversed(children[:MAX_CHILDREN]))
    for element in cut:
        element.getparent().remove(element)
    return len(cut)


def _inner(document: str) -> str:
    """The children of <body> (trafilatura wraps its HTML in html/body)."""
    inside = _BODY.search(document)
    return (inside.group(1) if inside else document).strip()


def _without_title(body: str, title: str) -> str:
    """The page's own <h1> repeats the post's title, which the message already shows."""
    heading = _HEADING.match(body)
    if heading and _plain(heading.group(1)).casefold() == _plain(title).casefold():
        return body[heading.end() :]
    return body


def _plain(fragment: str) -> str:
    return _SPACE.sub(" ", html.unescape(_TAGS.sub("", fragment))).strip()


def _words(body: str) -> int:
    text = _plain(body)
    return len(_WORD.findall(text)) + len(_CJK.findall(text))  # a CJK character ≈ a word
