"""Host moves: a site that moved (`http://example.com` → `https://blog.example.com`) shows its
old addresses in the text of posts stored before the move. Read with the new origin, the old
text is compared with the new one as usual, so URL text that only followed the move is no edit
(round 3: an item's own link; round 4: a move seen across most of the poll, scheme included).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.core.types import ParsedItem, StoredItem

Move = tuple[str, str, str, str]  # (old scheme, old host, new scheme, new host)


def moved(old_link: str | None, new_link: str | None) -> Move | None:
    """The origin an item's link moved from and to (a domain move, http → https), if it did."""
    if not old_link or not new_link:
        return None
    old, new = urlsplit(old_link), urlsplit(new_link)
    old_host, new_host = old.hostname or "", new.hostname or ""
    if not old_host or not new_host or (old.scheme, old_host) == (new.scheme, new_host):
        return None
    return (old.scheme, old_host, new.scheme, new_host)


def site_moves(pairs: Sequence[tuple[StoredItem, ParsedItem]], threshold: int) -> list[Move]:
    """Origin moves seen in at least `threshold` of the poll's known items (most of them: see
    `edits.share_threshold`): the whole site moved, so its old URLs in any post's text read as
    the new ones, even in a post whose own link points elsewhere."""
    seen = Counter(m for old, new in pairs if (m := moved(old.link, new.link)) is not None)
    return [move for move, n in seen.items() if n >= threshold]


@dataclass(frozen=True, slots=True)
class _Rewrite:
    """An old-origin match read as the new origin (with its scheme) or the new host (bare)."""

    origin: str
    host: str

    def __call__(self, match: re.Match[str]) -> str:
        return self.origin if match.group(1) else self.host


def rehosted(text: str, moves: Sequence[Move]) -> str:
    """The old text with each moved origin read as its new one: `http://example.com/x` as
    `https://blog.example.com/x`, and the bare host `example.com` as `blog.example.com`
    (a domain move): URLs of the old site in the visible text are then no edit. Only whole
    hosts are rewritten (`example.com.au`, `myexample.com` stay)."""
    for old_scheme, old_host, new_scheme, new_host in moves:
        if old_host not in text.lower():
            continue
        pattern = re.compile(
            rf"(?<![\w.-])(?:({re.escape(old_scheme)})://)?(?:www\.)?{re.escape(old_host)}"
            r"(?![\w-]|\.\w)",
            re.IGNORECASE,
        )
        text = pattern.sub(_Rewrite(f"{new_scheme}://{new_host}", new_host), text)
    return text
