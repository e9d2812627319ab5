"""The pure core: data in, data out. No network, no database, no clock, no Telegram.

Everything here is deterministic so it can be tested exhaustively (hypothesis) and reused by the
CLI preview, the poller and the benchmarks alike. Families, one folder each:

- `feeds`: what a document says (parse RSS/Atom/JSON Feed, entries, safe XML, OPML, discovery)
- `detection`: what is news (identity of unseen entries, edits, their weight, churn)
- `polls`: what one poll means for a feed (the plan, the fetch decision, schedule, pace, alerts)
- `messages`: what a chat reads (blocks, boilerplate, summary, render, digest, escape, paging)
- `rules`: what a chat lets through and when (category/keyword filters, field rules, quiet hours)
- `search`: what a chat's /search asks and finds (terms, the query, its SQL syntax, the sentence)

and the primitives every family shares:

- `types`: the value types passed between stages (parse → detect → filter → render)
- `modes`: a subscription's modes (format, preview, edits, summary, sound), each declared once
- `text`: HTML → visible text, fingerprints, sentences
- `urls`: URL shapes and redaction
- `lang`: how the core speaks a chat's language (a `Translator` passed in)
"""
