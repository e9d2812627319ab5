"""What a rule check costs (issue 40, item 4): each post's text is folded once however many
rules, keywords and chats ask about it, and only its first `MAX_EXAMINED` characters are read.

On the old main every `text:` rule and every keyword filter folded the whole text again:
20 rules × 20 posts of 100,000 characters were 400 folds of 100,000 characters, 4-6 s."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bot.core.polls.fanout import route
from bot.core.rules import filters
from bot.core.rules.fields import reason, stopped_by
from bot.core.rules.filters import (
    MAX_EXAMINED,
    fold_words,
    haystack,
    keywords_match,
    parse_keywords,
)
from bot.core.types import Change, ChangeKind, KeywordFilter, ParsedItem, Reader

RULES = tuple(f"text:never{n}" for n in range(20))
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def post(n: int, text: str) -> ParsedItem:
    return ParsedItem(f"k{n}", f"Post {n}", None, None, None, (), text, "f", n)


def long_text(n: int) -> str:
    return " ".join(f"café{n}x{i} harbour" for i in range(10_000))  # about 170,000 characters


def test_twenty_rules_on_twenty_long_posts_fold_each_post_once() -> None:
    items = [post(n, long_text(n)) for n in range(20)]
    reader = Reader(1, rules=RULES, keywords=parse_keywords("harbour, -café3x7"))
    verdicts = [reason(reader, item) for item in items]
    assert verdicts[3] == "/keywords harbour, -café3x7"
    assert all(v is not None and v.startswith("text:never0 text:never1") for v in verdicts[4:])
    info = haystack.cache_info()
    # 20 keyword checks (title and text) and 19 × 20 rule checks: 40 texts, each folded once.
    assert info.misses == 40
    assert info.hits == 20 + 19 * 20 - 20


def test_the_fanout_folds_each_post_once_for_every_chat() -> None:
    changes = [Change(ChangeKind.NEW, post(n, long_text(n))) for n in range(200)]
    chats = [Reader(n, rules=RULES) for n in range(10)]
    fanout = route(changes, chats, NOW, max_new=10)
    assert all(r.changes == () and r.listed == () for r in fanout.routes)
    # 200 posts × 10 chats × 20 rules, each text folded once: more posts than the cache holds.
    assert haystack.cache_info().misses == 200


def test_only_the_first_max_examined_characters_are_read() -> None:
    filler = "x " * (MAX_EXAMINED // 2 - 10)  # MAX_EXAMINED - 20 characters
    early, late = filler + "needle", filler + "x" * 30 + " needle"
    assert len(early) <= MAX_EXAMINED < len(late)
    words = KeywordFilter(include=("needle",))
    assert keywords_match(words, early)
    assert not keywords_match(words, late)
    assert stopped_by(("text:needle",), post(1, early)) is None
    assert stopped_by(("text:needle",), post(1, late)) == "text:needle"
    assert stopped_by(("text:/needle/",), post(1, early)) is None
    assert stopped_by(("text:/needle/",), post(1, late)) == "text:/needle/"
    assert stopped_by(("-text:needle",), post(1, late)) is None  # nor excluded by it


def test_a_text_folding_longer_than_itself_is_bounded_at_a_word() -> None:
    wide = "\ufdfa " * (MAX_EXAMINED // 2)  # one character that NFKD makes 18
    stack = haystack(wide)
    assert len(stack) <= 2 * MAX_EXAMINED + 2
    assert stack.startswith(" ") and stack.endswith(" ") and "  " not in stack
    assert set(stack.split()) == set(fold_words("\ufdfa"))


def test_each_text_is_searched_on_its_own() -> None:
    phrase = parse_keywords('"harbour ferry"')
    assert keywords_match(phrase, "The harbour ferry", "runs late")
    assert not keywords_match(phrase, "The harbour", "ferry runs late")  # never across two
    assert keywords_match(parse_keywords("late"), "The harbour", "ferry runs late")
    assert keywords_match(parse_keywords("模型"), "英伟达发布", "新模型")


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_ascii_text_folds_as_the_unicode_path_would(text: str) -> None:
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    assert fold_words(text) == re.findall(r"\w+", bare.casefold())


def test_the_fanout_searches_the_title_the_text_and_the_translation() -> None:
    reader = Reader(1, keywords=parse_keywords("harbour"))
    in_text = Change(ChangeKind.NEW, post(1, "The harbour ferry runs late."))
    elsewhere = Change(ChangeKind.NEW, post(2, "The ferry runs late."))
    assert filters.wants(reader, in_text)
    assert not filters.wants(reader, elsewhere)
    assert filters.wants(reader, elsewhere, "港口 harbour 渡轮")
    assert not filters.wants(Reader(1, keywords=parse_keywords("xxxx")), elsewhere)
