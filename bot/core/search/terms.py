"""How text becomes search terms, the same for what is stored and for what is asked.

Why our own tokens rather than each database's: SQLite's FTS5 (`unicode61`) and PostgreSQL's
parser split text differently (PostgreSQL keeps `49.99` and `e-mail` whole, FTS5 does not), and
neither finds a Chinese or Japanese word inside a sentence, which has no spaces. So the index
is fed one plain form on both: text folded (NFKC, case, accents), cut into runs of letters and
digits, and every CJK run written as its overlapping character pairs plus its last character
(`价格上涨` → `价格 格上 上涨 涨`), as Lucene's CJK analyser does. A CJK word of two or more
characters is then a phrase of pairs, and a single character a prefix, on both databases.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from enum import Enum

# At most this many terms of one text are indexed: PostgreSQL keeps word positions only up to
# 16,383 (later words would lose phrase matching there), and a bounded index row on both.
MAX_TERMS = 16_000
MAX_TOKEN = 60  # longer runs (hashes, base64) are cut to this on both sides

# Scripts written without spaces between words (Han, kana, Hangul syllables and their
# extensions); Hangul does use spaces, but pairs cost little and find its compounds too.
_CJK = (
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x3134F),  # CJK extensions B–G
)


class Kind(Enum):
    WORD = "word"
    CJK = "cjk"


def is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _CJK)


@functools.lru_cache(maxsize=4096)
def fold(char: str) -> str:
    """One character as the index sees it: compatibility form, case folded, accents gone."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", char).casefold())
    return unicodedata.normalize("NFC", "".join(c for c in folded if not unicodedata.combining(c)))


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_ALNUM = re.compile(r"[^\W_]+")  # letters and digits (str.isalnum), in any script
_CJK_RUN = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK) + "]+")


def fold_text(text: str) -> str:
    """`fold` of every character; ASCII, most of most texts, only lower-cased (the same)."""
    return _NOT_ASCII.sub(lambda found: fold(found.group()), text).lower()


def runs(text: str) -> Iterator[tuple[Kind, str]]:
    """Folded runs of letters and digits, each split into CJK and other runs, gaps left out.
    Regular expressions over the folded text, not a loop over characters: a post's 1,500
    characters are indexed on every new version, and every stored post by the migration."""
    for run in _ALNUM.findall(fold_text(text)):
        if run.isascii():
            yield Kind.WORD, run
        else:
            yield from _split(run)


def _split(run: str) -> Iterator[tuple[Kind, str]]:
    """A run of letters and digits with some outside ASCII, as its CJK and other runs."""
    at = 0
    for cjk in _CJK_RUN.finditer(run):
        if cjk.start() > at:
            yield Kind.WORD, run[at : cjk.start()]
        yield Kind.CJK, cjk.group()
        at = cjk.end()
    if at < len(run):
        yield Kind.WORD, run[at:]


def pairs(run: str) -> list[str]:
    """A CJK run as its overlapping pairs and its last character."""
    return [run[i : i + 2] for i in range(len(run) - 1)] + [run[-1]]


def tokens(text: str) -> list[str]:
    """The terms of `text`, in order, as the index stores them. Every new or edited post's
    version is indexed during its poll: an ASCII text (most) is its words, with no per-word
    step but the length cap."""
    folded = fold_text(text)
    words = _ALNUM.findall(folded)
    if folded.isascii():
        return [word[:MAX_TOKEN] for word in words]
    out: list[str] = []
    for word in words:
        if word.isascii():
            out.append(word[:MAX_TOKEN])
            continue
        for run_kind, run in _split(word):
            if run_kind is Kind.CJK:
                out.extend(pairs(run))
            else:
                out.append(run[:MAX_TOKEN])
    return out


def index_text(title: str, text: str) -> str:
    """What a post's version gives the index: its title's and text's terms, bounded."""
    return " ".join((tokens(title) + tokens(text))[:MAX_TERMS])


def query_tokens(phrase: str, *, exact: bool = False) -> tuple[tuple[str, ...], bool]:
    """A searched word or phrase as index terms to find next to each other, and whether the
    last one is a prefix. A CJK run inside the phrase gives its pairs and last character, as
    the index has them; at the phrase's end only its pairs (the index's next term starts the
    text after it), and a single character there is a prefix of the pair it starts. An
    unquoted word is a prefix too (`price` finds `prices`); `exact` (a quoted phrase) is not."""
    found = list(runs(phrase))
    out: list[str] = []
    prefix = False
    for number, (run_kind, run) in enumerate(found, start=1):
        last = number == len(found)
        if run_kind is Kind.WORD:
            out.append(run[:MAX_TOKEN])
            prefix = last and not exact
        elif last and len(run) > 1:
            out.extend(pairs(run)[:-1])
            prefix = False
        else:
            out.extend(pairs(run))
            prefix = last
    return tuple(out), prefix
