"""Split a long HTML reply into messages Telegram accepts.

Replies such as /feeds with a hundred feeds or /filter with fifty long names outgrow Telegram's
4096-unit limit, and Telegram then refuses the whole reply. Replies are built line by line with
every tag closed on its line, so cutting between lines keeps each part valid HTML; a single line
too long on its own is sent as escaped plain text cut to fit.
"""

from __future__ import annotations

import html

from bot.core.messages.render import TELEGRAM_LIMIT, telegram_length, to_plain


def split_message(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Consecutive parts of `text`, each within `limit` visible UTF-16 units; none empty."""
    if telegram_length(text) <= limit:
        return [text]
    parts: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.split("\n"):
        for piece in _fit_line(line, limit):
            cost = telegram_length(piece) + (1 if current else 0)
            if current and size + cost > limit:
                parts.append("\n".join(current))
                current, size = [], 0
                cost = telegram_length(piece)
            current.append(piece)
            size += cost
    if current and any(part.strip() for part in current):
        parts.append("\n".join(current))
    return [part for part in parts if part.strip()]


def _fit_line(line: str, limit: int) -> list[str]:
    if telegram_length(line) <= limit:
        return [line]
    plain = to_plain(line)
    pieces = []
    while plain:
        cut = _utf16_prefix(plain, limit)
        pieces.append(html.escape(plain[:cut], quote=False))
        plain = plain[cut:]
    return pieces


def _utf16_prefix(text: str, limit: int) -> int:
    """How many characters of `text` fit in `limit` UTF-16 units (astral characters count 2)."""
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > limit:
            return index
    return len(text)
