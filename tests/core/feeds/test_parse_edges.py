"""The parser's edges: response headers, what counts as not a feed, reusing stored text, keys,
links, dates and categories at their limits."""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import finish_feed, parse_feed, read_entry, read_feed
from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.core.types import RawEntry, StoredItem
from bot.core.urls import safe_link

CYRILLIC = (
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Привет</title>'
    "<item><title>Мир</title><guid>g</guid></item></channel></rss>"
).encode("cp1251")


def rss(items: str, channel_title: str = "<title>Quillon</title>") -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>'
        f"{channel_title}{items}</channel></rss>"
    ).encode()


def test_the_charset_of_the_response_header_is_used_whatever_its_case() -> None:
    for name in ("Content-Type", "content-type"):
        feed = parse_feed(CYRILLIC, {name: "application/rss+xml; charset=windows-1251"})
        assert (feed.title, feed.items[0].title, feed.warning) == ("Привет", "Мир", None)
    assert parse_feed(CYRILLIC).warning == (
        "recoverable feed error: document declared as utf-8, but parsed as windows-1252"
    )


def test_a_content_encoding_header_is_not_applied_twice() -> None:
    body = rss("<item><guid>g</guid><description>Plain.</description></item>")
    feed = parse_feed(body, {"Content-Type": "application/rss+xml", "Content-Encoding": "gzip"})
    assert feed.items[0].text == "Plain." and feed.warning is None


def test_the_raw_html_is_hashed_untouched_by_feedparser() -> None:
    html = '<p style="color:red" onclick="go()">Hi <a href="/relative">there</a></p>'
    body = rss(f"<item><guid>g</guid><content:encoded><![CDATA[{html}]]></content:encoded></item>")
    (entry,) = read_feed(body, {"Content-Location": "https://quillon.example/feed/"}).entries
    assert entry.html == html
    assert entry.content_hash == hashlib.sha256(html.encode()).hexdigest()


def test_an_empty_but_valid_feed_is_a_feed_and_a_broken_empty_one_is_not() -> None:
    empty = parse_feed(rss(""))
    assert (empty.title, empty.items, empty.warning) == ("Quillon", (), None)
    with pytest.raises(NotAFeed) as caught:
        parse_feed(rss("", channel_title="<title>T &bogus;</title>"))
    assert str(caught.value) == "not a feed: SAXParseException: <unknown>:1:132: undefined entity"
    with pytest.raises(NotAFeed, match=r"^not a feed$"):
        parse_feed(b"<html><body>Nothing here</body></html>")


def test_a_broken_feed_with_entries_is_read_with_a_warning() -> None:
    feed = parse_feed(rss("<item><title>a</title><guid>g</guid>"))
    assert [i.title for i in feed.items] == ["a"]
    assert feed.warning is not None and feed.warning.startswith("recoverable feed error: ")
    assert "mismatched tag" in feed.warning


def test_missing_titles_are_empty() -> None:
    feed = parse_feed(rss("<item><guid>g</guid></item>", channel_title=""))
    assert feed.title == "" and feed.items[0].title == ""


def stored(key: str, text: str, content_hash: str | None, version: str) -> StoredItem:
    return StoredItem(key, "t", text, "f", content_hash, version)


def test_stored_text_is_reused_only_for_the_same_html_under_the_same_version() -> None:
    raw = read_feed(
        rss(
            "".join(
                f"<item><title>t</title><guid>{k}</guid><description>Fresh {k}.</description></item>"
                for k in "abcd"
            )
        )
    )
    hashes = {e.key: e.content_hash for e in raw.entries}
    memory = {
        "a": stored("a", "Cached a.", hashes["a"], FINGERPRINT_VERSION),
        "b": stored("b", "Cached b.", hashes["b"], "1/html2text-2024.2.26"),
        "c": stored("c", "Cached c.", None, FINGERPRINT_VERSION),
        "d": stored("d", "Cached d.", "0" * 64, FINGERPRINT_VERSION),
    }
    feed = finish_feed(raw, memory)
    assert [i.text for i in feed.items] == ["Cached a.", "Fresh b.", "Fresh c.", "Fresh d."]
    assert [i.position for i in feed.items] == [0, 1, 2, 3]
    assert [i.content_hash for i in feed.items] == [hashes[k] for k in "abcd"]
    assert finish_feed(raw).items[0].text == "Fresh a."


def test_the_warning_reaches_the_parsed_feed() -> None:
    raw = read_feed(rss("<item><title>a</title><guid>g</guid>"))
    assert finish_feed(raw).warning == raw.warning is not None


def entry(**fields: object) -> dict[str, object]:
    return {"title": "A post", **fields}


def test_keys_come_from_the_id_then_the_link_then_title_and_date() -> None:
    assert read_entry(entry(id=" " + "i" * 1001, link="https://q.example/a"), 0).key == "i" * 1000
    assert read_entry(entry(id="  ", link="https://q.example/a"), 0).key == "https://q.example/a"
    dated = time.strptime("2026-09-08 01:00", "%Y-%m-%d %H:%M")
    stamp = datetime(2026, 9, 8, 1, tzinfo=UTC).isoformat()
    assert read_entry(entry(published_parsed=dated), 0).key == (
        "sha256:" + hashlib.sha256(f"A post\x1f{stamp}".encode()).hexdigest()
    )
    assert read_entry(entry(), 0).key == ("sha256:" + hashlib.sha256(b"A post\x1f").hexdigest())


def test_dates_fall_back_from_published_to_updated_to_created() -> None:
    day = time.strptime("2026-09-08", "%Y-%m-%d")
    when = datetime(2026, 9, 8, tzinfo=UTC)
    assert read_entry(entry(created_parsed=day), 0).published == when
    impossible = time.struct_time((999_999, 1, 1, 0, 0, 0, 0, 1, 0))
    assert read_entry(entry(published_parsed=impossible, updated_parsed=day), 0).published == when
    assert read_entry(entry(published_parsed="yesterday"), 0).published is None


def test_the_longest_body_wins_and_the_first_of_equals() -> None:
    both = entry(content=[{"value": "<p>aa</p>"}, {"value": "<p>bb</p>"}], summary="s")
    assert read_entry(both, 0).html == "<p>aa</p>"
    longer = entry(content=[{"value": "<p>a</p>"}, {"value": "<p>bbb</p>"}])
    assert read_entry(longer, 0).html == "<p>bbb</p>"
    empty = entry(content=[{"value": ""}, {"value": None}], summary="The summary.")
    assert read_entry(empty, 0).html == "The summary."
    assert read_entry(entry(), 0).html == ""


def test_html_titles_are_reduced_to_text() -> None:
    for kind in ("text/html", "application/xhtml+xml"):
        it = read_entry(entry(title="<b>Bold</b> move", title_detail={"type": kind}), 0)
        assert it.title == "Bold move"
    plain = read_entry(entry(title="<b>as typed</b>", title_detail={"type": "text/plain"}), 0)
    assert plain.title == "<b>as typed</b>"
    assert read_entry({"title": None}, 0).title == ""


def test_authors_and_categories_are_cut_and_empty_ones_dropped() -> None:
    it = read_entry(
        entry(
            author="w" * 201,
            tags=[{"term": "t" * 101}, {"term": None}, {"term": ""}, {"label": "x"}]
            + [{"term": f"c{n}"} for n in range(60)],
        ),
        0,
    )
    assert it.author == "w" * 200
    assert it.categories[0] == "t" * 100
    assert len(it.categories) == 50 and it.categories[1] == "c0"
    assert read_entry(entry(author="  "), 0).author is None


def test_content_with_a_lone_surrogate_is_hashed() -> None:
    it = read_entry(entry(summary="a\ud800b"), 0)
    assert (
        it.content_hash == hashlib.sha256("a\ud800b".encode("utf-8", "surrogatepass")).hexdigest()
    )


def test_links_hide_format_characters_and_stop_at_2000_characters() -> None:
    assert safe_link("https://q.example/\u202egpj.exe") == "https://q.example/%E2%80%AEgpj.exe"
    assert safe_link("https://q.example/\u200b") == "https://q.example/%E2%80%8B"
    base = "https://q.example/"
    assert safe_link(base + "p" * (2000 - len(base))) == base + "p" * (2000 - len(base))
    assert safe_link(base + "p" * (2001 - len(base))) is None
    assert safe_link("https://q.example/a b") is None
    assert safe_link("https://q.example/a\x1fb") is None


def test_reasons_from_feedparser_are_cut_at_300_characters() -> None:
    declared = '<?xml version="1.0" encoding="' + "x" * 400 + '"?><rss version="2.0"><channel>'
    with pytest.raises(NotAFeed) as caught:
        parse_feed((declared + "<title>T</title></channel></rss>").encode())
    assert len(str(caught.value)) == 300
    assert str(caught.value).startswith("not a feed: CharacterEncodingOverride: document declared")
    warned = parse_feed((declared + "<item><guid>g</guid></item></channel></rss>").encode())
    assert warned.warning is not None and len(warned.warning) == 300


@pytest.mark.parametrize(
    ("ttl", "seconds"),
    [
        ("<ttl>60</ttl>", 3600),
        ("<ttl> 15 </ttl>", 900),
        ("<ttl>1</ttl>", 60),
        ("<ttl>0</ttl>", None),
        ("<ttl>soon</ttl>", None),
        ("<ttl>-5</ttl>", None),
        ("", None),
        ("<ttl>1000000</ttl>", None),
    ],
)
def test_an_rss_ttl_is_read_in_minutes(ttl: str, seconds: int | None) -> None:
    assert (
        read_feed(rss("<item><guid>g</guid></item>", f"<title>T</title>{ttl}")).ttl_seconds
        == seconds
    )


def test_full_text_and_the_summarys_hash_are_kept_apart() -> None:
    from bot.core.feeds.entries import excerpt_key

    body = rss(
        "<item><guid>both</guid><title>B</title><description><![CDATA[<p>Short "
        "<b>cut</b></p>]]></description><content:encoded><![CDATA[<p>Full text.</p>]]>"
        "</content:encoded></item>"
        "<item><guid>summary</guid><title>S</title><description>Only a summary.</description>"
        "</item>"
        "<item><guid>content</guid><title>C</title><content:encoded><![CDATA[<p>Alone.</p>]]>"
        "</content:encoded></item>"
    )
    both, summary, content = parse_feed(body).items
    assert both.full and both.text == "Full text."
    assert both.excerpt_hash == excerpt_key("Short cut") == excerpt_key("<i>short</i>  CUT!")
    assert not summary.full and summary.text == "Only a summary."
    assert summary.excerpt_hash == excerpt_key("Only a summary.")
    assert content.full and content.excerpt_hash is None  # feedparser copies content to summary
    assert excerpt_key("a<br>b") == hashlib.sha256(b"ab").hexdigest()
    assert excerpt_key("a&amp;b") == hashlib.sha256(b"ab").hexdigest()
    assert excerpt_key("x\ud800") == hashlib.sha256(b"x").hexdigest()


def test_an_excerpt_is_hashed_from_its_first_400000_characters_only() -> None:
    from bot.core.feeds.entries import MAX_HTML_CHARS, excerpt_key

    assert MAX_HTML_CHARS == 400_000
    start = "a" * MAX_HTML_CHARS
    assert excerpt_key(start + "b") == excerpt_key(start) != excerpt_key(start[1:] + "b")


def test_a_declared_entitys_references_leave_no_text_and_html_names_stay() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY e "expanded">]><rss version="2.0">'
        b"<channel><title>T</title><item><guid>1</guid><title>A&e;</title>"
        b"<description>Caf&eacute;&e; &amp; more</description></item></channel></rss>"
    )
    (item,) = parse_feed(body).items
    assert (item.title, item.text) == ("A", "Café & more")


def test_raw_entries_default_to_full_text_without_an_excerpt() -> None:
    from bot.core.feeds.entries import raw_entry

    def entry(**summary: Any) -> RawEntry:
        return raw_entry(
            key="k",
            title="t",
            link=None,
            author=None,
            published=None,
            terms=(),
            html="<p>x</p>",
            position=0,
            **summary,
        )

    plain = entry()
    assert plain.full and plain.excerpt_hash is None
    assert entry(summary="  ").excerpt_hash is None
    assert entry(summary="<p>x</p>").excerpt_hash is None


def test_unchanged_html_and_title_keep_the_stored_fingerprint() -> None:
    raw = read_feed(
        rss("<item><guid>g</guid><title>Same</title><description>Body.</description></item>")
    )
    entry = raw.entries[0]
    stored = {
        "g": StoredItem(
            "g", "Same", "Stored text.", "f" * 64, entry.content_hash, FINGERPRINT_VERSION
        )
    }
    (kept,) = finish_feed(raw, stored).items
    assert kept.text == "Stored text." and kept.fingerprint == "f" * 64
    renamed = {
        "g": StoredItem(
            "g", "Old", "Stored text.", "f" * 64, entry.content_hash, FINGERPRINT_VERSION
        )
    }
    (retitled,) = finish_feed(raw, renamed).items
    assert retitled.text == "Stored text."
    assert retitled.fingerprint == fingerprint("Same", "Stored text.")
