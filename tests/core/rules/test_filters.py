"""Category filters: syntax and matching rules from the /filter command."""

from __future__ import annotations

import pytest

from bot.core.rules.filters import (
    FilterSyntaxError,
    describe,
    matches,
    parse_filter,
    unknown_categories,
)
from bot.core.types import CategoryFilter


def test_parse_keeps_spaces_inside_names_and_trims_around_them() -> None:
    flt = parse_filter("Blog,  -Community , - Press Release")
    assert flt == CategoryFilter(include=("Blog",), exclude=("Community", "Press Release"))
    assert describe(flt) == "Blog, -Community, -Press Release"


@pytest.mark.parametrize(
    ("spec", "categories", "expected"),
    [
        ("Announcements", ("Announcements", "Blog"), True),
        ("announcements", ("ANNOUNCEMENTS",), True),
        ("Announcements", ("Blog", "Community"), False),
        ("Blog, -Community, -Press Release", ("Blog",), True),
        ("Blog, -Community, -Press Release", ("Blog", "Community"), False),
        ("Blog, -Community, -Press Release", ("Announcements", "Blog", "Press Release"), False),
        ("Blog, -Community, -Press Release", ("Events",), False),
        ("-Community", ("Events",), True),
        ("-Community", (), True),
        ("Blog", (), False),
    ],
)
def test_matching(spec: str, categories: tuple[str, ...], expected: bool) -> None:
    assert matches(parse_filter(spec), categories) is expected


def test_empty_filter_matches_everything() -> None:
    assert matches(CategoryFilter(), ()) and describe(CategoryFilter()) == "all posts"


@pytest.mark.parametrize("spec", ["", " , ,", "-", "Blog, -"])
def test_bad_syntax_is_refused_with_a_reason(spec: str) -> None:
    with pytest.raises(FilterSyntaxError):
        parse_filter(spec)


def test_too_many_categories_are_refused() -> None:
    with pytest.raises(FilterSyntaxError, match="at most 3"):
        parse_filter("a, b, c, d", max_categories=3)


def test_unknown_categories_are_reported_case_insensitively() -> None:
    flt = parse_filter("blog, Nonsense, -press release")
    assert unknown_categories(flt, ["Blog", "Press Release"]) == ["Nonsense"]
