"""A parsed search in each database's own syntax: SQLite FTS5 `MATCH` and PostgreSQL
`to_tsquery('simple', …)`.

Why built here and not from what was typed: every token comes from `terms` (letters and digits
only), so nothing a chat types reaches either syntax as an operator; each term is a phrase of
tokens next to each other, its last a prefix where `terms` says so, and every term must match.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.core.search.query import SearchQuery, Term


def _fts5_term(term: Term) -> str:
    phrase = '"' + " ".join(term.tokens) + '"'
    return phrase + " *" if term.prefix else phrase


def fts5(query: SearchQuery) -> str:
    """`"registration closes" "pric" *`: every phrase, the prefix ones with `*`."""
    return " AND ".join(_fts5_term(term) for term in query.terms)


def _ts_term(term: Term) -> str:
    lexemes = [f"'{token}'" for token in term.tokens]
    if term.prefix:
        lexemes[-1] += ":*"
    joined = " <-> ".join(lexemes)
    return f"({joined})" if len(lexemes) > 1 else joined


def tsquery(query: SearchQuery) -> str:
    """`('registration' <-> 'closes') & 'pric':*` for `to_tsquery('simple', …)`."""
    return " & ".join(_ts_term(term) for term in query.terms)


# SQLite's FTS5 rows are numbered by the post's date, so FTS5 itself hands out the matches
# newest first and a search stops at the first posts it needs (a word in half the posts was
# 50-100 ms to sort at 100,000 posts; see docs/design.md). The low 30 bits keep the version's
# id apart: two versions collide only with the same second and ids 2^30 apart.
_ID_BITS = 30
_ID_MASK = (1 << _ID_BITS) - 1
_SECONDS = 1 << 32  # dates are clamped to ±136 years around 1970, the rest of the 63 bits


def fts5_rowid(posted: datetime, version_id: int) -> int:
    """The FTS5 row of a version: its post's date in seconds, then its id's low bits."""
    seconds = max(-_SECONDS + 1, min(_SECONDS - 1, int(posted.timestamp())))
    return (seconds << _ID_BITS) | (version_id & _ID_MASK)


def fts5_since(since: datetime) -> int:
    """The first FTS5 row of posts dated `since` or later."""
    return fts5_rowid(since, 0)


def fts5_in_feeds(query: SearchQuery, feeds: Sequence[int]) -> str:
    """The query on the `terms` column, within the given feeds (the `feed` column)."""
    chosen = " OR ".join(f'"{int(feed)}"' for feed in feeds)
    return f"{{terms}} : ({fts5(query)}) AND {{feed}} : ({chosen})"
