"""Posts and stored items as the edit judge sees them (tests/core)."""

from __future__ import annotations

from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.core.types import ParsedItem, StoredItem


def post(
    key: str,
    text: str,
    title: str = "",
    *,
    link: str | None = None,
    full: bool = True,
    excerpt_hash: str | None = None,
) -> ParsedItem:
    title = title or f"Post {key}"
    return ParsedItem(
        key,
        title,
        link,
        None,
        None,
        (),
        text,
        fingerprint(title, text),
        0,
        full=full,
        excerpt_hash=excerpt_hash,
    )


def was(item: ParsedItem, text: str, title: str | None = None, **extra: object) -> StoredItem:
    title = item.title if title is None else title
    return StoredItem(
        item.key,
        title,
        text,
        fingerprint(title, text),
        None,
        FINGERPRINT_VERSION,
        link=item.link,
        **extra,  # type: ignore[arg-type]
    )
