"""What a feed document says, in any format, with hostile input refused early.

- `parse`: feed bytes + headers → `ParsedFeed` (feedparser, only ever given a byte stream)
- `split`: a document cut into its items cheaply (expat), each item's bytes hashed
- `changed`: feedparser over only the items whose bytes changed; the rest are their stored rows
- `jsonfeed`: JSON Feed 1.0/1.1 → the same entries
- `entries`: what every format's entries come down to: one key, bounded fields
- `images`: which picture is the post's own (never an avatar, pixel, button or thumbnail)
- `xmlsafe`: XML parsers that never expand a document's own entity declarations
- `discover`: a web page → the feeds it links to
- `opml`: OPML subscription lists, read and written
"""
