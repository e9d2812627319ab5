"""Hostile and broken feeds: each is one clear log line and an error status on that feed; the
other feeds keep working in the same cycle, nothing from outside leaks in, memory stays bounded."""

from __future__ import annotations

import gzip
import logging
import resource
import zlib
from collections.abc import AsyncIterator, Iterator
from functools import cache
from pathlib import Path

import pytest
from aiohttp import web
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from bot.core.feeds.entries import MAX_ITEMS
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Delivery, Feed, Item
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes import feed_server as fs
from tests.support.fakes.raw_tcp import RawServer, reset_midway, silent
from tests.support.fixtures import blog
from tests.support.settings import make_settings
from tests.support.telegram_html import assert_valid_telegram_html

MAX_BYTES = 2 * 1024 * 1024


@cache
def gzip_bomb() -> bytes:
    """1 GiB of zeros, gzip-compressed (about 1 MB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"\0" * (1 << 20)
    return b"".join(packer.compress(chunk) for _ in range(1024)) + packer.flush()


def endless(chunk: bytes, total: int | None = None) -> fs.Behaviour:
    async def respond(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/rss+xml"})
        if total is not None:
            response.content_length = total
        await response.prepare(request)
        sent = 0
        while total is None or sent < total:
            await response.write(chunk)
            sent += len(chunk)
        return response

    return respond


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.fixture
async def poller(engine: Engine, db_url: str) -> AsyncIterator[Poller]:
    settings = make_settings(db_url, max_feed_bytes=MAX_BYTES, fetch_timeout_seconds=2.0)
    async with make_fetcher(settings) as fetcher:
        yield Poller(engine, fetcher, settings)


@pytest.fixture
def raw_silent() -> Iterator[RawServer]:
    server = RawServer(silent).start()
    yield server
    server.stop()


@pytest.fixture
def raw_reset() -> Iterator[RawServer]:
    server = RawServer(reset_midway).start()
    yield server
    server.stop()


async def _with_a_healthy_neighbour(
    poller: Poller, feeds: fs.FeedServer, hostile_url: str, caplog: pytest.LogCaptureFixture
) -> tuple[str | None, store.FeedView]:
    """Poll a hostile feed next to a healthy one; return the hostile feed's error and row."""
    good = feeds.serve("/good", blog.rss(blog.BEFORE_POSTS))
    await Catalog(poller).add_feed(good, slug="good", trusted=True)
    with transaction(poller.engine) as session:
        hostile = store.add_feed(
            session, slug="hostile", url=hostile_url, title="hostile", trusted=True
        )
        session.exec(update(Feed).where(col(Feed.id) == hostile.id).values(baseline_done=True))
    feeds.serve("/good", blog.rss(blog.AFTER_POSTS))
    before = peak_rss_mb()
    with caplog.at_level(logging.INFO, logger="bot"):
        report = await poller.poll_due(all_feeds=True)
    grown = peak_rss_mb() - before
    assert grown < 150, f"peak memory grew by {grown:.0f} MB"
    by_slug = {o.slug: o for o in report.outcomes}
    assert len(by_slug["good"].changes) == 3, "the healthy feed must keep working"
    lines = [
        r.getMessage()
        for r in caplog.records
        if "hostile" in r.getMessage() and r.levelno >= logging.WARNING
    ]
    with Session(poller.engine) as session:
        row = store.get_feed(session, slug="hostile")
        assert row is not None
    if by_slug["hostile"].error:
        assert len(lines) == 1 and "\n" not in lines[0], lines
        assert row.status == "error" and row.last_error == by_slug["hostile"].error
    return by_slug["hostile"].error, row


@pytest.mark.parametrize(
    ("behaviour", "expected"),
    [
        (
            lambda: fs.raw(
                gzip_bomb(), **{"Content-Encoding": "gzip", "Content-Type": "application/rss+xml"}
            ),
            "decompressed body larger than",
        ),
        (
            lambda: fs.raw(
                gzip.compress(gzip.compress(b"\0" * 10_000_000)),
                **{"Content-Encoding": "gzip, gzip"},
            ),
            "unsupported content encoding",
        ),
        (lambda: endless(b"<item>" * 10_000, total=50 * 1024 * 1024), "body larger than"),
        (lambda: endless(b"<item>" * 10_000), "body larger than"),
        (lambda: fs.trickle(b"<", every=1.0, count=60), "timed out"),
        (
            lambda: fs.raw(b"<html><body>It works!</body></html>", **{"Content-Type": "text/html"}),
            "not a feed",
        ),
        (lambda: fs.raw(b"", **{"Content-Type": "application/rss+xml"}), "not a feed"),
        (
            lambda: fs.raw(
                b'{"error": "rate limited", "retry": true}',  # JSON, but no JSON Feed
                **{"Content-Type": "application/json"},
            ),
            "not a feed",
        ),
        (lambda: fs.redirect(302, "/hostile"), "more than 5 redirects"),
        (lambda: fs.redirect(302, "gopher://127.0.0.1:70/"), "only http and https"),
        (lambda: fs.redirect(301, "file:///etc/passwd"), "only http and https"),
    ],
    ids=[
        "gzip-bomb-1GiB",
        "stacked-gzip",
        "50MB-body",
        "endless-chunked",
        "slowloris",
        "html-200",
        "empty-200",
        "json",
        "redirect-loop",
        "gopher",
        "file",
    ],
)
async def test_hostile_http_answers(
    poller: Poller,
    feeds: fs.FeedServer,
    caplog: pytest.LogCaptureFixture,
    behaviour: object,
    expected: str,
) -> None:
    url = feeds.behave("/hostile", behaviour())  # type: ignore[operator]
    error, _ = await _with_a_healthy_neighbour(poller, feeds, url, caplog)
    assert error is not None and expected in error


async def test_a_server_that_accepts_and_never_answers(
    poller: Poller, feeds: fs.FeedServer, raw_silent: RawServer, caplog: pytest.LogCaptureFixture
) -> None:
    error, _ = await _with_a_healthy_neighbour(poller, feeds, raw_silent.url(), caplog)
    assert error is not None and "timed out" in error


async def test_a_connection_reset_midway(
    poller: Poller, feeds: fs.FeedServer, raw_reset: RawServer, caplog: pytest.LogCaptureFixture
) -> None:
    error, _ = await _with_a_healthy_neighbour(poller, feeds, raw_reset.url(), caplog)
    assert error is not None and ("connection" in error or "reset" in error)


def _xml_feed(items: str, *, encoding: str = "utf-8", doctype: str = "") -> bytes:
    head = f'<?xml version="1.0" encoding="{encoding}"?>{doctype}<rss version="2.0"><channel><title>H</title>'
    return head.encode() + items.encode("latin-1", "replace") + b"</channel></rss>"


async def test_entity_expansion_and_external_entities_are_never_resolved(
    poller: Poller, feeds: fs.FeedServer, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-7f3a9c")
    levels = "".join(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(2, 10))
    doctype = f'<!DOCTYPE rss [<!ENTITY lol1 "lol">{levels}<!ENTITY xxe SYSTEM "file://{secret}">]>'
    body = _xml_feed(
        "<item><guid>1</guid><title>A &lol4; B</title><description>C &xxe; D &lol9;</description></item>",
        doctype=doctype,
    )
    url = feeds.serve("/hostile", body)
    with transaction(
        poller.engine
    ) as session:  # a chat is subscribed, so messages are rendered too
        store.upsert_chat(session, chat_id=5, type_="private", title="")
    _error, row = await _with_a_healthy_neighbour(poller, feeds, url, caplog)
    with Session(poller.engine) as session:
        items = session.exec(select(Item).where(Item.feed_id == row.id)).all()
        texts = [i.title + i.text for i in items] + list(session.exec(select(Delivery.text)).all())
    assert len(items) == 1 and items[0].title.startswith("A")  # parsed, with nothing expanded
    for text in texts:
        assert "TOP-SECRET" not in text
        assert text.count("lol") < 100, "an entity was expanded"


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (
            b'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>H</title><item><guid>1</guid><title>caf\xe9 \xff\xfe broken</title></item></channel></rss>',
            {},
        ),
        (
            '<?xml version="1.0" encoding="iso-8859-1"?><rss version="2.0"><channel><title>H</title><item><guid>1</guid><title>Ünïcödé ☃</title></item></channel></rss>'.encode(),
            {"Content-Type": "application/rss+xml; charset=shift_jis"},
        ),
    ],
    ids=["invalid-utf8", "wrong-declared-encoding"],
)
async def test_bad_encodings_still_give_items(
    poller: Poller,
    feeds: fs.FeedServer,
    caplog: pytest.LogCaptureFixture,
    body: bytes,
    headers: dict[str, str],
) -> None:
    url = feeds.behave("/hostile", fs.raw(body, **headers))
    error, row = await _with_a_healthy_neighbour(poller, feeds, url, caplog)
    assert error is None
    with Session(poller.engine) as session:
        items = session.exec(select(Item).where(Item.feed_id == row.id)).all()
    assert len(items) == 1 and items[0].title


async def test_hostile_item_fields(
    poller: Poller, feeds: fs.FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    huge_title = "T" * 1_000_000
    items = (
        f"<item><guid>big</guid><title>{huge_title}</title></item>"
        "<item><guid>ctl</guid><title>evil\u202egnp.exe\x01\x1b[31m red</title></item>"
        "<item><guid>future</guid><title>Future</title><pubDate>Fri, 31 Dec 9999 23:59:59 +0000</pubDate></item>"
        "<item><guid>zero</guid><title>Zero</title><pubDate>Mon, 01 Jan 0000 00:00:00 +0000</pubDate></item>"
        "<item><guid>dup</guid><title>First</title></item><item><guid>dup</guid><title>Second</title></item>"
        "<item><guid>js</guid><title>Link</title><link>javascript:alert(document.cookie)</link></item>"
    )
    body = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>H</title>'
        + items
        + "</channel></rss>"
    ).encode()
    url = feeds.serve("/hostile", body)
    with transaction(poller.engine) as session:
        feed = store.add_feed(
            session, slug="hostile-sub", url=feeds.url("/unused"), title="x", trusted=True
        )
        del feed
    error, row = await _with_a_healthy_neighbour(poller, feeds, url, caplog)
    assert error is None
    with Session(poller.engine) as session:
        stored = {i.key: i for i in session.exec(select(Item).where(Item.feed_id == row.id)).all()}
    assert set(stored) == {"big", "ctl", "future", "zero", "dup", "js"}
    assert len(stored["big"].title) == 1000
    assert stored["ctl"].title == "evilgnp.exe [31m red"
    assert stored["dup"].title == "First"
    assert stored["js"].link is None
    from bot.core.feeds.parse import parse_feed
    from bot.core.messages.render import render_change
    from bot.core.types import Change, ChangeKind, FeedInfo

    for item in parse_feed(body).items:
        assert_valid_telegram_html(render_change(Change(ChangeKind.NEW, item), FeedInfo("h", "H")))


async def test_ten_thousand_items_in_one_feed(
    poller: Poller, feeds: fs.FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    items = "".join(
        f"<item><guid>g{n}</guid><title>Post {n}</title><description>Body {n}.</description></item>"
        for n in range(10_000)
    )
    url = feeds.serve(
        "/hostile",
        (
            '<?xml version="1.0"?><rss version="2.0"><channel><title>H</title>'
            + items
            + "</channel></rss>"
        ).encode(),
    )
    error, row = await _with_a_healthy_neighbour(poller, feeds, url, caplog)
    assert error is None
    with Session(poller.engine) as session:
        count = len(session.exec(select(Item.id).where(Item.feed_id == row.id)).all())
    assert count == MAX_ITEMS
