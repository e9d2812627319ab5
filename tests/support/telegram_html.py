"""A strict checker for the Telegram HTML subset (what the Bot API accepts in parse mode HTML)."""

from __future__ import annotations

import html
import re

from bot.core.messages.render import telegram_length

ALLOWED = {
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "code",
    "pre",
    "a",
    "blockquote",
    "tg-spoiler",
}
_TAG = re.compile(r'<(/?)([a-z-]+)((?: [a-z-]+="[^"<>]*")*)>')
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")


def assert_valid_telegram_html(text: str) -> None:
    stack: list[str] = []
    position = 0
    for match in _TAG.finditer(text):
        _check_text(text[position : match.start()])
        closing, name, attrs = match.groups()
        assert name in ALLOWED, f"tag <{name}> is not accepted by Telegram"
        if closing:
            assert stack and stack[-1] == name, f"unbalanced </{name}> in {text!r}"
            stack.pop()
        else:
            if name == "a":
                assert re.fullmatch(r' href="[^"<>]*"', attrs), f"bad <a> attributes {attrs!r}"
            else:
                assert not attrs, f"unexpected attributes on <{name}>"
            stack.append(name)
        position = match.end()
    _check_text(text[position:])
    assert not stack, f"unclosed tags {stack}"
    assert telegram_length(text) <= 4096, "longer than Telegram's 4096 UTF-16 units"
    assert len(text.encode()) <= 32768, "raw text over Telegram's 32 KB"


def _check_text(chunk: str) -> None:
    assert "<" not in chunk and ">" not in chunk, f"unescaped angle bracket in {chunk!r}"
    leftover = _ENTITY.sub("", chunk)
    assert "&" not in leftover, f"unescaped & or unknown entity in {chunk!r}"


_ANY_TAG = re.compile(r"<[^>]+>")


def visible(rendered: str) -> str:
    """What a reader sees of valid Telegram HTML: its text, tags gone, entities read."""
    assert_valid_telegram_html(rendered)
    return html.unescape(_ANY_TAG.sub("", rendered))
