"""A parsed search in each database's own syntax: SQLite FTS5 `MATCH` and PostgreSQL
`to_tsquery('simple', …)`.

Why built here and not from what was typed: every token comes from `terms` (letters and digits
only), so nothing a chat types reaches either syntax as an operator; each term is a phrase of
tokens next to each other, its last a prefix where `terms` says so, and every term must match.
"""

from __future__ import annotations

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
