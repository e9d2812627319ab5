"""What a chat's search asks and finds (`/search`): pure, shared by both databases.

- `terms`: how text becomes search terms (folded words, CJK as overlapping pairs), the same for
  what is stored and what is asked
- `query`: `/search WORDS [FEED] [since:30d]` parsed, with its bounds and the usage errors
- `match`: a parsed query as SQLite FTS5 and PostgreSQL tsquery syntax
- `snippet`: the sentence of a post (any version) that matched, and the answer a chat reads
"""
