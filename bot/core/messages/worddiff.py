"""The word-level difference inside a changed sentence, and how it is marked for a reader.

Why: an edit that changes one word of a 140-character sentence used to arrive as two whole
sentences to compare by eye. Here the removed sentence is paired with the added one it most
resembles (`pair`), their words are compared (`spans`), and the message marks only what
changed, `<s>removed</s> <b>added</b>`, cut to the same amount of context on both sides of the
change (`marked`). Chinese and Japanese have no spaces: each of their characters is a word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from bot.core.messages.escape import esc

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_NUMBER = r"[$€£¥₹]?\d+(?:[.,:/]\d+)*%?"  # "$49", "1,299.00", "10%", "09:30": one word
_TOKEN = re.compile(rf"{_NUMBER}|[{_CJK}]|[^\W{_CJK}]+|\s+|[^\w\s]", re.UNICODE)
_ONE_CJK = re.compile(rf"[{_CJK}]")
SIMILAR = 0.5  # a removed and an added sentence this alike (by words) are one changed sentence
MAX_PAIRED = 20  # sentences compared on each side (an edit rewriting hundreds is not one change)
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Span:
    """A run of the sentence: the same in both (`old == new`) or changed."""

    old: str
    new: str

    @property
    def same(self) -> bool:
        return self.old == self.new


def words(text: str) -> list[str]:
    """Words, spaces and punctuation, in order; joined they give `text` back."""
    return _TOKEN.findall(text)


def similarity(old: str, new: str) -> float:
    """How much of the two sentences' words are the same (0 to 1); spaces and punctuation
    do not count ("Gone." and "Second." share nothing)."""
    a = [w for w in words(old) if w[0].isalnum() or w[-1].isalnum()]
    b = [w for w in words(new) if w[0].isalnum() or w[-1].isalnum()]
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def pair(
    removed: Sequence[str], added: Sequence[str]
) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """(changed sentences as (old, new), sentences only removed, sentences only added): each
    removed sentence is paired with the most alike added one still free, when at least
    SIMILAR alike; the rest stay whole. Pairs are in the added sentences' order. Only the
    first MAX_PAIRED of each side are compared: a long rewrite costs no more than that."""
    free = list(range(min(len(added), MAX_PAIRED)))
    pairs: dict[int, str] = {}
    alone: list[str] = []
    for position, old in enumerate(removed):
        if position >= MAX_PAIRED:
            alone.append(old)
            continue
        scored = [(similarity(old, added[i]), -i) for i in free]
        best = max(scored, default=(0.0, 0))
        if best[0] < SIMILAR:
            alone.append(old)
            continue
        index = -best[1]
        free.remove(index)
        pairs[index] = old
    changed = [(pairs[i], added[i]) for i in sorted(pairs)]
    return changed, alone, [a for i, a in enumerate(added) if i not in pairs]


def spans(old: str, new: str) -> list[Span]:
    """The two sentences as runs that are the same or changed. Changes separated only by a
    space (or one Chinese or Japanese character) are one change, so a rewritten phrase reads as
    one phrase, not word by word."""
    a, b = words(old), words(new)
    runs = [
        Span("".join(a[i1:i2]), "".join(b[j1:j2]))
        for _, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    ]
    out: list[Span] = []
    index = 0
    while index < len(runs):
        run = runs[index]
        following = runs[index + 1] if index + 1 < len(runs) else None
        if (
            run.same
            and (not run.old.strip() or _ONE_CJK.fullmatch(run.old) is not None)
            and following is not None
            and out
            and not out[-1].same
        ):
            last = out.pop()  # a lone space between two changes: one change
            out.append(Span(last.old + run.old + following.old, last.new + run.new + following.new))
            index += 2
            continue
        out.append(run)
        index += 1
    return out


def changed_words(old: str, new: str) -> tuple[str, str]:
    """What the edit removed and what it added, each as one text (for the explanation)."""
    runs = [s for s in spans(old, new) if not s.same]
    removed = " … ".join(r.old.strip() for r in runs if r.old.strip())
    added = " … ".join(r.new.strip() for r in runs if r.new.strip())
    return removed, added


def marked(old: str, new: str, limit: int) -> str:
    """The changed sentence in Telegram HTML: what stayed as it was, `<s>removed</s>` and
    `<b>added</b>`; when longer than `limit` characters, the unchanged text before the first
    change and after the last is cut to the same length on both sides (at a word, with "…").
    Everything from the feed is escaped."""
    runs = spans(old, new)
    changes = [i for i, r in enumerate(runs) if not r.same]
    if not changes:
        return esc(new)
    first, last = changes[0], changes[-1]
    middle = runs[first : last + 1]
    inner = sum(len(r.old) + len(r.new) + (1 if r.old and r.new else 0) for r in middle)
    head = "".join(r.new for r in runs[:first])
    tail = "".join(r.new for r in runs[last + 1 :])
    side = max((limit - inner) // 2, 12)
    if len(head) + inner + len(tail) > limit:
        head, tail = _tail_of(head, side), _head_of(tail, side)
    return esc(head) + "".join(_mark(r) for r in middle) + esc(tail)


def _mark(run: Span) -> str:
    if run.same:
        return esc(run.new)
    parts = []
    if run.old.strip():
        parts.append(f"<s>{esc(run.old.strip())}</s>")
    if run.new.strip():
        parts.append(f"<b>{esc(run.new.strip())}</b>")
    lead = run.old[: len(run.old) - len(run.old.lstrip())] or run.new[: _lead(run.new)]
    trail = run.old[len(run.old.rstrip()) :] or run.new[len(run.new.rstrip()) :]
    return lead + " ".join(parts) + trail


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip())


def _tail_of(text: str, keep: int) -> str:
    """The last `keep` characters of `text`, starting at a word, after "…"."""
    if len(text) <= keep:
        return text
    cut = text[-keep:]
    space = cut.find(" ")
    if 0 <= space < len(cut) - 1:
        cut = cut[space + 1 :]
    return ELLIPSIS + cut


def _head_of(text: str, keep: int) -> str:
    """The first `keep` characters of `text`, ending at a word, then "…"."""
    if len(text) <= keep:
        return text
    cut = text[:keep]
    space = cut.rfind(" ")
    if space > 0:
        cut = cut[:space]
    return cut + ELLIPSIS
