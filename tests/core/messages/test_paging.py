"""Long replies split into parts Telegram accepts: every part within the limit, nothing lost,
each part as full as it can be (hypothesis), and the edge cases pinned exactly."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.paging import split_message
from bot.core.messages.render import TELEGRAM_LIMIT, telegram_length

# Lines that each fit (12 units at most, the smallest limit drawn) and are never blank.
lines = st.lists(st.text(alphabet="ab&<😀", min_size=1, max_size=6), min_size=1, max_size=30)


@given(lines, st.integers(12, 40))
def test_parts_fit_lose_nothing_and_are_as_full_as_possible(
    given_lines: list[str], limit: int
) -> None:
    text = "\n".join(line.replace("&", "&amp;").replace("<", "&lt;") for line in given_lines)
    parts = split_message(text, limit)
    assert all(telegram_length(part) <= limit for part in parts)
    assert all(part.strip() for part in parts)
    if telegram_length(text) <= limit:
        assert parts == [text]
        return
    assert "\n".join(parts) == text
    for part, following in itertools.pairwise(parts):
        first_line = following.split("\n")[0]
        assert telegram_length(part) + 1 + telegram_length(first_line) > limit


def test_a_text_of_exactly_the_limit_is_one_part() -> None:
    text = "x" * TELEGRAM_LIMIT
    assert split_message(text) == [text]
    assert split_message(text + "\ny") == [text, "y"]


def test_lines_are_packed_greedily_with_their_newlines_counted() -> None:
    assert split_message("aaaa\nbbbb\ncccc", 9) == ["aaaa\nbbbb", "cccc"]
    assert split_message("aaaa\nbbbb\ncccc", 8) == ["aaaa", "bbbb", "cccc"]
    assert split_message("aaaa\nbbbb\ncccc\nd", 14) == ["aaaa\nbbbb\ncccc", "d"]


def test_markup_does_not_count_but_entities_count_once() -> None:
    assert split_message("<b>aaaa</b>\n<i>bbbb</i>", 9) == ["<b>aaaa</b>\n<i>bbbb</i>"]
    assert split_message("&lt;&lt;\n&amp;&amp;\nx", 5) == ["&lt;&lt;\n&amp;&amp;", "x"]


def test_astral_characters_count_two_units() -> None:
    assert split_message("😀😀\n😀😀", 8) == ["😀😀", "😀😀"]
    assert split_message("😀😀\n😀😀", 9) == ["😀😀\n😀😀"]


def test_a_line_too_long_on_its_own_is_cut_as_escaped_plain_text() -> None:
    line = '<a href="https://x.example/">' + "&lt;&amp;&gt;" * 5 + "</a>"
    assert split_message("head\n" + line, 6) == [
        "head",
        "&lt;&amp;&gt;&lt;&amp;&gt;",
        "&lt;&amp;&gt;&lt;&amp;&gt;",
        "&lt;&amp;&gt; (h",
        "ttps:/",
        "/x.exa",
        "mple/)",
    ]


def test_a_long_line_never_splits_an_astral_character() -> None:
    assert split_message("ab😀cd", 3) == ["ab", "😀c", "d"]


def test_blank_parts_are_dropped() -> None:
    assert split_message("aaaa\n   \n\n    \nbbbb", 4) == ["aaaa", "bbbb"]
    assert split_message("aaaa\n" + " " * 8, 4) == ["aaaa"]


def test_a_line_of_exactly_the_limit_keeps_its_markup() -> None:
    assert split_message("<b>aaaa</b>\nbb", 4) == ["<b>aaaa</b>", "bb"]


def test_quotes_in_a_cut_line_stay_as_typed() -> None:
    assert split_message('say "hi" now', 5) == ['say "', 'hi" n', "ow"]


def test_only_characters_beyond_the_basic_plane_count_two() -> None:
    assert split_message("\uffff" * 4, 2) == ["\uffff\uffff", "\uffff\uffff"]
    assert split_message("\U00010000" * 2, 2) == ["\U00010000", "\U00010000"]
