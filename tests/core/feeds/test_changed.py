"""Issue 48: reading only the items whose bytes changed gives what reading the whole document
gives, on every fixture: the golden files, the generators' poll histories (every event of
detection compared), hostile documents, and feedparser's own corpus (about 2,240 documents)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import bot.core.feeds.changed as changed
from bot.core.detection.detect import detect
from bot.core.detection.identity import identity_of
from bot.core.feeds import parse
from bot.core.feeds.changed import read_changed
from bot.core.feeds.entries import MAX_ITEMS, NotAFeed
from bot.core.feeds.parse import finish_feed, read_feed
from bot.core.text import FINGERPRINT_VERSION
from bot.core.types import Detection, ParsedItem, RawEntry, RawFeed, StoredItem
from tests.support.corpus import corpus_dir
from tests.support.fixtures import generators as g

URL = "https://www.tidepool.example/feed/"
XML = {"Content-Type": "application/rss+xml; charset=UTF-8"}
DATA = Path(__file__).resolve().parents[2] / "data"
GOLDEN = sorted(p for p in DATA.iterdir() if p.suffix in (".rss", ".atom"))
# What a stored row stands in for when its bytes did not change (its markup is not kept).
STAND_IN = [
    "key",
    "title",
    "link",
    "author",
    "published",
    "categories",
    "content_hash",
    "position",
    "image",
    "full",
    "excerpt_hash",
    "raw_hash",
]


def stored(entry: RawEntry | ParsedItem, *, text: str = "", fingerprint: str = "") -> StoredItem:
    """The row a full reading of `entry` leaves (as `store.write_items` writes it)."""
    return StoredItem(
        entry.key,
        entry.title,
        text,
        fingerprint,
        entry.content_hash,
        FINGERPRINT_VERSION,
        link=entry.link,
        published=entry.published,
        identity=identity_of(entry.key, entry.link, entry.title, entry.published),
        full=entry.full,
        excerpt_hash=entry.excerpt_hash,
        categories=entry.categories,
        raw_hash=entry.raw_hash,
        author=entry.author,
        image=entry.image,
    )


def by_hash(entries: Sequence[RawEntry]) -> dict[str, StoredItem]:
    return {e.raw_hash: stored(e) for e in entries if e.raw_hash is not None}


@pytest.fixture
def fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every document `read_changed` hands to the whole reading."""
    seen: list[bytes] = []

    def whole(body: bytes, *args: object, **kwargs: object) -> RawFeed:
        seen.append(body)
        return read_feed(body, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(changed, "read_feed", whole)
    return seen


def assert_same(quick: RawFeed, full: RawFeed, known: dict[str, StoredItem]) -> None:
    """Feed fields equal; an entry read again equals the full reading's; a stand-in carries
    the full reading's values wherever it carries any."""
    assert (quick.title, quick.link, quick.warning, quick.ttl_seconds, quick.language) == (
        full.title,
        full.link,
        full.warning,
        full.ttl_seconds,
        full.language,
    )
    assert quick.copies == full.copies
    assert len(quick.entries) == len(full.entries)
    for mine, theirs in zip(quick.entries, full.entries, strict=True):
        if mine.raw_hash in known:
            assert [getattr(mine, f) for f in STAND_IN] == [getattr(theirs, f) for f in STAND_IN]
        else:
            assert mine == theirs


def picks(entries: Sequence[RawEntry]) -> Iterator[list[RawEntry]]:
    """Which entries a previous poll stored: all, all but the first (one new post), every
    other one, only the last."""
    yield list(entries)
    yield list(entries[1:])
    yield list(entries[::2])
    yield list(entries[-1:])


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_files_read_the_same_and_only_changed_items_are_parsed(
    path: Path, fallbacks: list[bytes]
) -> None:
    body = path.read_bytes()
    full = read_feed(body, XML, URL)
    assert all(e.raw_hash for e in full.entries)
    for known in map(by_hash, picks(full.entries)):
        assert_same(read_changed(body, XML, URL, known), full, known)
    assert fallbacks == []


def test_the_shortened_document_is_what_feedparser_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """One new post among ten: feedparser reads the document with one item only."""
    body = g.wordpress(g.window(10))
    full = read_feed(body, XML, URL)
    read: list[bytes] = []
    real = parse.run_feedparser

    def spy(data: bytes, headers: dict[str, str]) -> object:
        read.append(data)
        return real(data, headers)

    monkeypatch.setattr(changed, "run_feedparser", spy)
    quick = read_changed(body, XML, URL, by_hash(full.entries[1:]))
    assert_same(quick, full, by_hash(full.entries[1:]))
    assert len(read) == 1 and read[0].count(b"<item>") == 1 and len(read[0]) < len(body) / 5


Writer = Callable[[Sequence[g.Post]], bytes]
WRITERS: dict[str, Writer] = {
    "wordpress": g.wordpress,
    "ghost": g.ghost,
    "hugo": g.hugo,
    "atom": g.atom,
    "youtube": g.youtube,
    "hacker_news": g.hacker_news,
}


def histories() -> Iterator[tuple[str, list[tuple[g.Post, ...]]]]:
    """Poll after poll of each generator: a new post, an edit, counters, a window sliding."""
    posts = g.window(12)
    edited = (replace(posts[3], extra=("A correction: the survey ran in October.",)),)
    steps = [
        posts[1:11],
        posts[0:10],  # one new post, the oldest drops out
        posts[0:3] + edited + posts[4:10],  # an edit
        g.bump(posts[0:3] + edited + posts[4:10]),  # counters moved everywhere
        posts[0:3] + edited + posts[4:10],
        posts[0:3] + edited + posts[4:10],  # the same document again
        (posts[11], *posts[0:3], *edited, *posts[4:9]),  # an old post comes in at the top
    ]
    for name in WRITERS:
        yield name, steps


def events(detection: Detection) -> tuple[object, ...]:
    return (
        [(c.kind, c.item.key, c.item.title, c.item.text, c.diff) for c in detection.changes],
        sorted(detection.unchanged),
        detection.absorbed,
        detection.history,
        detection.places,
        detection.notes,
    )


@pytest.mark.parametrize(("writer", "steps"), list(histories()), ids=lambda v: str(v)[:12])
def test_every_event_of_a_poll_history_is_the_same_either_way(
    writer: str, steps: list[tuple[g.Post, ...]], fallbacks: list[bytes]
) -> None:
    rows: dict[str, StoredItem] = {}
    whole = []  # read whole by design: no item's bytes are stored
    for n, posts in enumerate(steps):
        body = WRITERS[writer](posts)
        full = read_feed(body, XML, URL)
        known = {r.raw_hash: r for r in rows.values() if r.raw_hash is not None}
        if not any(e.raw_hash in known for e in full.entries):
            whole.append(body)
        quick = read_changed(body, XML, URL, known)
        assert_same(quick, full, known)
        present = {e.key: rows[e.key] for e in full.entries if e.key in rows}
        outcomes = []
        for raw in (full, quick):
            parsed = finish_feed(raw, present)
            outcomes.append(events(detect(parsed, present, baseline=n == 0, has_stored=bool(rows))))
        assert outcomes[0] == outcomes[1]
        for item in finish_feed(full, present).items:  # as the poll writes them
            rows[item.key] = stored(item, text=item.text, fingerprint=item.fingerprint)
    assert fallbacks == whole and len(whole) < len(steps) - 2


def _rss(items: str, *, head: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="utf-8"?>{head}<rss version="2.0"><channel>'
        f"<title>T</title>{items}</channel></rss>"
    ).encode()


ITEM = "<item><title>{n}</title><guid>k{n}</guid><description>b{n}</description></item>"
HOSTILE = {
    "entity declared": _rss(ITEM.format(n=1), head='<!DOCTYPE rss [<!ENTITY e "x">]>'),
    "entity bomb": _rss(
        ITEM.format(n="&c;"),
        head='<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;"><!ENTITY c "&b;&b;&b;">]>',
    ),
    "a decoy DOCTYPE in a comment": _rss(ITEM.format(n=1), head="<!-- <!DOCTYPE x> -->"),
    "latin-1": _rss(ITEM.format(n="caf\u00e9")).replace(b"utf-8", b"iso-8859-1"),
    "broken": _rss(ITEM.format(n=1) + "<item><title>x</item>"),
    "xml:base": _rss(ITEM.format(n=1)).replace(b"<channel>", b'<channel xml:base="/a/">'),
    "too many items": _rss("".join(ITEM.format(n=n) for n in range(MAX_ITEMS + 5))),
    "one id twice": _rss(ITEM.format(n=1) + ITEM.format(n=1).replace("b1", "longer b1")),
    "undeclared prefix": _rss(ITEM.format(n=1)).replace(b"</channel>", b"<x:y/></channel>"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_documents_read_the_same_either_way(name: str) -> None:
    body = HOSTILE[name]
    try:
        full = read_feed(body, XML, URL)
    except NotAFeed:
        with pytest.raises(NotAFeed):
            read_changed(body, XML, URL, {"x": stored(_entry("x"))})
        return
    rows = {e.key: stored(e) for e in full.entries}
    faked = {f"h{n}": replace(r, raw_hash=f"h{n}") for n, r in enumerate(rows.values())}
    for known in (by_hash(full.entries), faked):
        assert_same(read_changed(body, XML, URL, known), full, known)


def _entry(key: str) -> RawEntry:
    return RawEntry(key, key, None, None, None, (), "", "h", 0, raw_hash="x")


def test_the_feedparser_corpus_reads_the_same_either_way() -> None:
    root = corpus_dir()
    if not root.is_dir():
        pytest.skip(f"no feedparser corpus in {root}: run `python -m tests.support.corpus`")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".py")
    quick = 0
    for path in files:
        body = path.read_bytes()
        try:
            full = read_feed(body, {"content-type": "application/xml"}, URL)
        except NotAFeed:
            continue
        if not full.entries or any(e.raw_hash is None for e in full.entries):
            continue
        quick += 1
        for known in map(by_hash, picks(full.entries)):
            try:
                assert_same(
                    read_changed(body, {"content-type": "application/xml"}, URL, known), full, known
                )
            except AssertionError as exc:
                raise AssertionError(f"{path.relative_to(root)}: {exc}") from None
    assert quick > 1000


def _known_rows(body: bytes) -> tuple[RawFeed, dict[str, StoredItem]]:
    full = read_feed(body, XML, URL)
    return full, by_hash(full.entries[1:])


@pytest.mark.parametrize(
    "spoil",
    [
        {"fingerprint_version": "0/old"},  # read under another version: read again
        {"content_hash": None},
        {"full": None},
        {"identity": None},
        {"raw_hash": "another"},  # found under a hash it was not read from
    ],
    ids=str,
)
def test_a_row_that_cannot_stand_for_its_bytes_is_read_again(
    spoil: dict[str, Any], fallbacks: list[bytes]
) -> None:
    body = g.wordpress(g.window(4))
    full, known = _known_rows(body)
    spoiled = {
        h: replace(row, **spoil) if n == 0 else row for n, (h, row) in enumerate(known.items())
    }
    quick = read_changed(body, XML, URL, spoiled)
    assert quick.entries[1] == full.entries[1]  # read by feedparser, not taken from its row
    assert quick.entries[2].html == "" and fallbacks == []


def test_every_item_of_a_document_at_the_item_limit_is_taken_in_place(
    fallbacks: list[bytes],
) -> None:
    body = _rss("".join(ITEM.format(n=n) for n in range(MAX_ITEMS)))
    full, known = _known_rows(body)
    assert_same(read_changed(body, XML, URL, known), full, known)
    assert fallbacks == []


def test_the_same_bytes_twice_and_json_feed_are_read_whole(fallbacks: list[bytes]) -> None:
    twice = _rss(ITEM.format(n=1) * 2 + ITEM.format(n=2))
    full, known = _known_rows(twice)
    assert_same(read_changed(twice, XML, URL, known), full, known)
    assert fallbacks == [twice]
    json_feed = b'{"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": []}'
    read_changed(json_feed, {"Content-Type": "application/feed+json"}, URL, known)
    assert fallbacks == [twice, json_feed]


def test_a_new_item_s_relative_link_resolves_against_the_document_s_url() -> None:
    item = "<item><title>{n}</title><link>/posts/{n}/</link><guid>{n}</guid></item>"
    body = _rss("".join(item.format(n=n) for n in range(3)))
    full, known = _known_rows(body)
    quick = read_changed(body, XML, URL, known)
    assert quick.entries[0].link == full.entries[0].link == "https://www.tidepool.example/posts/0/"
    assert quick.entries[0] == full.entries[0]
