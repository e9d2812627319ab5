"""The one codec for inline-button data: `unsub:ID`, `edits:ID`, `preview:ID`, `backlog:ID:N`,
`lang:CODE`.

Button data comes back from the client and can be forged (`"²"` passes `str.isdigit`; an id
above 2^63 overflows a database integer), so it is parsed strictly against one pattern and
anything else is an expired button. Every encoding stays far below Telegram's 64-byte limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FEED_ACTIONS = ("unsub", "edits", "preview")
_ID = r"([1-9][0-9]{0,17})"  # at most 18 digits: always below 2^63
_PATTERN = re.compile(
    rf"(?:(unsub|edits|preview):{_ID}|backlog:{_ID}:([0-9])|lang:([a-z]{{2}}))", re.ASCII
)


@dataclass(frozen=True, slots=True)
class Button:
    action: str  # unsub | edits | preview | backlog | lang
    feed_id: int = 0
    count: int = 0
    language: str = ""


def encode(button: Button) -> str:
    if button.action == "lang":
        return f"lang:{button.language}"
    if button.action == "backlog":
        return f"backlog:{button.feed_id}:{button.count}"
    return f"{button.action}:{button.feed_id}"


def decode(data: str | None) -> Button | None:
    """The button, or None for anything this bot did not write."""
    match = _PATTERN.fullmatch(data or "")
    if match is None:
        return None
    action, feed_id, backlog_id, count, language = match.groups()
    if action is not None:
        return Button(action, feed_id=int(feed_id))
    if backlog_id is not None:
        return Button("backlog", feed_id=int(backlog_id), count=int(count))
    return Button("lang", language=language)
