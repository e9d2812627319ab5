"""Field filters' rules (issue 29): the search-like syntax, RE2 patterns that cannot hang, and
which rule stops a post."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.rules.fields import (
    MAX_PATTERN,
    looks_like_rules,
    parse_rules,
    reason,
    stopped_by,
    wants,
    written,
)
from bot.core.rules.filters import MAX_EXAMINED, FilterSyntaxError
from bot.core.types import CategoryFilter, Change, ChangeKind, KeywordFilter, ParsedItem, Reader


def post(title: str = "PyTorch 2.5 release", text: str = "We shipped v2.5 today.", *,
         author: str | None = "Ana", categories: tuple[str, ...] = ("Blog",),
         link: str | None = "https://pytorch.example/blog/release") -> ParsedItem:  # fmt: skip
    return ParsedItem("k", title, link, author, None, categories, text, "f", 0)


def rules(text: str) -> tuple[str, ...]:
    return written(parse_rules(text))


def test_the_syntax_is_written_back_as_typed() -> None:
    assert rules(r'title:release -author:bot text:/v2\.\d+/ title:"big news"') == (
        "title:release",
        "-author:bot",
        r"text:/v2\.\d+/",
        'title:"big news"',
    )
    assert rules("TITLE:Release") == ("title:Release",)
    assert rules("title:a title:a") == ("title:a",)  # the same rule once
    assert rules("text:/a b/") == ("text:/a b/",)  # a pattern may hold spaces
    assert looks_like_rules("title:x") and looks_like_rules(" -author:bot")
    assert not looks_like_rules("Blog, -Community") and not looks_like_rules("note: this")
    assert looks_like_rules("colour:red")  # then refused: an unknown field


@pytest.mark.parametrize(
    ("text", "reason_text"),
    [
        ("colour:red", "colour is not a field"),
        ("title:", "write rules as"),
        ('title:""', "needs a value"),
        ("title:/(a)\\1/", "is not a pattern"),
        ("title:/" + "a" * (MAX_PATTERN + 1) + "/", "at most 200 characters"),
        (" ".join(f"title:w{n}" for n in range(21)), "at most 20 rules"),
        ("", "at least one rule"),
        ("release", "write rules as"),
    ],
)
def test_mistakes_are_refused_with_a_reason(text: str, reason_text: str) -> None:
    with pytest.raises(FilterSyntaxError, match=reason_text):
        parse_rules(text)


def test_alternatives_on_a_field_and_every_field_must_hold() -> None:
    both = rules("title:release title:launch author:ana")
    assert stopped_by(both, post()) is None
    assert stopped_by(both, post(title="PyTorch launch")) is None
    assert stopped_by(both, post(title="Meetup")) == "title:release title:launch"
    assert stopped_by(both, post(author="Bo")) == "author:ana"
    assert stopped_by(both, post(author=None)) == "author:ana"


def test_exclusions_stop_a_post_whatever_else_holds() -> None:
    assert stopped_by(
        rules("title:release -category:sponsored"), post(categories=("Sponsored",))
    ) == ("-category:sponsored")
    assert (
        stopped_by(rules("-link:/jobs/"), post(link="https://x.example/jobs/12")) == "-link:/jobs/"
    )
    assert stopped_by(rules("-link:jobs"), post(link="https://x.example/JOBS/12")) == "-link:jobs"
    assert stopped_by(rules("-link:jobs"), post(link=None)) is None


def test_words_patterns_and_cjk() -> None:
    assert stopped_by(rules(r"text:/v2\.\d+/"), post()) is None
    assert stopped_by(rules(r"text:/v3\.\d+/"), post()) is not None
    assert stopped_by(rules("title:RELEASE"), post()) is None  # case folded
    assert stopped_by(rules("title:rel"), post()) is not None  # whole words
    assert stopped_by(rules("title:寒武纪"), post(title="寒武纪加入基金会")) is None  # anywhere
    assert stopped_by(rules("text:/CAFÉ/"), post(text="un café")) is None


def test_an_evil_pattern_cannot_hang() -> None:
    evil = rules("text:/(a+)+$/")
    started = time.perf_counter()  # the whole text a rule reads: its first MAX_EXAMINED
    assert stopped_by(evil, post(text="a" * (MAX_EXAMINED - 1) + "b")) == "text:/(a+)+$/"
    assert time.perf_counter() - started < 0.05


def test_stored_rules_that_no_longer_parse_are_skipped() -> None:
    assert stopped_by(("nonsense", "title:release"), post()) is None
    assert stopped_by(("nonsense", "title:other"), post()) == "title:other"


def test_the_reason_a_chat_would_not_get_a_post() -> None:
    reader = Reader(chat_id=1)
    assert reason(reader, post()) is None
    blog_only = Reader(chat_id=1, categories=CategoryFilter(include=("Events",)))
    assert reason(blog_only, post()) == "/filter Events"
    words = Reader(chat_id=1, keywords=KeywordFilter(include=("cuda",), exclude=("ad",)))
    assert reason(words, post()) == "/keywords cuda, -ad"
    own = Reader(chat_id=1, rules=("title:launch",))
    assert reason(own, post()) == "title:launch"
    everywhere = Reader(chat_id=1, chat_rules=("-author:ana",))
    assert reason(everywhere, post()) == "-author:ana"
    change = Change(ChangeKind.NEW, post())
    assert wants(reader, change) and not wants(own, change) and not wants(everywhere, change)


@given(st.text(max_size=60))
def test_any_pattern_either_compiles_or_is_refused(pattern: str) -> None:
    try:
        found = parse_rules(f"text:/{pattern.replace('/', '')}/")
    except FilterSyntaxError:
        return
    stopped_by(written(found), post(text="a" * 1000))  # and running it never raises


def test_links_match_inside_words_and_missing_fields_match_nothing() -> None:
    assert stopped_by(("link:torch",), post()) is None  # inside "pytorch.example"
    assert stopped_by(("title:torch",), post()) == "title:torch"  # words elsewhere
    assert stopped_by(("link:xxxx",), post(link=None)) == "link:xxxx"
    assert stopped_by(("author:xxxx",), post(author=None)) == "author:xxxx"
    assert stopped_by(("category:blog",), post(categories=("Blog", "News"))) is None
    assert stopped_by(("category:news",), post(categories=("Blog", "News"))) is None


def test_the_fanout_question_searches_the_translation_too() -> None:
    change = Change(ChangeKind.NEW, post())
    harbour = Reader(chat_id=1, keywords=KeywordFilter(include=("harbour",)))
    assert wants(harbour, change, "港口 harbour") and not wants(harbour, change)
    assert not wants(Reader(chat_id=1, keywords=KeywordFilter(include=("xxxx",))), change)


def test_rule_refusals_say_why_and_twenty_rules_are_allowed() -> None:
    def refusal(text: str) -> str:
        with pytest.raises(FilterSyntaxError) as caught:
            parse_rules(text)
        return str(caught.value)

    assert refusal("title") == 'write rules as field:word, field:"two words" or field:/pattern/'
    assert refusal("color:red") == "color is not a field: use title, text, author, category or link"
    assert refusal('title:"  "') == "title: needs a value"
    assert refusal("  ") == "give at least one rule, e.g. title:release"
    twenty = " ".join(f"title:w{n}" for n in range(20))
    assert len(parse_rules(twenty)) == 20
    assert refusal(twenty + " title:w20") == "at most 20 rules"
