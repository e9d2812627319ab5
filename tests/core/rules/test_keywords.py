"""Keyword filters: literal whole words and phrases, case- and accent-insensitive."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.modes import Edits
from bot.core.rules.filters import (
    FilterSyntaxError,
    describe_keywords,
    keywords_match,
    parse_filter,
    parse_keywords,
    wants,
)
from bot.core.types import CategoryFilter, Change, ChangeKind, ParsedItem, Reader


def test_parse_words_phrases_and_exclusions() -> None:
    flt = parse_keywords('Compiler, "open source", -webinar, - "press kit"')
    assert flt.include == ("Compiler", "open source") and flt.exclude == ("webinar", "press kit")
    assert describe_keywords(flt) == 'Compiler, "open source", -webinar, -"press kit"'


@pytest.mark.parametrize(
    ("spec", "text", "expected"),
    [
        ("compiler", "A new Compiler release.", True),
        ("compiler", "Compilers are fun", False),  # whole words only
        ("cafe", "Meet us at the Café", True),  # accents ignored
        ("CAFÉ", "the cafe opens", True),
        ('"open source"', "Open  source AI", True),
        ('"open source"', "open, closed and source", False),
        ("compiler, -webinar", "compiler webinar", False),
        ("-webinar", "a talk", True),
        ("c++", "we love c and more", True),  # literal: punctuation is not a pattern
        ("a.*b", "a b", True),  # still literal words "a" and "b"
    ],
)
def test_matching(spec: str, text: str, expected: bool) -> None:
    assert keywords_match(parse_keywords(spec), text) is expected


@pytest.mark.parametrize("spec", ["", " , ", "-", '"unclosed', '"", x'])
def test_bad_keyword_syntax(spec: str) -> None:
    with pytest.raises(FilterSyntaxError):
        parse_keywords(spec)


@given(st.text(max_size=200), st.text(max_size=2000))
def test_any_input_either_parses_or_is_refused_and_matching_is_total(spec: str, text: str) -> None:
    try:
        flt = parse_keywords(spec)
    except FilterSyntaxError:
        return
    assert isinstance(keywords_match(flt, text), bool)


def _change(kind: ChangeKind, title: str, categories: tuple[str, ...]) -> Change:
    item = ParsedItem("k", title, None, None, None, categories, "body", "f", 0)
    return Change(kind, item)


def test_wants_combines_categories_keywords_and_edits() -> None:
    reader = Reader(
        chat_id=1, categories=CategoryFilter(include=("Blog",)), keywords=parse_keywords("compiler")
    )
    assert wants(reader, _change(ChangeKind.NEW, "Compiler news", ("Blog",)))
    assert not wants(reader, _change(ChangeKind.NEW, "Compiler news", ("Events",)))
    assert not wants(reader, _change(ChangeKind.NEW, "Other news", ("Blog",)))
    assert wants(reader, _change(ChangeKind.EDITED, "Compiler news", ("Blog",)))
    assert not wants(
        replace(reader, edits=Edits.OFF), _change(ChangeKind.EDITED, "Compiler news", ("Blog",))
    )


@pytest.mark.parametrize(
    ("keywords", "text", "expected"),
    [
        ("模型", "英伟达发布新模型", True),
        ("新模型", "英伟达发布新模型。", True),
        ("模型", "英伟达发布新芯片", False),
        ("-模型", "英伟达发布新模型", False),
        ("コンパイラ", "新しいコンパイラを公開しました", True),
        ("GPU", "英伟达发布新GPU", True),  # a Latin word beside Chinese is still a word
        ("GP", "英伟达发布新GPU", False),  # … and Latin keywords still match whole words only
        ("cat", "concatenate", False),
    ],
)
def test_chinese_and_japanese_keywords_match_inside_unspaced_text(
    keywords: str, text: str, expected: bool
) -> None:
    assert keywords_match(parse_keywords(keywords), text) is expected


def test_full_width_separators_split_lists() -> None:
    assert parse_keywords("模型，芯片、-广告").include == ("模型", "芯片")
    assert parse_keywords("模型，芯片、-广告").exclude == ("广告",)
    assert parse_filter("博客，新闻、-社区").include == ("博客", "新闻")
    assert parse_filter("博客，新闻、-社区").exclude == ("社区",)
