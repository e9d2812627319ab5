"""HTML → visible text, the fingerprint of that text, and sentence-level diffs.

The fingerprint is taken over what a reader sees, not over markup: WordPress moves attributes such
as `fetchpriority="high"` between posts on every publish, and image `srcset`s and tracking query
strings change without anyone editing a word. Those must never look like edits.

`FINGERPRINT_VERSION` names the algorithm and the html2text release that made a fingerprint:
stored items of another version are compared by their words (`same_words`), so a renderer
upgrade re-baselines them silently instead of announcing every post as edited.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Sequence

import html2text

# Bump `_ALGORITHM` whenever the visible text or the hash over it changes form (the golden
# fingerprints in tests/data fail until it is bumped and they are regenerated).
# 1: the first form; 2: a blank line kept before headings and lists, table cells kept apart;
# 3: nothing escaped for Markdown (html2text wrote "1\." and "\-" at the start of a line);
# 4: typography folded (curly quotes, apostrophes, dashes, ellipses as their ASCII forms).
_ALGORITHM = 4
FINGERPRINT_VERSION = f"{_ALGORITHM}/html2text-{'.'.join(map(str, html2text.__version__))}"

# Bidirectional overrides and isolates can make a title render backwards; zero-width characters
# hide text. Neither is ever meaningful in a notification.
_INVISIBLE = dict.fromkeys(
    [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200B, 0x200E, 0x200F, 0xFEFF]
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# Spaces of every width become one plain space. A translate and str.replace, not a regex: `re`
# tries a match at every character, which was a third of html_to_text's time on a long post.
_SPACES = str.maketrans(
    dict.fromkeys([0x09, 0xA0, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " ")
)
_BLANK_LINES = re.compile(r"\n\s*\n+")
# What html2text puts before headings, list items (its bullet is "*") and quotes.
_MARKDOWN_LINE_PREFIX = re.compile(r"^[ \t]*(?:#{1,6}\s+|\*\s+|>\s*)", re.MULTILINE)
# Latin sentences end at punctuation and a space; Chinese and Japanese ones at their full-width
# punctuation, with no space after it (after a closing quote or bracket that follows it); lines
# end at a newline. Each match ends where a sentence does. The pattern starts with one set, so
# `re` scans for those characters instead of trying each alternative at every position.
_CJK_END, _CLOSING = "。！？", "」』）〕】”’"
_SENTENCE_END = re.compile(
    rf"[.!?…{_CJK_END}\n](?:(?<=[.!?…])(?=\s)|(?<=[{_CJK_END}])[{_CLOSING}]?|(?<=\n))"
)
_NOT_A_WORD = re.compile(r"[\W_]+")


class _Converter(html2text.HTML2Text):
    """html2text, except that table cells stay apart (with `ignore_tables` it glues `A`,`B`
    into `AB`), and text is not escaped for Markdown: readers get plain text, where "1\\."
    and "\\-" are noise."""

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        super().handle_data(data, entity_char=True)  # the flag only turns the escaping off

    def handle_tag(self, tag: str, attrs: dict[str, str | None], start: bool) -> None:
        super().handle_tag(tag, attrs, start)
        if not start and tag in ("td", "th"):
            self.o(" ")

    def o(self, data: str, puredata: bool = False, force: bool | str = False) -> None:
        """Text is folded as html2text folds it (`re.sub(r"\\s+", " ")`, then a leading space
        becomes `self.space`), by `fold_spaces_like_re`: the regex tried a match at every
        character, a sixth of a long post's conversion. Only where html2text would fold and do
        nothing else first (not in `<pre>`, not quiet, no abbreviation being read)."""
        if puredata and not (
            self.pre or self.quiet or self.google_doc or self.abbr_data is not None
        ):
            data = fold_spaces_like_re(data)
            if data and data[0] == " ":
                self.space = True
                data = data[1:]
            puredata = False
        super().o(data, puredata, force)


def fold_spaces_like_re(text: str) -> str:
    """Every run of whitespace as one space, as `re.sub(r"\\s+", " ", text)` gives it, at a
    fifth of its cost: `str.split` and `\\s` know the same whitespace."""
    words = text.split()
    if not words:
        return " " if text else ""
    folded = " ".join(words)
    if text[0].isspace():
        folded = " " + folded
    if text[-1].isspace():
        folded += " "
    return folded


def clean_inline(value: str) -> str:
    """Strip control and bidi-override characters and fold whitespace to single spaces."""
    value = unicodedata.normalize("NFC", value).translate(_INVISIBLE)
    value = _CONTROL.sub(" ", value)
    return " ".join(value.split())


def configured(converter: html2text.HTML2Text) -> html2text.HTML2Text:
    """html2text as the visible text needs it: no wrapping, images, link targets, emphasis
    marks or table layout."""
    converter.body_width = 0
    converter.ignore_images = True
    converter.ignore_links = True
    converter.ignore_emphasis = True
    converter.ignore_tables = True
    converter.unicode_snob = True
    return converter


def html_to_text(html: str) -> str:
    """Render HTML as plain readable text: paragraphs kept, images and link targets dropped."""
    if not html.strip():
        return ""
    converter = configured(_Converter())
    try:
        markdown = converter.handle(html)
    except Exception:  # html2text can choke on pathological markup; fall back to tag stripping
        markdown = re.sub(r"<[^>]*>", " ", html)
    markdown = _MARKDOWN_LINE_PREFIX.sub("", markdown)
    return normalize_text(markdown)


def normalize_text(text: str) -> str:
    """Canonical visible text: NFC, no controls, single spaces, paragraphs split by one blank.

    ASCII text skips what cannot apply to it (NFC, the invisible characters) and has its
    controls replaced byte-wise: each per-character pass cost about 0.5 ms on a long post."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.isascii():
        text = text.encode("ascii").translate(_ASCII_CONTROLS).decode("ascii")
    else:
        text = unicodedata.normalize("NFC", text).translate(_INVISIBLE)
        text = _TEXT_CONTROL.sub(" ", text)
    text = "\n".join(line.strip() for line in fold_spaces(text).split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()


_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_ASCII_CONTROL_BYTES = bytes([*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
_ASCII_CONTROLS = bytes.maketrans(_ASCII_CONTROL_BYTES, b" " * len(_ASCII_CONTROL_BYTES))


def fold_spaces(text: str) -> str:
    """Every run of spaces, tabs and typographic spaces as one plain space (newlines stay)."""
    text = text.replace("\t", " ") if text.isascii() else text.translate(_SPACES)
    while "  " in text:
        text = text.replace("  ", " ")
    return text


# Typography a site's theme or editor swaps wholesale (straight ↔ curly quotes, hyphens ↔ dashes)
# without anyone editing a word: folded before hashing and comparing. Digits and letters stay.
_TYPOGRAPHY = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'", "`": "'", "´": "'",
        "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"', "«": '"', "»": '"',
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-",
        "…": "...", "\u00a0": " ", "\u202f": " ",
    }
)  # fmt: skip


# The table's ASCII entries (the backtick), for ASCII text: a translate looks up every
# character in the table, 0.8 ms on a 26 KB post, and most posts are fingerprinted whole.
_ASCII_TYPOGRAPHY = tuple((chr(k), str(v)) for k, v in _TYPOGRAPHY.items() if k < 128)


def typography(text: str) -> str:
    """`text` with its typography folded: "It’s — ‘done’…" and "It's - 'done'..." are one."""
    if text.isascii():
        for plain, folded in _ASCII_TYPOGRAPHY:
            text = text.replace(plain, folded)
    else:
        text = text.translate(_TYPOGRAPHY)
    return text.replace("--", "-").replace(" - ", "-")


def typography_of(parts: Sequence[str]) -> list[str]:
    """`typography` of each part, folded in one pass over them joined (a post's hundreds of
    sentences took a call each). The unit separator cannot meet a replaced pair, and visible
    text holds none (`normalize_text` drops control characters)."""
    if any(_SEPARATOR in part for part in parts):
        return [typography(part) for part in parts]
    return typography(_SEPARATOR.join(parts)).split(_SEPARATOR) if parts else []


_SEPARATOR = "\x1f"


def fingerprint(title: str, text: str) -> str:
    """A stable hash of what a reader sees; whitespace and typography do not count."""
    canonical = " ".join(typography(title).split()) + "\x1f" + " ".join(typography(text).split())
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def same_words(old: str, new: str) -> bool:
    """The same letters and digits in the same order, whatever the spacing, punctuation, case or
    width: how texts rendered by two fingerprint versions are compared (the old renderer glued
    table cells, so even word boundaries may differ)."""
    return letters(old) == letters(new)


# ASCII that is not a letter or a digit: what `[\W_]` matches below 128.
_ASCII_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


# ASCII that is not a word character (`\\w` is letters, digits and the underscore).
_ASCII_NOT_WORD = bytes.maketrans(
    bytes(c for c in range(128) if not (chr(c).isalnum() or c == 0x5F)),
    b" " * sum(1 for c in range(128) if not (chr(c).isalnum() or c == 0x5F)),
)
_WORD = re.compile(r"\w+")


def words_of(text: str) -> list[str]:
    """`re.findall(r"\\w+", text)`, with a byte-level path for ASCII text (a fifth of the
    cost: the regex tried a match at every character of a long post)."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_NOT_WORD).decode("ascii").split()
    words: list[str] = _WORD.findall(text)
    return words


def letters(text: str) -> str:
    """The text's letters and digits only, width and case folded (NFKC, casefold).

    ASCII text takes a byte-level path: the regex tried a match at every character, 2 ms on a
    26 KB post, and an edit's excerpt check reads two whole texts (20 times faster this way)."""
    if text.isascii():  # NFKC leaves ASCII as it is, and casefold is lower
        return text.lower().encode("ascii").translate(None, _ASCII_NOT_ALNUM).decode("ascii")
    return _NOT_A_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


def sentences(text: str) -> list[str]:
    """Split visible text into sentences (and paragraph or list-item lines)."""
    return list(_split(text))


@functools.lru_cache(maxsize=32)
def _split(text: str) -> tuple[str, ...]:
    """Cached: an edit's texts are split by its look and again by its weighing (a third of
    detecting an edit to a long post)."""
    parts, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        parts.append(text[start : end.end()].strip())
        start = end.end()
    parts.append(text[start:].strip())
    return tuple(part for part in parts if part)


def sentence_diff(old: str, new: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Sentences added in `new` and removed from `old`, each in reading order."""
    return diff_sentences(sentences(old), sentences(new))


def diff_sentences(
    old: Sequence[str], new: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`sentence_diff` of texts already split (splitting a long post twice was most of it)."""
    old_set, new_set = set(old), set(new)
    added = tuple(dict.fromkeys(s for s in new if s not in old_set))
    removed = tuple(dict.fromkeys(s for s in old if s not in new_set))
    return added, removed


def shorten(text: str, limit: int, ellipsis: str = "…") -> str:
    """Cut `text` to at most `limit` characters at a sentence, else a word boundary."""
    text = text.strip()
    if len(text) <= limit:
        return text
    window = text[: max(limit - len(ellipsis) - 1, 1)]
    sentence_cut = max(window.rfind(". "), window.rfind("! "), window.rfind("? "))
    if sentence_cut >= limit // 2:
        return window[: sentence_cut + 1] + " " + ellipsis
    word_cut = window.rfind(" ")
    if word_cut >= limit // 2:
        window = window[:word_cut]
    return window.rstrip(" ,;:") + ellipsis
