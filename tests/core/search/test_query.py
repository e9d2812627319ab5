"""`/search WORDS [FEED] [since:30d]` parsed, bounded, and written in each database's syntax."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.core.lang import ENGLISH
from bot.core.search.match import fts5, fts5_in_feeds, fts5_rowid, fts5_since, tsquery
from bot.core.search.query import (
    MAX_QUERY_CHARS,
    MAX_SINCE_DAYS,
    MAX_TERMS,
    QueryError,
    SearchQuery,
    Term,
    parse,
)

FEEDS = ("lumen", "town")


def words(query: SearchQuery) -> list[tuple[str, tuple[str, ...], bool, bool]]:
    return [(t.typed, t.tokens, t.prefix, t.exact) for t in query.terms]


def error(text: str) -> str:
    with pytest.raises(QueryError) as raised:
        parse(text, FEEDS)
    return raised.value.translated(ENGLISH)


def test_words_phrases_feed_and_period() -> None:
    query = parse('price "student tickets" lumen since:2w', FEEDS)
    assert words(query) == [
        ("price", ("price",), True, False),
        ("student tickets", ("student", "tickets"), False, True),
    ]
    assert (query.feed, query.since_days) == ("lumen", 14)
    assert query.shown == 'price "student tickets"'
    assert parse("price since:30d", FEEDS).since_days == 30
    assert parse("price SINCE:3D", FEEDS).since_days == 3
    assert parse("price since:5", FEEDS).since_days == 5
    assert parse(f"price since:{MAX_SINCE_DAYS}d", FEEDS).since_days == MAX_SINCE_DAYS
    assert parse("price", FEEDS) == SearchQuery((Term("price", ("price",), True),))


def test_which_word_is_the_feed() -> None:
    assert parse("lumen", FEEDS).feed is None  # the only word is searched for
    assert words(parse("lumen", FEEDS))[0][0] == "lumen"
    assert parse("Lumen price", FEEDS).feed == "lumen"
    assert parse("lumen town", FEEDS).feed == "town"  # the last name; the other is a word
    assert words(parse("lumen town", FEEDS))[0][0] == "lumen"
    assert parse('"lumen" price', FEEDS).feed is None  # quoted: a word
    assert parse("price other", FEEDS).feed is None  # not one of the chat's feeds
    assert parse("price feed:Other", FEEDS).feed == "other"
    assert parse("lumen feed:town", FEEDS).feed == "town"
    assert words(parse("lumen feed:town", FEEDS))[0][0] == "lumen"


def test_quotes_of_several_languages_and_an_unclosed_one() -> None:
    assert words(parse("“open source”", FEEDS))[0][3] is True
    assert words(parse("「价格上涨」", FEEDS))[0][:2] == ("价格上涨", ("价格", "格上", "上涨"))
    assert words(parse('"open source', FEEDS))[0][1] == ("open", "source")
    assert len(parse("price price Price", FEEDS).terms) == 1  # the same tokens once
    assert len(parse('price "price"', FEEDS).terms) == 2  # a prefix and a word


def test_mistakes_are_explained() -> None:
    assert error("") == "Say what to search for."
    assert error("  ?! …  ") == "Say what to search for."
    assert error("since:3d") == "Say what to search for."
    assert (
        error("x" * (MAX_QUERY_CHARS + 1)) == f"A search is at most {MAX_QUERY_CHARS} characters."
    )
    assert parse("x" * MAX_QUERY_CHARS, FEEDS).terms
    since = f"(at most {MAX_SINCE_DAYS} days)"
    for bad in ("since:0d", "since:soon", "since:3m", f"since:{MAX_SINCE_DAYS + 1}", "since:"):
        assert since in error(f"price {bad}"), bad
    assert error(f"price since:{MAX_SINCE_DAYS // 7 + 1}w").endswith(since + ".")
    assert "not in two" in error("price feed:a feed:b")
    many = " ".join(f"w{n}" for n in range(MAX_TERMS + 1))
    assert error(many) == f"A search takes at most {MAX_TERMS} words or phrases."
    assert len(parse(" ".join(f"w{n}" for n in range(MAX_TERMS)), FEEDS).terms) == MAX_TERMS


def test_each_database_gets_the_same_query() -> None:
    query = parse('price "student tickets" 价格上涨 价', FEEDS)
    assert fts5(query) == '"price" * AND "student tickets" AND "价格 格上 上涨" AND "价" *'
    assert tsquery(query) == (
        "'price':* & ('student' <-> 'tickets') & ('价格' <-> '格上' <-> '上涨') & '价':*"
    )
    assert fts5(parse('"free"', FEEDS)) == '"free"'
    assert tsquery(parse('"free"', FEEDS)) == "'free'"


def test_fts5_rows_are_numbered_by_date_then_id() -> None:
    day = datetime(2026, 9, 4, tzinfo=UTC)
    assert fts5_rowid(day, 7) < fts5_rowid(day, 8) < fts5_rowid(day + timedelta(seconds=1), 1)
    assert fts5_rowid(day, 7) == (int(day.timestamp()) << 30) | 7
    assert fts5_rowid(day, (1 << 30) + 7) == fts5_rowid(day, 7)  # the id's low 30 bits
    assert fts5_since(day) == fts5_rowid(day, 0) <= fts5_rowid(day, 1)
    assert fts5_rowid(day - timedelta(microseconds=1), 1 << 29) < fts5_since(day)
    old, far = datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)
    assert fts5_rowid(old, 0) == (-(1 << 32) + 1) << 30  # clamped, still a 64-bit integer
    assert fts5_rowid(far, (1 << 30) - 1) == (((1 << 32) - 1) << 30) | ((1 << 30) - 1) < 2**63
    assert fts5_rowid(datetime(1960, 1, 1, tzinfo=UTC), 3) < fts5_rowid(day, 3)
    assert fts5_in_feeds(parse("price", FEEDS), [3, 12]) == (
        '{terms} : ("price" *) AND {feed} : ("3" OR "12")'
    )
