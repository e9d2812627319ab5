"""Edit weight (issue 29): a typo fix or a changed word is minor; a new or dropped sentence, a
reordering, a rewritten sentence or any changed number is substantive."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bot.core.detection import weight
from bot.core.detection.weight import Weight, weigh

TEXT = (
    "The port authority switched its cranes to electric drives on Monday. Engineers fitted "
    "new motors and a shared battery bank. The tugboats come next."
)
MINOR, SUBSTANTIVE = Weight.MINOR, Weight.SUBSTANTIVE


def edit(new: str, *, title: str = "Cranes", new_title: str = "Cranes", old: str = TEXT) -> Weight:
    return weigh(title, new_title, old, new)


def test_typos_a_word_and_punctuation_are_minor() -> None:
    assert edit(TEXT.replace("fitted", "fited")) is MINOR
    assert edit(TEXT.replace("shared", "common")) is MINOR
    assert edit(TEXT.replace("shared battery", "common power")) is MINOR  # two words
    assert edit(TEXT.replace("Monday.", "Monday;")) is MINOR
    assert edit(TEXT.replace("The port", "the port")) is MINOR
    assert edit(TEXT, new_title="Harbour cranes", title="Harbor cranes") is MINOR


def test_more_words_a_sentence_or_a_number_are_substantive() -> None:
    assert edit(TEXT.replace("new motors and a shared", "old motors or one small")) is SUBSTANTIVE
    assert edit(TEXT + " A second phase starts in spring.") is SUBSTANTIVE
    assert edit(TEXT.replace(" The tugboats come next.", "")) is SUBSTANTIVE
    assert edit(TEXT.replace("new motors and ", "")) is SUBSTANTIVE  # a clause dropped
    assert edit(TEXT.replace("The tugboats come next.", "Buses are faster now.")) is SUBSTANTIVE
    assert weigh("T", "T", "It costs 50 euros.", "It costs 80 euros.") is SUBSTANTIVE
    assert weigh("Version 2.4", "Version 2.5", "Notes.", "Notes.") is SUBSTANTIVE
    assert weigh("T", "T", "One. Two.", "Two. One.") is SUBSTANTIVE  # reordered
    assert edit(TEXT, new_title="Cranes go electric at last") is SUBSTANTIVE


def test_cjk_characters_are_words() -> None:
    old = "港口的起重机改用电力驱动。工程师安装了新电机。"
    assert weigh("标题", "标题", old, old.replace("新", "新型")) is MINOR
    assert (
        weigh("标题", "标题", old, old.replace("工程师安装了新电机", "今年春天开始第二期工程"))
        is SUBSTANTIVE
    )


@given(st.text(alphabet="abcdefgh .", min_size=1, max_size=80))
def test_the_same_text_is_always_minor(text: str) -> None:
    assert weigh("T", "T", text, text) is MINOR


@given(st.integers(0, 999), st.integers(0, 999))
def test_a_changed_number_is_never_minor(old: int, new: int) -> None:
    weight = weigh("T", "T", f"It costs {old} euros.", f"It costs {new} euros.")
    assert weight is (MINOR if old == new else SUBSTANTIVE)


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=2, max_size=6))
def test_an_added_sentence_of_words_is_never_minor(words: list[str]) -> None:
    assert weigh("T", "T", TEXT, TEXT + " " + " ".join(words).capitalize() + ".") is SUBSTANTIVE


def test_the_boundaries_of_minor() -> None:
    assert edit(TEXT.replace("a shared battery", "battery")) is SUBSTANTIVE  # two words dropped
    assert edit(TEXT.replace("new motors", "new electric drive motors")) is SUBSTANTIVE  # added
    assert edit(TEXT.replace("new motors", "new electric motors")) is MINOR  # one word added
    three = TEXT.replace("port", "harbour").replace("fitted", "fited").replace("next", "later")
    assert edit(three) is SUBSTANTIVE  # three separate words
    assert weigh("T", "T", "Alpha beta.", "Alpha gamma.") is MINOR  # half the sentence stays
    assert weigh("T", "T", "Alpha beta gamma.", "Delta epsilon gamma.") is SUBSTANTIVE


def _words_word_by_word(text: str) -> list[str]:
    """Words as first written: each word searched for CJK characters."""
    out: list[str] = []
    for word in re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()):
        cjk = re.findall(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]", word)
        out.extend(cjk or [word])
    return out


@given(st.text(st.sampled_from("ab1 .,Ａ\u00e9\u0301中文かナ한\n_-")))
def test_words_are_split_as_word_by_word(text: str) -> None:
    """`_words` skips the per-word search when the text has no CJK; the words are the same."""
    assert weight._words(text) == _words_word_by_word(text)
