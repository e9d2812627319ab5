"""What Telegram's HTML parse mode refuses, for the fake Bot API ("can't parse entities").

Telegram accepts only its tags (`b strong i em u ins s strike del span.tg-spoiler tg-spoiler
a[href] tg-emoji code pre blockquote[expandable]`), every tag closed in order, `&` only in an
entity (`&lt; &gt; &amp; &quot;` or numeric) and `<` only in a tag. A fake that accepted broken
markup would hide the bug a real chat meets as a failed message.
"""

from __future__ import annotations

import re

_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
         "a", "tg-emoji", "code", "pre", "blockquote"}  # fmt: skip
_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*>"
)
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")


def entity_problem(text: str) -> str | None:
    """Telegram's reason to refuse `text` in parse mode HTML, or None when it is accepted."""
    stack: list[str] = []
    position = 0
    for match in _TAG.finditer(text):
        problem = _text_problem(text[position : match.start()], position)
        if problem:
            return problem
        closing, name, attrs = match.group(1), match.group(2).lower(), match.group(3)
        if name not in _TAGS:
            return f'Unsupported start tag "{name}" at byte offset {match.start()}'
        if closing:
            if not stack or stack[-1] != name:
                return f'Unmatched end tag at byte offset {match.start()}, expected "</{stack[-1] if stack else ""}>", found "</{name}>"'
            stack.pop()
        else:
            if name == "a" and "href" not in attrs:
                return f"Can't find end tag corresponding to start tag a at byte offset {match.start()}"
            stack.append(name)
        position = match.end()
    problem = _text_problem(text[position:], position)
    if problem:
        return problem
    if stack:
        return f'Can\'t find end tag corresponding to start tag "{stack[-1]}"'
    return None


def _text_problem(chunk: str, offset: int) -> str | None:
    if "<" in chunk:
        return f"Unsupported start tag at byte offset {offset + chunk.index('<')}"
    leftover = _ENTITY.sub("", chunk)
    if "&" in leftover:
        return f"Unsupported HTML entity at byte offset {offset}"
    return None
