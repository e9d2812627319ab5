"""`compose` and its helpers: the width, phone lines and counts a summary may take, held exactly
(cases and properties that `./dev mutate bot/core/messages/summary.py` found untested)."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bot.core.messages.blocks import Block, Run
from bot.core.messages.sentences import columns
from bot.core.messages.summary import compose, phone_rows, whole_post

_TAG = re.compile(r"<[^>]+>")
LINK = "https://a.example/post"


def visible(rendered: str) -> str:
    return html.unescape(_TAG.sub("", rendered))


def rows_of(rendered: str) -> int:
    """Phone lines the message takes: each line wraps at 38 columns, a blank line is one."""
    return sum(phone_rows(columns(line)) for line in visible(rendered).split("\n"))


def p(text: str) -> Block:
    return Block("p", (Run(text),))


def li(text: str, number: int | None = None) -> Block:
    return Block("li", (Run(text),), number)


# --- properties over generated posts --------------------------------------------------------

_WORDS = st.sampled_from(
    ["We", "ship", "it", "now", "a", "longer", "word", "中文", "日本語", "&", "<x>"]
)
_ENDS = st.sampled_from([".", "!", "?", "", "。"])


@st.composite
def _text(draw: st.DrawFn) -> str:
    sentences = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(st.lists(_WORDS, min_size=1, max_size=8))
        sentences.append(" ".join(words) + draw(_ENDS))
    return " ".join(sentences)


@st.composite
def _block(draw: st.DrawFn) -> Block:
    kind = draw(st.sampled_from(["p", "p", "li", "li", "h", "pre", "quote"]))
    text = draw(_text())
    cut = draw(st.integers(0, len(text)))
    href = draw(st.sampled_from([None, LINK]))
    bold = draw(st.booleans())
    runs = tuple(r for r in (Run(text[:cut], href, bold), Run(text[cut:])) if r.text)
    number = draw(st.sampled_from([None, 1, 9, 10, 123])) if kind == "li" else None
    return Block(kind, runs, number)


_BLOCKS = st.lists(_block(), min_size=1, max_size=9)


@settings(max_examples=300)
@given(_BLOCKS, st.integers(1, 300), st.one_of(st.none(), st.integers(1, 14)), st.booleans(),
       st.booleans())  # fmt: skip
def test_a_summary_never_takes_more_columns_or_phone_lines_than_it_may(
    blocks: list[Block], limit: int, rows: int | None, whole: bool, cut_by_site: bool
) -> None:
    shown, _ = compose(blocks, limit, rows=rows, whole=whole, cut_by_site=cut_by_site)
    assert columns(visible(shown)) <= limit  # a line break is one column
    if rows is not None and len(shown) and "\n" in shown:
        assert rows_of(shown) <= rows


@settings(max_examples=300)
@given(_BLOCKS, st.booleans())
def test_a_summary_shown_whole_fits_its_own_width_exactly_and_not_one_column_less(
    blocks: list[Block], whole: bool
) -> None:
    assume(blocks[-1].kind != "h")  # a heading is never the last line: not shown, not counted
    shown, complete = compose(blocks, 10**6, whole=whole)
    assume(complete and shown)
    width = columns(visible(shown))
    assert compose(blocks, width, whole=whole) == (shown, True)
    assert compose(blocks, width - 1, whole=whole)[1] is False


@settings(max_examples=300)
@given(_BLOCKS, st.booleans())
def test_a_summary_shown_whole_fits_its_own_phone_lines_exactly(
    blocks: list[Block], whole: bool
) -> None:
    assume(blocks[-1].kind != "h" and all(b.kind != "pre" for b in blocks))
    shown, complete = compose(blocks, 10**6, whole=whole)
    assume(complete and shown)
    lines = rows_of(shown)
    assert compose(blocks, 10**6, whole=whole, rows=lines) == (shown, True)
    assert compose(blocks, 10**6, whole=whole, rows=lines - 1)[1] is False


def test_a_paragraph_one_column_wider_than_a_phone_line_takes_two_lines() -> None:
    assert [phone_rows(w) for w in (0, 1, 38, 39, 76, 77)] == [1, 1, 1, 2, 2, 3]


# --- counts: three sentences, five items, "… and N more" --------------------------------------


def test_three_sentences_are_counted_across_paragraphs() -> None:
    blocks = [p("This is step one. Step two."), p("This is step three. Four."), p("Five.")]
    assert compose(blocks) == ("This is step one. Step two.\n\nThis is step three.", False)


def test_a_fourth_one_sentence_paragraph_is_not_shown() -> None:
    blocks = [p("One."), p("Two."), p("Three."), p("Four.")]
    assert compose(blocks) == ("One.\n\nTwo.\n\nThree.", False)


@pytest.mark.parametrize("kind", ["h", "pre"])
def test_a_heading_or_code_block_is_not_one_of_the_three_sentences(kind: str) -> None:
    blocks = [Block(kind, (Run("make"),)), p("One. Two. Three."), p("Four.")]
    shown = visible(compose(blocks)[0])
    assert shown == "make\n\nOne. Two. Three."


def test_a_blank_paragraph_is_skipped_and_the_next_one_shown() -> None:
    assert compose([p("One."), p("   "), p("Two.")]) == ("One.\n\nTwo.", True)


def test_a_heading_last_is_dropped_even_when_everything_fit() -> None:
    assert compose([p("Intro."), Block("h", (Run("Details"),))]) == ("Intro.", True)


@pytest.mark.parametrize("count", [7, 8, 9])
def test_more_items_than_five_end_with_how_many_are_left(count: int) -> None:
    blocks = [p("Changes."), p("In this release:"), *[li(f"item {n}") for n in range(count)]]
    shown, complete = compose(blocks)
    assert complete is False
    assert shown.endswith("• item 4\n<i>… and " + f"{count - 5} more</i>")


def test_the_more_line_shows_only_when_it_fits_to_the_column() -> None:
    items = [li(f"item {n}", n + 1) for n in range(8)]
    five = columns(visible(compose(items[:5])[0]))
    tail = "\n… and 3 more"
    assert compose(items, five + columns(tail))[0].endswith("<i>… and 3 more</i>")
    assert compose(items, five + columns(tail) - 1)[0] == compose(items[:5])[0]


def test_a_list_item_ending_in_a_colon_is_dropped_with_the_more_line() -> None:
    names = ["first", "second", "third", "fourth", "fifth:", "sixth", "seventh"]
    assert compose([li(name) for name in names]) == ("• first\n• second\n• third\n• fourth", False)


# --- cut by the site ---------------------------------------------------------------------------


def test_an_excerpt_cut_by_the_site_shows_its_whole_sentences() -> None:
    shown = compose([p("One is here. Two is here. Three and")], cut_by_site=True)
    assert shown == ("One is here. Two is here.", False)


def test_an_excerpt_cut_after_a_capital_x_is_still_cut() -> None:
    shown = compose([p("We tried the beta. It runs on Mac OS X")], cut_by_site=True)
    assert shown[0] == "We tried the beta."


def test_a_cut_mark_inside_the_post_is_the_author_s_text() -> None:
    blocks = [p("He said […]"), p("Then left.")]
    assert compose(blocks, cut_by_site=False)[0] == "He said […]\n\nThen left."
    assert compose(blocks[:1], cut_by_site=False)[0] == "He said […]"
    assert compose(blocks[:1], cut_by_site=True)[0] == "He said…"


# --- a first sentence too long: cut at a word ---------------------------------------------------


def test_a_long_first_sentence_without_spaces_is_cut_to_the_limit() -> None:
    assert compose([p("a" * 300)], 50) == ("a" * 49 + "…", False)
    assert compose([p("中" * 300)], 50) == ("中" * 24 + "…", False)


def test_a_long_first_sentence_in_pieces_is_cut_as_one_text() -> None:
    block = Block("p", (Run("a" * 20, bold=True), Run("b" * 280)))
    assert visible(compose([block], 50)[0]) == "a" * 20 + "b" * 29 + "…"


def test_a_long_first_sentence_is_cut_within_its_phone_lines() -> None:
    assert compose([p("a" * 300)], 600, rows=2)[0] == "a" * 56 + "…"


@pytest.mark.parametrize(
    ("head", "shown"),
    [
        ("aaaaaaaaaa bbbbbbbbb", "aaaaaaaaaa bbbbbbbbb"),  # the space at half: not worth it
        ("aaaaaaaaaaa bbbbbbbb", "aaaaaaaaaaa"),  # past half: the last word goes
        ("aaaaaaaa bbbbbbbbbbb", "aaaaaaaa bbbbbbbbbbb"),  # short of half: cut mid-word
    ],
)
def test_a_long_first_sentence_is_cut_at_a_word_only_past_its_middle(head: str, shown: str) -> None:
    assert compose([p(head + "c" * 300)], 21)[0] == shown + "…"


# --- the whole post -----------------------------------------------------------------------------


def test_the_whole_post_shows_every_item_and_sentence_that_fits() -> None:
    items = "".join(f"<li>Item {n}</li>" for n in range(70))
    sentences = " ".join(f"Sentence {n}." for n in range(70))
    shown, complete = whole_post(f"<p>{sentences}</p><ul>{items}</ul>", limit=10_000)
    assert complete is True
    assert shown.count("• Item") == 70 and "Sentence 69." in shown


def test_the_whole_post_is_not_limited_in_phone_lines() -> None:
    paragraphs = "".join(f"<p>Paragraph {n}.</p>" for n in range(70))
    shown, complete = whole_post(paragraphs, limit=10_000)
    assert complete is True and shown.count("Paragraph") == 70


# --- a short line before the cut reads as a heading ---------------------------------------------


def test_a_short_line_without_a_stop_before_the_cut_is_not_the_last_line() -> None:
    blocks = [p("One."), p("Two."), p("What comes next"), p("Three. Four. Five.")]
    assert compose(blocks) == ("One.\n\nTwo.", False)


# --- styles and links ---------------------------------------------------------------------------


def test_bold_of_up_to_eighty_characters_is_shown_bold() -> None:
    eighty, longer = "b" * 80, "b" * 81
    assert compose([Block("p", (Run(eighty, bold=True),))])[0] == f"<b>{eighty}</b>"
    assert compose([Block("p", (Run(longer, bold=True),))])[0] == longer


def test_a_link_ends_where_its_pieces_end() -> None:
    block = Block("p", (Run("Read ", LINK, bold=True), Run("this", LINK), Run(" now.")))
    assert compose([block])[0] == f'<a href="{LINK}"><b>Read </b>this</a> now.'


def test_a_link_of_only_spaces_is_not_a_link() -> None:
    block = Block("p", (Run("Go"), Run(" ", LINK), Run(" ", LINK), Run("on.")))
    assert compose([block])[0] == "Go  on."


# --- a block's trailing spaces (left by a cut mark's removal) hide nothing --------------------


def test_a_colon_before_trailing_spaces_still_leads_into_its_list() -> None:
    assert compose([p("Steps: "), li("a")]) == ("Steps:\n• a", True)


def test_an_excerpt_ending_in_a_stop_and_spaces_is_not_cut() -> None:
    shown = compose([p("One is here. Two is here. ")], cut_by_site=True)
    assert shown == ("One is here. Two is here.", True)


def test_a_last_item_ending_in_a_colon_and_spaces_is_dropped() -> None:
    assert compose([p("Intro."), li("a"), li("Then: ")]) == ("Intro.\n\n• a", True)


def test_a_last_intro_ending_in_a_colon_and_spaces_keeps_its_news() -> None:
    shown = compose([p("We rolled out Lumen. This release includes: ")])
    assert shown == ("We rolled out Lumen.", True)
