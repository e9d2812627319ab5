"""How wide text is on a phone and where numbered references end: the cases that
`./dev mutate bot/core/messages/sentences.py` found no test pinning down."""

from __future__ import annotations

import pytest

from bot.core.messages.sentences import columns, sentence_ends


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("", 0),
        ("plain words", 11),
        ("中文", 4),  # Chinese: wide
        ("한국어", 6),  # Hangul syllables: wide
        ("ＡＢ", 4),  # fullwidth Latin: wide
        ("ｱｲ", 2),  # halfwidth katakana: narrow, though above U+1100
        ("a—b…", 4),  # dashes and ellipses: ambiguous, one column on a phone
        ("日本 is 2", 9),
    ],
)
def test_wide_characters_take_two_columns_and_the_rest_one(text: str, width: int) -> None:
    assert columns(text) == width


@pytest.mark.parametrize("word", ["No", "Nos", "Nr", "no"])
def test_a_numbered_reference_does_not_end_a_sentence(word: str) -> None:
    text = f"See {word}. 12 and {word}. Seven now. Then stop."
    cuts = [text[:end] for end in sentence_ends(text)]
    assert cuts == [f"See {word}. 12 and {word}. Seven now.", text]


def test_a_stop_with_only_spaces_after_it_ends_the_text() -> None:
    text = "It ended.   \n "
    assert sentence_ends(text) == [len("It ended.")]


def test_a_stop_after_no_word_ends_a_sentence() -> None:
    text = "Look (. ) Then more."
    assert [text[:end] for end in sentence_ends(text)] == ["Look (.", text]
