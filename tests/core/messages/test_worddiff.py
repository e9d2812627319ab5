"""The changed words inside a changed sentence: pairing, marking, cutting, escaping."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.worddiff import changed_words, marked, pair, similarity, spans, words
from tests.support.telegram_html import assert_valid_telegram_html

_STRUCK = re.compile(r"<s>(.*?)</s>", re.DOTALL)
_BOLD = re.compile(r"<b>(.*?)</b>", re.DOTALL)


def _squash(text: str) -> str:
    """Without spaces: the marked line puts one between a removed and an added word."""
    return "".join(text.split())


def _old_of(message: str) -> str:
    return html.unescape(_STRUCK.sub(r"\1", _BOLD.sub("", message)))


def _new_of(message: str) -> str:
    return html.unescape(_BOLD.sub(r"\1", _STRUCK.sub("", message)))


def test_one_changed_word_is_marked_in_place() -> None:
    old = "She was a pioneer in computing and taught for forty years."
    new = "She was a pioneer of computing and taught for forty years."
    assert marked(old, new, 300) == (
        "She was a pioneer <s>in</s> <b>of</b> computing and taught for forty years."
    )


def test_a_price_is_one_word_with_its_currency() -> None:
    assert marked("Seats cost $49 each.", "Seats cost $59 each.", 300) == (
        "Seats cost <s>$49</s> <b>$59</b> each."
    )


def test_changes_a_space_apart_read_as_one_phrase() -> None:
    old, new = "The talk starts at the main hall.", "The talk starts in room two."
    assert marked(old, new, 300) == "The talk starts <s>at the main hall</s> <b>in room two</b>."


def test_chinese_is_compared_by_character() -> None:
    assert words("会议在北京") == ["会", "议", "在", "北", "京"]
    assert changed_words("会议将于九月十五日举行。", "会议将于十月一日举行。") == (
        "九月十五",
        "十月一",
    )


def test_a_long_sentence_is_cut_alike_on_both_sides_of_the_change() -> None:
    before = " ".join(f"word{n}" for n in range(40))
    after = " ".join(f"tail{n}" for n in range(40))
    line = marked(f"{before} in {after}", f"{before} of {after}", 80)
    head, tail = line.split("<s>in</s> <b>of</b>")
    assert head.startswith("…") and tail.endswith("…")
    assert abs(len(head) - len(tail)) <= 8  # the same context each side, cut at words
    assert len(html.unescape(re.sub("<[^>]+>", "", line))) <= 90


def test_removed_sentences_pair_with_the_added_ones_they_resemble() -> None:
    changed, removed, added = pair(
        ["Tickets cost $49 per seat.", "The venue has moved."],
        ["A new speaker joins.", "Tickets cost $59 per seat."],
    )
    assert changed == [("Tickets cost $49 per seat.", "Tickets cost $59 per seat.")]
    assert removed == ["The venue has moved."]
    assert added == ["A new speaker joins."]


def test_markup_in_sentences_is_escaped() -> None:
    line = marked("Use <b> & <i> tags.", "Use <s> & <i> tags.", 300)
    assert line == "Use &lt;<s>b</s> <b>s</b>&gt; &amp; &lt;i&gt; tags."
    assert_valid_telegram_html(line)


_TEXT = st.text(alphabet=st.sampled_from([*"ab c<>&.$1 会议", "é", "\n"]), max_size=40)


@given(_TEXT, _TEXT)
def test_the_marked_line_gives_back_both_sentences(old: str, new: str) -> None:
    """Strike-through plus the unchanged text is the old sentence; bold plus the unchanged
    text the new one (but for spaces); and the line is always valid Telegram HTML."""
    line = marked(old, new, 10_000)
    assert_valid_telegram_html(line)
    assert "".join(s.new for s in spans(old, new)) == new
    assert "".join(s.old for s in spans(old, new)) == old
    if old != new:
        assert _squash(_old_of(line)) == _squash(old)
    assert _squash(_new_of(line)) == _squash(new)


@given(_TEXT)
def test_every_text_splits_into_words_and_back(text: str) -> None:
    assert "".join(words(text)) == text


def test_the_cut_keeps_whole_words_and_the_same_room_each_side() -> None:
    old = "alpha beta gamma delta epsilon zeta eta theta iota kappa in lambda mu nu xi omicron pi"
    new = old.replace(" in ", " of ")
    # a limit of 40 leaves (40 - 5) // 2 = 17 characters each side, then cut at a word
    assert marked(old, new, 40) == "…iota kappa <s>in</s> <b>of</b> lambda mu nu xi…"
    assert marked(old, new, 1000) == old.replace(" in ", " <s>in</s> <b>of</b> ")
    # the least context is 12 characters a side, however small the limit
    assert marked(old, new, 1) == "…iota kappa <s>in</s> <b>of</b> lambda mu…"
    short = "one two in three"
    assert marked(short, short.replace(" in ", " of "), 5) == "one two <s>in</s> <b>of</b> three"


def test_a_word_with_no_space_to_cut_at_is_kept_whole_to_its_size() -> None:
    old, new = "x" * 30 + " in " + "y" * 30, "x" * 30 + " of " + "y" * 30
    assert marked(old, new, 30) == f"…{'x' * 11} <s>in</s> <b>of</b> {'y' * 11}…"


def test_similar_sentences_are_paired_the_most_alike_first() -> None:
    assert similarity("a b c d", "a b c d") == 1.0
    assert similarity("Gone.", "Second.") == 0.0
    assert similarity("...", "a") == 0.0
    changed, removed, added = pair(
        ["Doors open at nine in the hall."],
        ["Doors open at ten.", "Doors open at ten in the hall."],
    )
    assert changed == [("Doors open at nine in the hall.", "Doors open at ten in the hall.")]
    assert added == ["Doors open at ten."] and removed == []
    many = [f"Sentence {n} is here." for n in range(25)]
    changed, removed, added = pair(many, [s.replace("here", "there") for s in many])
    assert len(changed) == 20 and len(removed) == 5 and len(added) == 5  # only 20 compared


def test_what_changed_is_said_removed_then_added() -> None:
    assert changed_words("Seats cost $49 at the door.", "Seats cost $59 at the gate.") == (
        "$49 … door",
        "$59 … gate",
    )
    assert changed_words("Open daily.", "Open daily and on Sundays.") == ("", "and on Sundays")
