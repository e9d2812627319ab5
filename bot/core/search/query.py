"""`/search WORDS [FEED] [since:30d]` parsed: what to find, in which feed, since when.

Why bounded here: a chat's search runs on the shared database, so its size is capped before
any query is built (characters, words, the period), and a mistake is answered with a sentence
and the usage line rather than a query that finds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from bot.core.lang import N_, UserError
from bot.core.search.terms import query_tokens

MAX_QUERY_CHARS = 200
MAX_TERMS = 8
MAX_SINCE_DAYS = 3650

NO_WORDS = N_("Say what to search for.")
TOO_LONG = N_("A search is at most {limit} characters.")
TOO_MANY = N_("A search takes at most {limit} words or phrases.")
BAD_SINCE = N_(
    "<code>since:</code> takes days or weeks, e.g. <code>since:30d</code> or "
    "<code>since:2w</code> (at most {limit} days)."
)
TWO_FEEDS = N_("A search looks in one feed or in all of them, not in two.")

# A quoted phrase ("…", “…”, «…», 「…」; an unclosed quote runs to the end), or a word.
_PIECE = re.compile(r'["“«「『](.*?)(?:["”»」』]|$)|(\S+)')
_SINCE = re.compile(r"since:(\d{1,6})([dw]?)", re.IGNORECASE)
_FEED = re.compile(r"feed:(\S+)", re.IGNORECASE)


class QueryError(UserError):
    """A search that cannot run, said in a sentence (the handler adds the usage line)."""


@dataclass(frozen=True, slots=True)
class Term:
    """One searched word or phrase: as typed, and as index terms found next to each other."""

    typed: str
    tokens: tuple[str, ...]
    prefix: bool  # the last token starts a term (`pric` finds `prices`)
    exact: bool = False  # quoted


@dataclass(frozen=True, slots=True)
class SearchQuery:
    terms: tuple[Term, ...]
    feed: str | None = None  # one feed's name (lower case), or every feed of the chat
    since_days: int | None = None

    @property
    def shown(self) -> str:
        """The words as the chat typed them, for the answer's first line."""
        return " ".join(f'"{t.typed}"' if t.exact else t.typed for t in self.terms)


def _since(value: str) -> int:
    found = _SINCE.fullmatch(value)
    if found is None:
        raise QueryError(BAD_SINCE, limit=MAX_SINCE_DAYS)
    days = int(found.group(1)) * (7 if found.group(2).lower() == "w" else 1)
    if not 0 < days <= MAX_SINCE_DAYS:
        raise QueryError(BAD_SINCE, limit=MAX_SINCE_DAYS)
    return days


def parse(text: str, feeds: Collection[str] = ()) -> SearchQuery:
    """The query in `text`. A bare word naming one of `feeds` (the chat's feed names) is the
    feed to search, unless it is the only word (then it is searched for); `feed:NAME` names
    one outright, and a quoted name is always a word."""
    text = text.strip()
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(TOO_LONG, limit=MAX_QUERY_CHARS)
    since: int | None = None
    named: list[str] = []
    words: list[tuple[str, bool]] = []
    for found in _PIECE.finditer(text):
        phrase, word = found.group(1), found.group(2)
        if word is None:
            words.append((phrase.strip(), True))
        elif word.lower().startswith("since:"):
            since = _since(word)
        elif _FEED.fullmatch(word):
            named.append(word[5:].lower())
        else:
            words.append((word, False))
    known = {name.lower() for name in feeds}
    bare = [w for w, exact in words if not exact and w.lower() in known]
    if bare and len(words) > 1 and not named:
        named.append(bare[-1].lower())
        words.remove((bare[-1], False))
    if len(named) > 1:
        raise QueryError(TWO_FEEDS)
    terms: dict[tuple[tuple[str, ...], bool], Term] = {}
    for typed, exact in words:
        tokens, prefix = query_tokens(typed, exact=exact)
        if tokens:
            terms.setdefault((tokens, prefix), Term(typed, tokens, prefix, exact))
    if not terms:
        raise QueryError(NO_WORDS)
    if len(terms) > MAX_TERMS:
        raise QueryError(TOO_MANY, limit=MAX_TERMS)
    return SearchQuery(tuple(terms.values()), named[0] if named else None, since)
