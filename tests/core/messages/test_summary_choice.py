"""Which text a summary shows and how much of a phone it takes (issue 42): a teaser excerpt is
followed by the lede, an automatic or site-cut excerpt gives way to the full text, a heading-only
description is shown, at most 3 inline links, about 12 phone lines (8 under an image), at most
5 list items and "… and N more". Hypothesis: no list item is lost to a rule that is not about
boilerplate, and no anchor is empty."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messages.summary import (
    IMAGE_ROWS,
    MAX_ITEMS,
    MAX_ROWS,
    ROW_COLUMNS,
    phone_rows,
    summarize,
)
from tests.support.telegram_html import visible

_ANCHOR = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.DOTALL)


def rows_of(shown: str) -> int:
    return sum(phone_rows(len(line)) for line in shown.split("\n"))


BODY = (
    "<p>Chrome now ships a native build for ARM64 Linux, so it runs without emulation on "
    "single-board computers and ARM laptops.</p><p>Tabs load about a third faster.</p>"
)


def test_a_one_sentence_teaser_excerpt_is_followed_by_the_lede() -> None:
    teaser = "Chrome on ARM64 boards at last."
    shown = visible(summarize(BODY, excerpt_html=teaser, title="Chrome for ARM64 Linux"))
    assert shown.startswith(teaser + "\n\nChrome now ships a native build")


def test_a_teaser_naming_nothing_of_the_title_gives_way_to_the_lede_that_names_it() -> None:
    hook = "Tinkerers might be even happier."
    shown = visible(summarize(BODY, excerpt_html=hook, title="Chrome for ARM64 Linux"))
    assert shown.startswith("Chrome now ships a native build") and hook not in shown


def test_an_excerpt_cut_by_the_site_gives_way_to_the_full_text() -> None:
    excerpt = "<p>Chrome is finally here for ARM64 Linux machines, and it runs […]</p>"
    shown = visible(summarize(BODY, excerpt_html=excerpt))
    assert shown.startswith("Chrome now ships a native build") and "[…]" not in shown
    ellipsis = "<p>A native browser for small boards at last…</p>"
    assert visible(summarize(BODY, excerpt_html=ellipsis)).startswith("Chrome now ships")


def test_a_site_cut_excerpt_followed_by_wordpress_s_footer_still_gives_way() -> None:
    excerpt = (
        "<p>A native browser for small boards at last, and it runs [&#8230;]</p>"
        "<p>The post Chrome for ARM64 Linux appeared first on Board News.</p>"
    )
    shown = visible(summarize(BODY, excerpt_html=excerpt, title="Chrome for ARM64 Linux"))
    assert shown.startswith("Chrome now ships") and "appeared first" not in shown


def test_a_hand_written_excerpt_of_two_sentences_is_still_the_summary() -> None:
    excerpt = "A native browser for small boards. It is faster than the emulated one."
    assert visible(summarize(BODY, excerpt_html=excerpt)) == excerpt


def test_a_heading_only_description_is_the_author_s_subtitle() -> None:
    assert visible(summarize("<h4>Why our maps now load offline</h4>", full=False)) == (
        "Why our maps now load offline"
    )


def test_at_most_three_inline_links() -> None:
    links = " ".join(f'<a href="https://l.example/{n}">word{n}</a>' for n in range(6))
    summary = summarize(
        f"<p>We funded six projects this year, from the smallest to the largest: {links}.</p>"
    )
    assert len(_ANCHOR.findall(summary)) == 3
    assert "word5" in visible(summary)  # the text stays, only the anchor goes


def test_about_twelve_phone_lines_and_eight_under_an_image() -> None:
    sentence = "This sentence is about a hundred and fifty columns long, " * 2 + "or so."
    body = "".join(f"<p>{sentence}</p>" for _ in range(3))
    shown = visible(summarize(body))
    assert rows_of(shown) <= MAX_ROWS == 12
    assert visible(summarize(body, rows=IMAGE_ROWS)).count(sentence) < shown.count(sentence)
    assert rows_of(visible(summarize(body, rows=IMAGE_ROWS))) <= IMAGE_ROWS == 8
    assert ROW_COLUMNS == 38


def test_at_most_five_items_then_and_n_more_in_the_chat_s_language() -> None:
    items = "".join(f"<li>Fix {n}.</li>" for n in range(9))
    summary = summarize(f"<ul>{items}</ul>", more="<i>… y {n} más</i>")
    shown = visible(summary)
    assert shown.count("• ") == MAX_ITEMS == 5
    assert shown.endswith("\n… y 4 más")
    assert summary.endswith("<i>… y 4 más</i>")


_ITEM_TEXT = st.one_of(
    st.from_regex(r"[0-9a-f]{7} [a-z]{3,10}: [a-z]{1,8}( [a-z]{1,8}){0,2}", fullmatch=True),
    st.from_regex(r"(19|20)[0-9]{2} (by|in|and) [A-Z][a-z]{2,9}", fullmatch=True),
    st.from_regex(r"[A-Z][a-z]{2,10}( [a-z]{2,8}){0,5}", fullmatch=True),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_ITEM_TEXT, min_size=1, max_size=MAX_ITEMS))
def test_no_list_item_is_lost_to_a_rule_that_is_not_about_boilerplate(items: list[str]) -> None:
    """Release notes (commit hashes), reading lists (years), short items: each is shown."""
    body = "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"
    shown = visible(summarize(body, limit=4000, rows=10**6))
    for item in items:
        assert f"• {' '.join(item.split())}" in shown


_WORDS = st.text(st.sampled_from("ab xy.,:"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_WORDS, st.booleans()), max_size=12))
def test_no_anchor_is_ever_empty(parts: list[tuple[str, bool]]) -> None:
    body = "".join(
        f'<p><a href="https://e.example/{n}">{html.escape(t)}</a> {html.escape(t)}</p>'
        if linked
        else f"<li><a href='https://e.example/{n}'>{html.escape(t)}</a></li>"
        for n, (t, linked) in enumerate(parts)
    )
    summary = summarize(body)
    assert all(inner.strip() for _, inner in _ANCHOR.findall(summary))
    assert len(_ANCHOR.findall(summary)) <= 3
