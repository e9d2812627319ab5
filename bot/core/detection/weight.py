"""How big an edit is: minor (a typo, a word, punctuation) or substantive.

Readers asked to be told about real rewrites and spared the one-letter fixes, but a corrected
number is never minor: "costs 50 euros" → "costs 80 euros" is the news itself. So an edit is
minor only when no number changed, every changed sentence is still mostly the same sentence
(no sentence added, removed, replaced or moved), and at most `MINOR_WORDS` words were replaced
(title and text together; punctuation and case are not words), none added or removed in a
block of two or more (a dropped clause).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from enum import StrEnum

from bot.core.text import diff_sentences, sentences, words_of

MINOR_WORDS = 2  # words replaced (a typo fix, a better word)
SAME_SENTENCE = 0.5  # word similarity above which a changed sentence is the same one, fixed
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


class Weight(StrEnum):
    MINOR = "minor"
    SUBSTANTIVE = "substantive"


def weigh(old_title: str, new_title: str, old_text: str, new_text: str) -> Weight:
    """The weight of the edit from (old_title, old_text) to (new_title, new_text)."""
    if _numbers(old_title + "\n" + old_text) != _numbers(new_title + "\n" + new_text):
        return Weight.SUBSTANTIVE  # a price, a date, a version: what readers look for
    if _words(old_title) == _words(new_title) and _words(old_text) == _words(new_text):
        return Weight.MINOR  # punctuation and case only, even where it joins two sentences
    old_sentences, new_sentences = sentences(old_text), sentences(new_text)
    if old_sentences != new_sentences and sorted(old_sentences) == sorted(new_sentences):
        return Weight.SUBSTANTIVE  # the same sentences in another order: restructured
    added, removed = diff_sentences(old_sentences, new_sentences)
    if len(added) != len(removed):
        return Weight.SUBSTANTIVE  # a sentence added or removed
    for before, after in zip(removed, added, strict=True):
        if _similarity(_words(before), _words(after)) < SAME_SENTENCE:
            return Weight.SUBSTANTIVE  # a sentence replaced by another
    replaced = 0
    for old, new in (_words(old_title), _words(new_title)), (_words(old_text), _words(new_text)):
        for tag, a_start, a_end, b_start, b_end in _opcodes(old, new):
            size = max(a_end - a_start, b_end - b_start)
            if tag in ("insert", "delete") and size >= 2:
                return Weight.SUBSTANTIVE  # words added or removed: a sentence, a clause
            replaced += size
    return Weight.MINOR if replaced <= MINOR_WORDS else Weight.SUBSTANTIVE


def _words(text: str) -> list[str]:
    """Words folded for comparison; CJK characters are words of their own."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    words = words_of(folded)
    if folded.isascii() or not _CJK.search(folded):  # no word to split (a search per word)
        return words
    out: list[str] = []
    for word in words:
        out.extend(_CJK.findall(word) if _CJK.search(word) else [word])
    return out


def _similarity(old: list[str], new: list[str]) -> float:
    return difflib.SequenceMatcher(a=old, b=new, autojunk=False).ratio()


def _opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """The word-level changes from `old` to `new` (equal runs left out)."""
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    return [op for op in matcher.get_opcodes() if op[0] != "equal"]


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(unicodedata.normalize("NFKC", text))
