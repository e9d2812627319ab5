"""Category and keyword filters: the `/filter` and `/keywords` syntax and matching an item.

Syntax: comma-separated names, so a category may contain spaces ("Press Release"); a leading `-`
excludes. Chinese and Japanese input separates with `，` or `、` as well. Matching is
case-insensitive and whitespace-trimmed. An item passes when (there are no includes, or it has at
least one included category) and it has none of the excluded ones.

Keywords match whole words, except Chinese and Japanese ones: those scripts put no spaces between
words, so `模型` is looked for anywhere in `英伟达发布新模型`.

Rules read at most the first `MAX_EXAMINED` characters of each text, folded once (`haystack`,
cached per text): twenty `text:` rules on a 100,000-character post used to fold it twenty times,
and a filter test of 20 such posts held the bot for 4-6 s.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from bot.core.lang import ENGLISH, N_, Translator, UserError
from bot.core.modes import Edits
from bot.core.text import clean_inline
from bot.core.types import CategoryFilter, Change, ChangeKind, KeywordFilter, Reader

MAX_EXAMINED = 20_000  # characters of a text that keywords and rules read (its beginning)
_MAX_FOLDED = 2 * MAX_EXAMINED  # folding can lengthen a text (NFKD: "ﬃ" is "ffi")
_WORD = re.compile(r"\w+")
_SEPARATORS = re.compile("[,，、]")
_KEYWORD_PART = re.compile(r'\s*(-?)\s*(?:"([^"]*)"|([^,，、"]+))\s*(?:[,，、]|$)')
# Han, kana and the CJK punctuation/compatibility blocks: scripts written without spaces.
_UNSPACED = re.compile(
    "[\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0003134f]"
)
_UNSPACED_RUN = re.compile(f"({_UNSPACED.pattern}+)")


class FilterSyntaxError(UserError):
    """The user's filter text cannot be understood; the message says why."""


def parse_filter(text: str, *, max_categories: int = 50) -> CategoryFilter:
    include: dict[str, str] = {}
    exclude: dict[str, str] = {}
    for raw in _SEPARATORS.split(text):
        part = clean_inline(raw)
        if not part:
            continue
        target = include
        if part.startswith("-"):
            part = clean_inline(part[1:])
            target = exclude
            if not part:
                raise FilterSyntaxError(N_("a lone '-' needs a category name after it"))
        if len(part) > 100:
            raise FilterSyntaxError(N_("category names are at most 100 characters"))
        target.setdefault(part.casefold(), part)
    if not include and not exclude:
        raise FilterSyntaxError(N_("give at least one category"))
    if len(include) + len(exclude) > max_categories:
        raise FilterSyntaxError(N_("at most {count} categories per filter"), count=max_categories)
    return CategoryFilter(include=tuple(include.values()), exclude=tuple(exclude.values()))


def matches(flt: CategoryFilter, categories: Iterable[str]) -> bool:
    have = {clean_inline(c).casefold() for c in categories}
    if any(name.casefold() in have for name in flt.exclude):
        return False
    return not flt.include or any(name.casefold() in have for name in flt.include)


def describe(flt: CategoryFilter, tr: Translator = ENGLISH) -> str:
    """The filter written back in the syntax the user types."""
    if flt.is_empty:
        return tr.gettext("all posts")
    return ", ".join([*flt.include, *(f"-{name}" for name in flt.exclude)])


def unknown_categories(flt: CategoryFilter, known: Iterable[str]) -> list[str]:
    """Names in the filter never seen on the feed (accepted, but worth a note)."""
    seen = {name.casefold() for name in known}
    return [name for name in (*flt.include, *flt.exclude) if name.casefold() not in seen]


def parse_keywords(text: str, *, max_keywords: int = 50) -> KeywordFilter:
    """`word, "two words", -word`: literal words only (no patterns, so nothing to backtrack)."""
    include: dict[str, str] = {}
    exclude: dict[str, str] = {}
    position = 0
    text = text.strip()
    while position < len(text):
        match = _KEYWORD_PART.match(text, position)
        if match is None or match.end() == position:
            raise FilterSyntaxError(N_('use words or "quoted phrases" separated by commas'))
        position = match.end()
        negative, quoted, bare = match.groups()
        words = fold_words(quoted if quoted is not None else bare)
        if not words:
            raise FilterSyntaxError(N_("a keyword needs at least one letter or digit"))
        phrase = " ".join(words)
        if len(phrase) > 100:
            raise FilterSyntaxError(N_("keywords are at most 100 characters"))
        shown = clean_inline(quoted if quoted is not None else bare)
        (exclude if negative else include).setdefault(phrase, shown)
    if not include and not exclude:
        raise FilterSyntaxError(N_("give at least one keyword"))
    if len(include) + len(exclude) > max_keywords:
        raise FilterSyntaxError(N_("at most {count} keywords"), count=max_keywords)
    return KeywordFilter(include=tuple(include.values()), exclude=tuple(exclude.values()))


def fold_words(text: str) -> list[str]:
    """Words for matching: accents removed, case folded ("Café" and "cafe" are one word)."""
    if text.isascii():  # nothing to decompose, no accents, no unspaced scripts
        return _WORD.findall(text.casefold())
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    spaced = _UNSPACED_RUN.sub(r" \1 ", bare)  # "新GPU" holds the word "gpu"
    return _WORD.findall(spaced.casefold())


@lru_cache(maxsize=128)
def haystack(text: str) -> str:
    """The folded words of `text`'s first `MAX_EXAMINED` characters as " word word ". Why:
    every keyword, every `text:` rule and every chat asks about the same post, so its text is
    folded once (cached per text) and a long post costs what its beginning costs."""
    folded = " ".join(fold_words(text[:MAX_EXAMINED]))
    if len(folded) > _MAX_FOLDED:
        folded = folded[:_MAX_FOLDED].rsplit(" ", 1)[0]
    return f" {folded} "


@lru_cache(maxsize=1024)
def _needle(phrase: str) -> str:
    return " ".join(fold_words(phrase))


def keywords_match(flt: KeywordFilter, *texts: str) -> bool:
    """Whether the texts (a title, a body, a translation: each searched on its own, a phrase
    never spans two) pass the keywords."""
    if flt.is_empty:
        return True
    stacks = [haystack(text) for text in texts]

    def found(phrase: str) -> bool:
        needle = _needle(phrase)
        if not _UNSPACED.search(needle):
            needle = f" {needle} "
        return any(needle in stack for stack in stacks)

    if any(found(phrase) for phrase in flt.exclude):
        return False
    return not flt.include or any(found(phrase) for phrase in flt.include)


def describe_keywords(flt: KeywordFilter, tr: Translator = ENGLISH) -> str:
    if flt.is_empty:
        return tr.gettext("none")

    def show(word: str) -> str:
        return f'"{word}"' if " " in word else word

    return ", ".join([*map(show, flt.include), *(f"-{show(w)}" for w in flt.exclude)])


def wants(audience: Reader, change: Change, translated: str = "") -> bool:
    """Categories AND keywords AND (a new post, or edits are wanted). `translated`: the post's
    title and summary in the chat's language (a chat that translates), searched too."""
    if change.kind is ChangeKind.EDITED and audience.edits is Edits.OFF:
        return False
    if change.diff is not None and change.diff.minor and audience.edits is Edits.SUBSTANTIVE:
        return False  # /edits FEED substantive
    item = change.item
    return matches(audience.categories, item.categories) and keywords_match(
        audience.keywords, item.title, item.text, translated
    )
