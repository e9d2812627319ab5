"""One line that says what an edit changed, from its word-level difference (no model).

Why: a reader should know what changed before reading any sentence of the diff. A changed
number reads as "Price: $49 → $59"; another changed phrase as the sentence's words up to it,
then the new words and what they were ("Registration now closes 1 October (was 15
September)"); whole sentences added or removed as "A paragraph added: “…”". The operator's
model may say it better, but only in words the edit itself contains (`grounded`): a number or
a name the diff does not hold is the model's invention, and the rule-based line is shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.core.lang import Translator
from bot.core.messages.worddiff import pair, spans
from bot.core.text import shorten
from bot.core.types import TextDiff

MAX_LINE = 160  # one line on a phone, two at most
QUOTE = 60  # the start of a sentence quoted for an added or removed paragraph
CONTEXT_WORDS = 6  # the words of the sentence shown before a changed phrase
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_NUMERIC = re.compile(r"[$€£¥₹]?\s?\d+(?:[.,:/]\d+)*\s?(?:%|[$€£¥₹]|[A-Za-z]{1,3})?")
_NAME = re.compile(r"[^\W\d_]*[A-Z][^\W\d_]*")
# Words that end a label before a number: "The price is $59" → "Price".
_FILLER = frozenset(
    re.findall(
        r"\S+",
        "a an the is are was were be now at to of for from by and or costs cost es son era el "
        "la los las de del al un una ahora en por y ist sind le les des du est",
    )
)


def explain(diff: TextDiff, tr: Translator) -> str:
    """The edit in one line of plain text (the caller escapes it), in `tr`'s language."""
    changed, removed, added = pair(diff.removed, diff.added)
    more = len(changed) + len(removed) + len(added) - 1
    if changed:
        line = _phrase(changed, tr)
    elif added:
        line = _paragraphs(added, tr, removed=False)
        more = len(removed)
    elif removed:
        line = _paragraphs(removed, tr, removed=True)
        more = 0
    elif diff.old_title is not None and diff.new_title is not None:
        return shorten(
            tr.gettext("Title: {old} → {new}").format(old=diff.old_title, new=diff.new_title),
            MAX_LINE,
        )
    else:
        return tr.gettext("The text was reworded or reordered.")
    if more > 0:
        tail = tr.ngettext("(and {n} more change)", "(and {n} more changes)", more).format(n=more)
        return shorten(line, MAX_LINE - len(tail) - 1) + " " + tail
    return shorten(line, MAX_LINE)


def _phrase(changed: list[tuple[str, str]], tr: Translator) -> str:
    """The first changed sentence with a changed number, else the first one, as its change."""
    chosen = next((p for p in changed if _has_number_change(*p)), changed[0])
    runs = spans(*chosen)
    moved = [i for i, r in enumerate(runs) if not r.same]
    if not moved:  # the same sentence, moved: nothing within it changed
        return tr.gettext("The text was reworded or reordered.")
    index = next((i for i in moved if _DIGITS.search(runs[i].old + runs[i].new)), moved[0])
    run = runs[index]
    old, new = run.old.strip(), run.new.strip()
    before = "".join(r.new for r in runs[:index])
    if old and new and _is_number(old) and _is_number(new):
        label = _label(before)
        arrow = f"{old} → {new}"
        return f"{label}: {arrow}" if label else arrow
    context = _last_words(before, CONTEXT_WORDS) + run.new[: len(run.new) - len(run.new.lstrip())]
    if old and new:
        return tr.gettext("{new} (was {old})").format(new=f"{context}{new}", old=old)
    if new:
        return tr.gettext("Added: “{words}”").format(words=f"{context}{new}")
    return tr.gettext("Removed: “{words}”").format(words=old)


def _paragraphs(sentences: list[str], tr: Translator, *, removed: bool) -> str:
    quote = shorten(sentences[0], QUOTE)
    if removed:
        return tr.gettext("A paragraph removed: “{start}”").format(start=quote)
    return tr.gettext("A paragraph added: “{start}”").format(start=quote)


def _has_number_change(old: str, new: str) -> bool:
    return any(not r.same and _DIGITS.search(r.old + r.new) for r in spans(old, new))


def _is_number(text: str) -> bool:
    return _NUMERIC.fullmatch(text) is not None


def _label(before: str) -> str:
    """The words naming a number: the last three before it, without fillers, capitalised."""
    found = re.findall(r"[^\W\d_]+", before)[-4:]
    while found and found[-1].casefold() in _FILLER:
        found.pop()
    while found and found[0].casefold() in _FILLER:
        found.pop(0)
    label = " ".join(found[-3:])
    return label[:1].upper() + label[1:]


def _last_words(text: str, count: int) -> str:
    """The end of `text` from `count` words back ("…" when cut), with its trailing space."""
    parts = re.split(r"(?<=\s)", text)
    if len(parts) <= count:
        return text.lstrip()
    return "…" + "".join(parts[-count:])


def grounded(sentence: str, diff: TextDiff) -> bool:
    """Every number and name in the model's `sentence` is in the edit's added or removed text
    (or its titles): a model may rephrase, never add a fact."""
    return grounded_in(sentence, " ".join(_sources(diff)))


def grounded_in(sentence: str, source: str) -> bool:
    """Every number and name in `sentence` appears in `source` (numbers as digits, with either
    separator; names case-insensitively; the sentence's first word is grammar, not a name)."""
    numbers = {_plain(n) for n in _DIGITS.findall(source)}
    if any(_plain(n) not in numbers for n in _DIGITS.findall(sentence)):
        return False
    folded = source.casefold()
    names = _NAME.findall(sentence)[1:] if _starts_with_name(sentence) else _NAME.findall(sentence)
    return all(name.casefold() in folded for name in names)


def _starts_with_name(sentence: str) -> bool:
    """A sentence's first word is capitalised by grammar, not because it is a name."""
    first = _NAME.match(sentence.lstrip(" \"“'«¿¡"))
    return first is not None


def _sources(diff: TextDiff) -> Iterable[str]:
    yield from diff.added
    yield from diff.removed
    yield diff.old_title or ""
    yield diff.new_title or ""


def _plain(number: str) -> str:
    """ "1,299.00" and "1.299,00" are one number (English and Spanish separators)."""
    return re.sub(r"[.,]", "", number)
