"""The one escape for everything that goes into Telegram HTML (messages, summaries, replies).

Lone surrogates cannot be sent as UTF-8: a JSON feed's `"\\ud800"` or a loose parser's
`&#55296;` reaches the text as one, and a message holding it failed to encode at delivery. They
become U+FFFD here, with the escaping.
"""

from __future__ import annotations

import html
import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(value: object) -> str:
    """Escape text content: `&`, `<`, `>` (quotes are harmless outside attributes)."""
    return html.escape(_SURROGATE.sub("\ufffd", str(value)), quote=False)


def esc_attr(value: str) -> str:
    """Escape an attribute value: quotes too."""
    return html.escape(_SURROGATE.sub("\ufffd", value))
