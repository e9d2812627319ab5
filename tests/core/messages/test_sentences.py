"""`sentence_ends` against its definition: the word before a stop found by a regex search of
everything before it (what the linear scan replaced), on text made of the shapes that matter."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messages.sentences import _ABBREVIATIONS, _END, _INITIAL_BEFORE, sentence_ends

_WORD_BEFORE = re.compile(r"([\w.]+)\.$")


def reference(text: str) -> list[int]:
    """The definition, quadratic: for each stop, search the whole text before it."""
    ends: list[int] = []
    for match in _END.finditer(text):
        end = match.end()
        if match.group().startswith(".") and not match.group().startswith("..."):
            head = text[: match.start() + 1]
            word = _WORD_BEFORE.search(head)
            following = text[end:].lstrip()
            if word is not None:
                name = word.group(1).lower()
                if name in _ABBREVIATIONS or (
                    len(name) == 1 and name.isalpha() and _INITIAL_BEFORE.match(head, word.start())
                ):
                    continue
            if following[:1].islower() or (
                following[:1].isdigit()
                and word is not None
                and (word.group(1).lower() in ("no", "nos", "nr"))
            ):
                continue
        ends.append(end)
    if not ends or ends[-1] < len(text.rstrip()):
        ends.append(len(text.rstrip()))
    return ends


PIECES = st.sampled_from(
    ["Dr", "e.g", "U.S", "No", "J", "x", "word", "Ünïcode", "_id", "5", "3.14", "٣", "中文",
     ".", ". ", "... ", "! ", "? ", "。", "” ", ") ", " ", "\u00a0", "\n", "(", "\"", "⌘P",
     "a", "Sept", "Ctrl+P", "v2"]
)  # fmt: skip


@settings(max_examples=600)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_the_linear_scan_finds_the_ends_the_definition_finds(text: str) -> None:
    assert sentence_ends(text) == reference(text)


@given(st.text(max_size=80))
def test_any_text_gives_the_same_ends_as_the_definition(text: str) -> None:
    assert sentence_ends(text) == reference(text)


def test_abbreviations_initials_and_numbers_do_not_end_a_sentence() -> None:
    text = "Dr. Smith met J. Doe in the U.S. on Sept. 5. See No. 7 now. It rained."
    cuts = [text[:end] for end in sentence_ends(text)]
    assert cuts == [
        "Dr. Smith met J. Doe in the U.S. on Sept. 5.",
        "Dr. Smith met J. Doe in the U.S. on Sept. 5. See No. 7 now.",
        text,
    ]
