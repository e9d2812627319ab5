"""Category filters: the `/filter` argument syntax and matching an item against it.

Syntax: comma-separated names, so a category may contain spaces ("Press Release"); a leading `-`
excludes. Matching is case-insensitive and whitespace-trimmed. An item passes when (there are no
includes, or it has at least one included category) and it has none of the excluded ones.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.core.model import CategoryFilter
from bot.core.text import clean_inline


class FilterSyntaxError(ValueError):
    """The user's filter text cannot be understood; the message says why."""


def parse_filter(text: str, *, max_categories: int = 50) -> CategoryFilter:
    include: dict[str, str] = {}
    exclude: dict[str, str] = {}
    for raw in text.split(","):
        part = clean_inline(raw)
        if not part:
            continue
        target = include
        if part.startswith("-"):
            part = clean_inline(part[1:])
            target = exclude
            if not part:
                raise FilterSyntaxError("a lone '-' needs a category name after it")
        if len(part) > 100:
            raise FilterSyntaxError("category names are at most 100 characters")
        target.setdefault(part.casefold(), part)
    if not include and not exclude:
        raise FilterSyntaxError("give at least one category")
    if len(include) + len(exclude) > max_categories:
        raise FilterSyntaxError(f"at most {max_categories} categories per filter")
    return CategoryFilter(include=tuple(include.values()), exclude=tuple(exclude.values()))


def matches(flt: CategoryFilter, categories: Iterable[str]) -> bool:
    have = {clean_inline(c).casefold() for c in categories}
    if any(name.casefold() in have for name in flt.exclude):
        return False
    return not flt.include or any(name.casefold() in have for name in flt.include)


def describe(flt: CategoryFilter) -> str:
    """The filter written back in the syntax the user types."""
    if flt.is_empty:
        return "all posts"
    return ", ".join([*flt.include, *(f"-{name}" for name in flt.exclude)])


def unknown_categories(flt: CategoryFilter, known: Iterable[str]) -> list[str]:
    """Names in the filter never seen on the feed (accepted, but worth a note)."""
    seen = {name.casefold() for name in known}
    return [name for name in (*flt.include, *flt.exclude) if name.casefold() not in seen]
