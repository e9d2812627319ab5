"""JSON Feed 1.0 and 1.1: what each field becomes, and what is refused (the golden file
tests/data/microblog-1.1.feed.json pins a whole feed)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

import pytest

from bot.core.feeds.entries import MAX_ITEMS, NotAFeed
from bot.core.feeds.jsonfeed import looks_like_json, read_item, read_json_feed
from bot.core.feeds.parse import parse_feed
from bot.core.types import RawEntry

V11 = "https://jsonfeed.org/version/1.1"


def feed(*items: object, **top: object) -> bytes:
    return json.dumps({"version": V11, "title": "Ines", "items": list(items), **top}).encode()


def one(item: Mapping[str, object], **top: object) -> RawEntry:
    (entry,) = read_json_feed(feed({"id": "i", **item}, **top)).entries
    return entry


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b"{}", None, True),
        (b"\xef\xbb\xbf \n\t{}", None, True),
        (b"<rss/>", "application/feed+json; charset=utf-8", True),
        (b"<rss/>", "Application/JSON", True),
        (b"<rss/>", "application/rss+xml", False),
        (b"[1, 2]", None, False),
        (b"<?xml?><rss/>", None, False),
        (b"X{", None, False),
    ],
)
def test_json_is_recognised_by_media_type_or_first_character(
    body: bytes, content_type: str | None, expected: bool
) -> None:
    assert looks_like_json(body, content_type) is expected


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            b"{not json",
            "not a feed: invalid JSON (Expecting property name enclosed in double quotes",
        ),
        (b"\xff{}", "not a feed: invalid JSON ('utf-8' codec can't decode byte 0xff"),
        (b"[]", "not a feed: JSON, but not an object"),
        (b'{"items": []}', "not a feed: JSON, but no jsonfeed.org version"),
        (
            b'{"version": "https://example.org/v1", "items": []}',
            "not a feed: JSON, but no jsonfeed.org version",
        ),
        (b'{"version": 1, "items": []}', "not a feed: JSON, but no jsonfeed.org version"),
        (f'{{"version": "{V11}"}}'.encode(), "not a feed: JSON, but no items list"),
        (f'{{"version": "{V11}", "items": {{}}}}'.encode(), "not a feed: JSON, but no items list"),
    ],
)
def test_what_is_not_a_json_feed_says_why(body: bytes, reason: str) -> None:
    with pytest.raises(NotAFeed) as caught:
        read_json_feed(body)
    assert str(caught.value).startswith(reason)
    assert len(str(caught.value)) <= 300


def test_deep_nesting_is_refused_not_a_crash() -> None:
    with pytest.raises(NotAFeed, match=r"^not a feed: invalid JSON \(maximum recursion depth"):
        read_json_feed(b'{"items": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")


def test_a_json_body_goes_to_the_json_reader_through_parse_feed() -> None:
    parsed = parse_feed(feed({"id": "1", "content_text": "Hello."}))
    assert [(i.key, i.text) for i in parsed.items] == [("1", "Hello.")]
    with pytest.raises(NotAFeed, match=r"^not a feed: JSON, but"):
        parse_feed(b'{"some": "api"}', {"Content-Type": "application/json"})
    with pytest.raises(
        NotAFeed, match=r"^not a feed: invalid JSON \(Expecting value"
    ):  # the header decides
        parse_feed(b"<html>Server error</html>", {"content-type": "application/json"})


def test_feed_fields() -> None:
    raw = read_json_feed(
        feed(home_page_url="https://ines.example/", title=" Ines\u200b  Park " + "x" * 1000)
    )
    assert raw.link == "https://ines.example/" and raw.warning is None
    assert raw.title == ("Ines Park " + "x" * 1000)[:1000]
    assert read_json_feed(feed(home_page_url="javascript:alert(1)", title=7)).link is None
    assert read_json_feed(feed(title=None)).title == ""


def test_items_that_are_not_objects_are_skipped_and_duplicates_keep_the_first() -> None:
    raw = read_json_feed(
        feed("text", 3, None, {"id": "a", "title": "first"}, {"id": "a", "title": "again"})
    )
    assert [(e.key, e.title, e.position) for e in raw.entries] == [("a", "first", 3)]


def test_at_most_max_items_are_read() -> None:
    raw = read_json_feed(feed(*({"id": str(n)} for n in range(MAX_ITEMS + 5))))
    assert len(raw.entries) == MAX_ITEMS and raw.entries[-1].key == str(MAX_ITEMS - 1)


def test_keys_come_from_the_id_then_the_url() -> None:
    assert one({"id": 42}).key == "42"  # 1.0 feeds used numbers
    assert one({"id": True, "url": "https://ines.example/p"}).key == "https://ines.example/p"
    assert one({"id": " ", "url": "https://ines.example/p"}).key == "https://ines.example/p"
    dated = one({"id": None, "title": "T", "date_published": "2026-11-20T09:00:00Z"})
    stamp = "2026-11-20T09:00:00+00:00"
    assert dated.key == "sha256:" + hashlib.sha256(f"T\x1f{stamp}".encode()).hexdigest()


def test_an_item_read_alone_has_no_author() -> None:
    assert read_item({"id": "x"}, 0).author is None


def test_links_prefer_url_then_external_url_and_must_be_web_links() -> None:
    assert one({"url": "https://a.example/", "external_url": "https://b.example/"}).link == (
        "https://a.example/"
    )
    assert one({"external_url": "https://b.example/"}).link == "https://b.example/"
    assert one({"url": "ftp://a.example/"}).link is None


def test_the_body_is_content_html_then_escaped_content_text_then_the_summary() -> None:
    assert one({"content_html": "<p>H</p>", "content_text": "T"}).html == "<p>H</p>"
    assert one({"content_html": "  ", "content_text": "a <b>\r\n\r\n\r\nc"}).html == (
        "<p>a &lt;b&gt;</p><p>\nc</p>"
    )
    assert one({"content_text": " ", "summary": "S & <i>"}).html == "S &amp; &lt;i&gt;"
    assert one({}).html == ""


def test_authors_come_from_the_item_then_the_feed_in_both_versions() -> None:
    both = {"authors": [{"name": "A"}, {"name": " "}, {"url": "x"}, "B", {"name": "C"}]}
    assert one(both).author == "A, C"
    assert one({"author": {"name": "Old style"}}).author == "Old style"
    assert one({}, authors=[{"name": "Feed author"}]).author == "Feed author"
    assert one({}, author={"name": "Feed 1.0"}).author == "Feed 1.0"
    assert one({"authors": [{"name": "Own"}]}, authors=[{"name": "Feed"}]).author == "Own"
    assert one({"authors": "nobody"}).author is None


@pytest.fixture
def far_from_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's own zone must not leak into dates (CI runs in UTC, people do not)."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("far_from_utc")
def test_dates_are_rfc_3339_in_utc_published_first() -> None:
    assert one({"date_published": "2026-11-20T09:00:00"}).published.isoformat() == (  # type: ignore[union-attr]
        "2026-11-20T09:00:00+00:00"
    )
    assert one({"date_published": "2026-11-20T14:30:00+05:30"}).published.isoformat() == (  # type: ignore[union-attr]
        "2026-11-20T09:00:00+00:00"
    )
    assert one({"date_published": "2026-11-28T18:04:11+05:30"}).published == datetime(
        2026, 11, 28, 12, 34, 11, tzinfo=UTC
    )
    assert one({"date_published": "2026-11-20T09:00:00Z"}).published == datetime(
        2026, 11, 20, 9, tzinfo=UTC
    )
    assert one({"date_published": "2026-11-20T09:00:00"}).published == datetime(
        2026, 11, 20, 9, tzinfo=UTC
    )
    fallback = {"date_published": "last week", "date_modified": "2026-11-21T10:30:00Z"}
    assert one(fallback).published == datetime(2026, 11, 21, 10, 30, tzinfo=UTC)
    assert one({"date_published": " ", "date_modified": 1700000000}).published is None


def test_tags_are_categories_when_they_are_a_list() -> None:
    assert one({"tags": ["Talks", "talks", " ", 7, None]}).categories == ("Talks", "7")
    assert one({"tags": "Talks"}).categories == ()


def test_the_image_then_the_banner_image_then_the_first_img() -> None:
    assert one(
        {"image": "https://i.example/a.png", "banner_image": "https://i.example/b.png"}
    ).image == ("https://i.example/a.png")
    assert one({"banner_image": "https://i.example/b.png"}).image == "https://i.example/b.png"
    body = {"content_html": "<p><img src='https://i.example/c.png'></p>"}
    assert one(body).image == "https://i.example/c.png"


def test_full_text_or_only_a_summary() -> None:
    from bot.core.feeds.entries import excerpt_key

    full = one({"id": "1", "content_html": "<p>All of it.</p>", "summary": "Some of it."})
    assert full.full and full.excerpt_hash == excerpt_key("Some of it.")
    text = one({"id": "2", "content_text": "Plain words.", "summary": "Plain."})
    assert text.full and text.excerpt_hash == excerpt_key("Plain.")
    short = one({"id": "3", "summary": "Only <this>."})
    assert not short.full and short.html == "Only &lt;this&gt;."
    assert short.excerpt_hash == excerpt_key("Only &lt;this&gt;.")
