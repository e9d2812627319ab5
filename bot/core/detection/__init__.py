"""What is news: a never-seen entry's identity, an edit a reader would care about, its weight.

- `detect`: compare a parsed feed with what is stored (sequencing the rules below)
- `identity`: which unseen entry is a stored post under a new key, history, or news
- `edits`: which changed items are edits, judged across one poll
- `hosts`: a site's move of host read into the old text (URLs that only followed the move)
- `weight`: how big an edit is (minor or substantive)
- `withdrawal`: a post withdrawn by its site, told from a feed's window moving past it
- `churn`: a feed that gives its posts new identities on every poll, or re-issues them
"""
