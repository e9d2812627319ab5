"""The edges of `/filter` and `/keywords`: empty parts, each limit at exactly its maximum and
one past it, excluded names counted, and the exact words of every refusal."""

from __future__ import annotations

import pytest

from bot.core.rules.filters import (
    FilterSyntaxError,
    describe_keywords,
    keywords_match,
    parse_filter,
    parse_keywords,
)
from bot.core.types import KeywordFilter


def refusal(parse: object, text: str) -> str:
    with pytest.raises(FilterSyntaxError) as caught:
        parse(text)  # type: ignore[operator]
    assert str(caught.value) == caught.value.template.format(**caught.value.params)
    return str(caught.value)


def test_an_empty_part_between_commas_is_skipped_not_the_end() -> None:
    assert parse_filter("a, , b,,c").include == ("a", "b", "c")


def test_category_refusals_say_why() -> None:
    assert refusal(parse_filter, "a, -") == "a lone '-' needs a category name after it"
    assert refusal(parse_filter, " , ,") == "give at least one category"
    assert refusal(parse_filter, "x" * 101) == "category names are at most 100 characters"
    assert parse_filter("x" * 100).include == ("x" * 100,)
    assert parse_filter("-" + "x" * 100).exclude == ("x" * 100,)


def test_at_most_fifty_categories_counting_excluded_ones() -> None:
    fifty = [f"c{i}" for i in range(25)] + [f"-e{i}" for i in range(25)]
    parsed = parse_filter(", ".join(fifty))
    assert len(parsed.include) + len(parsed.exclude) == 50
    assert refusal(parse_filter, ", ".join([*fifty, "-one-more"])) == (
        "at most 50 categories per filter"
    )
    many_excluded = [f"c{i}" for i in range(20)] + [f"-e{i}" for i in range(31)]
    assert refusal(parse_filter, ", ".join(many_excluded)) == "at most 50 categories per filter"


def test_keyword_refusals_say_why() -> None:
    assert refusal(parse_keywords, '"unclosed') == (
        'use words or "quoted phrases" separated by commas'
    )
    assert refusal(parse_keywords, "!!!, ---") == "a keyword needs at least one letter or digit"
    assert refusal(parse_keywords, "   ") == "give at least one keyword"
    assert refusal(parse_keywords, "x" * 101) == "keywords are at most 100 characters"


def test_a_keyword_phrase_of_exactly_100_characters_is_accepted() -> None:
    phrase = " ".join(["ab"] * 33) + " a"  # 33 words of 2 + 32 spaces + " a" = 100
    assert len(phrase) == 100
    assert parse_keywords(f'"{phrase}"').include == (phrase,)
    assert refusal(parse_keywords, f'"{phrase}b"') == "keywords are at most 100 characters"


def test_at_most_fifty_keywords_counting_excluded_ones() -> None:
    fifty = [f"k{i}" for i in range(30)] + [f"-x{i}" for i in range(20)]
    parsed = parse_keywords(", ".join(fifty))
    assert (len(parsed.include), len(parsed.exclude)) == (30, 20)
    assert refusal(parse_keywords, ", ".join([*fifty, "k50"])) == "at most 50 keywords"
    many_excluded = [f"k{i}" for i in range(20)] + [f"-x{i}" for i in range(31)]
    assert refusal(parse_keywords, ", ".join(many_excluded)) == "at most 50 keywords"


def test_no_keyword_filter_lets_everything_through_and_reads_none() -> None:
    empty = KeywordFilter()
    assert keywords_match(empty, "anything at all")
    assert keywords_match(empty, "")
    assert describe_keywords(empty) == "none"
