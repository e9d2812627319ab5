"""Field filters: `/filter FEED title:release -author:bot text:/v2\\.\\d+/` (issue 29).

One rule per token: `field:value`, a leading `-` excludes, a value in slashes is a pattern,
in quotes a phrase. Several rules on one field are alternatives; different fields must all
hold; any matching exclusion stops a post. Words match as keywords do (whole words, case and
accents folded; Chinese and Japanese anywhere); a link's words match anywhere in it. Patterns
run on RE2 (`google-re2`): linear time, so `(a+)+$` on 100,000 characters cannot hang the bot,
case-insensitive, at most `MAX_PATTERN` characters; one it cannot compile is refused with
its reason. Every rule reads at most a field's first `MAX_EXAMINED` characters (20,000), and
word rules share one folding of each text (`filters.haystack`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

from bot.core.lang import N_
from bot.core.rules import filters
from bot.core.rules.filters import MAX_EXAMINED, FilterSyntaxError, keywords_match
from bot.core.types import Change, KeywordFilter, ParsedItem, Reader

FIELDS = ("title", "text", "author", "category", "link")
MAX_PATTERN = 200
MAX_RULES = 20
_TOKEN = re.compile(
    r'\s*(-?)([a-z]+):(?:/((?:\\.|[^/\\])*)/|"([^"]*)"|(\S+))(?=\s|$)', re.IGNORECASE
)
_LOOKS = re.compile(r"^\s*-?[a-z]+:(?=\S)", re.IGNORECASE)  # `word:` then no space
_OPTIONS = re2.Options()
_OPTIONS.case_sensitive = False
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 8 << 20


@dataclass(frozen=True, slots=True)
class Rule:
    field: str
    value: str
    exclude: bool = False
    pattern: bool = False

    def __str__(self) -> str:
        value = f"/{self.value}/" if self.pattern else self.value
        if not self.pattern and " " in value:
            value = f'"{value}"'
        return f"{'-' if self.exclude else ''}{self.field}:{value}"


def looks_like_rules(text: str) -> bool:
    """`/filter FEED title:…` rather than the category list `/filter FEED Blog, -Events` (a
    category name with a colon has a space after it: "News: Europe")."""
    return bool(_LOOKS.match(text))


def parse_rules(text: str) -> tuple[Rule, ...]:
    """The rules in `text`, each checked (a known field, a value, a pattern RE2 compiles)."""
    rules: list[Rule] = []
    position, text = 0, text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise FilterSyntaxError(
                N_('write rules as field:word, field:"two words" or field:/pattern/')
            )
        position = match.end()
        minus, field, pattern, quoted, bare = match.groups()
        field = field.lower()
        if field not in FIELDS:
            raise FilterSyntaxError(
                N_("{field} is not a field: use title, text, author, category or link"),
                field=field,
            )
        value = pattern if pattern is not None else (quoted if quoted is not None else bare)
        if not value.strip():
            raise FilterSyntaxError(N_("{field}: needs a value"), field=field)
        if pattern is not None:
            _compile(value)
        rules.append(Rule(field, value.strip(), bool(minus), pattern is not None))
    if not rules:
        raise FilterSyntaxError(N_("give at least one rule, e.g. title:release"))
    if len(rules) > MAX_RULES:
        raise FilterSyntaxError(N_("at most {count} rules"), count=MAX_RULES)
    return tuple(dict.fromkeys(rules))


def stopped_by(rules: Sequence[str], item: ParsedItem) -> str | None:
    """The rule (as written) that keeps `item` out, or None when it passes them all."""
    parsed = _parsed(tuple(rules))
    for rule in parsed:
        if rule.exclude and _holds(rule, item):
            return str(rule)
    wanted: dict[str, list[Rule]] = {}
    for rule in parsed:
        if not rule.exclude:
            wanted.setdefault(rule.field, []).append(rule)
    for field_rules in wanted.values():
        if not any(_holds(rule, item) for rule in field_rules):
            return " ".join(str(rule) for rule in field_rules)
    return None


def written(rules: Iterable[Rule]) -> tuple[str, ...]:
    """The rules as stored and shown: the syntax people type."""
    return tuple(str(rule) for rule in rules)


@lru_cache(maxsize=1024)
def _parsed(rules: tuple[str, ...]) -> tuple[Rule, ...]:
    """Stored rules, parsed once per process (a rule that no longer parses is skipped)."""
    out: list[Rule] = []
    for text in rules:
        try:
            out.extend(parse_rules(text))
        except FilterSyntaxError:
            continue
    return tuple(out)


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> Any:  # re2's compiled pattern (the library has no types)
    if len(pattern) > MAX_PATTERN:
        raise FilterSyntaxError(N_("patterns are at most {count} characters"), count=MAX_PATTERN)
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise FilterSyntaxError(
            N_("/{pattern}/ is not a pattern: {reason}"), pattern=pattern, reason=reason
        ) from None


def _holds(rule: Rule, item: ParsedItem) -> bool:
    value = _field(rule.field, item)
    if rule.pattern:
        return _compile(rule.value).search(value[:MAX_EXAMINED]) is not None
    if rule.field == "link":
        return rule.value.casefold() in value[:MAX_EXAMINED].casefold()
    return keywords_match(KeywordFilter(include=(rule.value,)), value)


def _field(name: str, item: ParsedItem) -> str:
    if name == "title":
        return item.title
    if name == "text":
        return item.text
    if name == "author":
        return item.author or ""
    if name == "category":
        return "\n".join(item.categories)
    return item.link or ""


def wants(reader: Reader, change: Change, translated: str = "") -> bool:
    """The fan-out's one question: categories, keywords, edits (core/rules/filters.py) and this
    feed's and the chat's field rules."""
    item = change.item
    return (
        filters.wants(reader, change, translated)
        and stopped_by(reader.rules, item) is None
        and stopped_by(reader.chat_rules, item) is None
    )


def reason(reader: Reader, item: ParsedItem) -> str | None:
    """Why a new post would not reach this chat (the filter test), None when it would."""
    if not filters.matches(reader.categories, item.categories):
        return f"/filter {filters.describe(reader.categories)}"
    if not filters.keywords_match(reader.keywords, item.title, item.text):
        words = [*reader.keywords.include, *(f"-{w}" for w in reader.keywords.exclude)]
        return f"/keywords {', '.join(words)}"
    return stopped_by(reader.rules, item) or stopped_by(reader.chat_rules, item)
