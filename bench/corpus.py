"""A deterministic feed corpus and the local server that plays it.

Feed i of a corpus behaves by i % 10: 0-5 answer 304 to conditional requests (60%), 6-7 ignore
validators and return the same body (20%), 8-9 change in the change cycle (20%: 1-3 new items,
two old ones leave, one real text edit). One feed in five is big (10 items, ~250 KB, like the
PyTorch blog feed); the others are ~35 KB. Small corpora use ~12 KB feeds.
"""

from __future__ import annotations

import hashlib
import random
import threading
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from functools import lru_cache

from aiohttp import web

WORDS = [
    "model",
    "training",
    "inference",
    "kernel",
    "compiler",
    "tensor",
    "graph",
    "memory",
    "accelerator",
    "cluster",
    "dataset",
    "benchmark",
    "release",
    "community",
    "foundation",
    "operator",
    "backend",
    "gradient",
    "optimizer",
    "throughput",
    "latency",
    "quantization",
    "sparse",
    "distributed",
    "pipeline",
    "checkpoint",
    "runtime",
    "library",
    "contributor",
]
BASE_DATE = datetime(2026, 9, 8, tzinfo=UTC)


def mode(i: int) -> str:
    r = i % 10
    return "304" if r < 6 else ("same" if r < 8 else "changed")


def is_big(i: int, small: bool) -> bool:
    return not small and (i // 10) % 5 == 0  # every fifth block of ten: all three modes


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + "."


def _item(feed: int, n: int, paragraphs: int, edited: bool, pages: str = "") -> str:
    rng = random.Random(feed * 100_003 + n)
    paras = []
    for p in range(paragraphs):
        text = " ".join(_sentence(rng) for _ in range(4))
        paras.append(f'<p><span style="font-weight: 400;">{text}</span></p>')
        if p == 0:
            paras.append(
                f'<p><img decoding="async" class="aligncenter wp-image-{n}" '
                f'src="https://blog.example/u/{feed}/{n}.png" srcset="a.png 1x, b.png 2x"></p>'
            )
    if edited:
        paras.append("<p>Update: the recording of this talk is now online.</p>")
    published = BASE_DATE - timedelta(hours=n * 7)
    return (
        f"<item><title>Post {n} of feed {feed}: {' '.join(rng.choice(WORDS) for _ in range(5))}</title>"
        f"<link>{pages or 'https://blog.example'}/{'p/' if pages else ''}{feed}/post-{n}/</link>"
        f"<dc:creator><![CDATA[Author {n % 7}]]></dc:creator>"
        f"<pubDate>{format_datetime(published)}</pubDate>"
        f"<category><![CDATA[Blog]]></category><category><![CDATA[Topic {n % 4}]]></category>"
        f'<guid isPermaLink="false">https://blog.example/?p={feed}-{n}</guid>'
        f"<description><![CDATA[{_sentence(rng)}]]></description>"
        f"<content:encoded><![CDATA[{''.join(paras)}]]></content:encoded></item>"
    )


@lru_cache(maxsize=4096)
def body(i: int, version: int, small: bool = False, pages: str = "") -> bytes:
    """Feed i's document; version 2 differs only for changing feeds. `pages`: the items link
    to article pages this server serves (full-text runs), at that base URL."""
    paragraphs = 60 if is_big(i, small) else (1 if small else 6)
    newest = 100
    edited_item = None
    if version == 2 and mode(i) == "changed":
        newest += 1 + i % 3
        edited_item = 97
    numbers = range(newest, newest - 10, -1)
    items = "".join(
        _item(i, n, paragraphs, edited=(n == edited_item), pages=pages) for n in numbers
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>'
        f"<title>Feed {i}</title><link>https://blog.example/{i}</link><description/>"
        f"{items}</channel></rss>"
    ).encode()


class CorpusServer:
    """Serves /c/{small|full}/{i}; POST /_reset and /_flip switch every feed's version."""

    def __init__(self) -> None:
        self.version = 1
        self.lock = threading.Lock()
        self.requests = 0
        self.pages = 0

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/c/{size}/{i}", self.feed)
        app.router.add_get("/p/{i}/{post}/", self.page)
        app.router.add_post("/_reset", self.reset)
        app.router.add_post("/_flip", self.flip)
        return app

    async def reset(self, request: web.Request) -> web.Response:
        self.version = 1
        return web.Response(text="ok")

    async def flip(self, request: web.Request) -> web.Response:
        self.version = 2
        return web.Response(text="ok")

    async def page(self, request: web.Request) -> web.Response:
        """A post's page: its paragraphs inside a news site's furniture (~30 KB)."""
        with self.lock:
            self.pages += 1
        return web.Response(body=article_page(request.match_info["post"]), content_type="text/html")

    async def feed(self, request: web.Request) -> web.Response:
        size, i = request.match_info["size"], int(request.match_info["i"])
        with self.lock:
            self.requests += 1
        pages = f"http://{request.host}" if size == "pages" else ""
        data = body(i, self.version, size == "small", pages)
        headers = {"Content-Type": "application/rss+xml; charset=UTF-8"}
        if mode(i) == "same":
            return web.Response(body=data, headers=headers)
        etag = _etag(data)
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(body=data, headers={**headers, "ETag": etag})


@lru_cache(maxsize=4096)
def _etag(data: bytes) -> str:
    """A body's validator, hashed once (a 250 KB body is hashed on every request otherwise)."""
    return '"' + hashlib.sha1(data).hexdigest() + '"'


@lru_cache(maxsize=1024)
def article_page(post: str) -> bytes:
    """A news-site page around an article of eight paragraphs (deterministic per post)."""
    rng = random.Random(post)
    article = "".join(f"<p>{' '.join(_sentence(rng) for _ in range(5))}</p>" for _ in range(8))
    menu = "".join(f'<li><a href="/s/{n}">Section {n}</a></li>' for n in range(40))
    related = "".join(f'<li><a href="/r/{n}">{_sentence(rng)}</a></li>' for n in range(12))
    comments = "".join(f'<div class="comment"><p>{_sentence(rng)}</p></div>' for _ in range(20))
    return (
        "<!doctype html><html><head><title>Post</title>"
        '<meta property="og:image" content="/img/post.jpg"></head><body>'
        '<div class="cookie-banner">We use cookies. <button>Accept</button></div>'
        f"<header><nav><ul>{menu}</ul></nav></header><main><article><h1>Post</h1>{article}"
        f'</article><section class="related"><h3>Related</h3><ul>{related}</ul></section>'
        f'<section id="comments">{comments}</section></main><footer>© Blog</footer></body></html>'
    ).encode()
