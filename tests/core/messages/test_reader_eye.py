"""Read by eye (issue 42, second pass): what a subscriber saw twice or never needed.

Fixtures are our own text in the shapes real feeds have: a Mastodon status (no title), a
company news feed whose description is its title, a Ghost custom excerpt that rephrases the
title, a forum post whose first line is its title."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.header import NAME_CHARS, SENTENCE_NAME_CHARS, post_name
from bot.core.messages.machinery import repeats_title
from bot.core.messages.render import render_change
from bot.core.messages.summary import summarize
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.telegram_html import assert_valid_telegram_html

_TAG = re.compile(r"<[^>]+>")


def visible(rendered: str) -> str:
    assert_valid_telegram_html(rendered)
    return html.unescape(_TAG.sub("", rendered))


def item(title: str, body: str) -> ParsedItem:
    text = html.unescape(_TAG.sub(" ", body))
    link = "https://social.example/@ana/1"
    return ParsedItem("k", title, link, None, None, (), text, "f", 0, html=body)


def message(it: ParsedItem) -> str:
    return render_change(Change(ChangeKind.NEW, it), FeedInfo(slug="s", title="Ana"))


def test_an_untitled_post_is_named_by_its_short_first_sentence() -> None:
    text = "Page 40 of the comic is up! The lizards finally reach the salt flats tonight."
    assert post_name("", text) == "Page 40 of the comic is up!"


def test_a_first_sentence_longer_than_the_limit_falls_back_to_first_words() -> None:
    sentence = "word " * (SENTENCE_NAME_CHARS // 5) + "end."
    name = post_name("", sentence + " Next.")
    assert name.endswith("…") and len(name) <= NAME_CHARS


def test_an_untitled_status_does_not_repeat_its_first_sentence() -> None:
    body = (
        '<p>Page 40 of the comic is up! <a href="https://social.example/tags/comic">#comic</a></p>'
        "<p>The lizards finally reach the salt flats tonight.</p>"
    )
    shown = visible(message(item("", body)))
    assert shown.count("Page 40 of the comic is up!") == 1
    assert "The lizards finally reach the salt flats tonight." in shown


def test_an_untitled_status_of_one_sentence_is_its_name_alone() -> None:
    body = "<p>Have you noticed how quiet the harbour is in November?</p>"
    shown = visible(message(item("", body)))
    assert shown.count("quiet the harbour") == 1


def test_a_description_that_is_the_title_is_not_shown_again() -> None:
    title = "Harbour Lines opens a second office in Porto"
    shown = visible(message(item(title, title)))
    assert shown.count("second office") == 1
    assert summarize(title, title=title) == ""


def test_a_first_paragraph_that_is_the_title_gives_way_to_the_next() -> None:
    title = "建国纪念币，华表，和平鸽"
    body = f"<p>{title}</p><p>一套五枚，品相如图，欢迎联系。</p>"
    assert visible(summarize(body, title=title)) == "一套五枚，品相如图，欢迎联系。"


def test_an_excerpt_rephrasing_the_title_with_function_words_gives_way_to_the_lede() -> None:
    title = "How To Run Kestrel with Deno [Short Guide]"
    body = "<p>Deno shipped its 2.0 release.</p><p>Most Kestrel plugins load unchanged.</p>"
    shown = visible(summarize(body, excerpt_html="You can run Kestrel with Deno", title=title))
    assert shown.startswith("Deno shipped its 2.0 release.")
    assert repeats_title("You can run Kestrel with Deno", title)
    assert not repeats_title("You can run Kestrel faster", title)
    assert not repeats_title("The new app", "App")  # "new" is no function word


@given(st.text(min_size=1, max_size=300))
def test_a_name_is_never_empty_for_text_with_words(text: str) -> None:
    name = post_name("", text)
    assert name.strip() or not " ".join(text.split())


@given(
    st.lists(
        st.text(st.characters(categories=["L"]), min_size=3, max_size=9), min_size=2, max_size=8
    )
)
def test_an_untitled_post_always_links_to_itself_and_has_no_empty_anchor(words: list[str]) -> None:
    body = "<p>" + html.escape(" ".join(words)) + ".</p>"
    rendered = message(item("", body))
    assert 'href="https://social.example/@ana/1"' in rendered
    assert not re.search(r"<a [^>]*>\s*</a>", rendered)
