"""Runs as Telegram HTML: the one place a summary's text, styles and links become markup.

Every piece of text is escaped here, and only absolute http(s) links (resolved against the
post's address) become anchors; bold and italic longer than `STYLE_CHARS` are shown plain (a
whole bold paragraph reads as shouting), and inline code holds no other entity, as Telegram
requires."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.messages.blocks import Run, head_runs
from bot.core.messages.escape import esc, esc_attr
from bot.core.messages.links import resolved
from bot.core.messages.sentences import columns

STYLE_CHARS = 80  # bold or italic longer than this is shown plain (a whole bold paragraph)


def cut_at_word(runs: Sequence[Run], limit: int) -> tuple[Run, ...]:
    """The runs cut to `limit` columns at a word (past half their length), and "…"."""
    text = "".join(run.text for run in runs)
    size = 0
    for index, ch in enumerate(text):
        size += columns(ch)
        if size > limit - 1:
            text = text[:index]
            break
    space = text.rfind(" ")
    if space > len(text) // 2:
        text = text[:space]
    kept = head_runs(runs, len(text.rstrip(" ,;:—-")))
    return (*kept, Run("…"))


def render_runs(runs: Sequence[Run], base: str = "") -> str:
    """Runs as Telegram HTML: escaped text, short bold and italic, links that are absolute
    http(s) (one anchor per stretch of the same link)."""
    out: list[str] = []
    index = 0
    while index < len(runs):
        link = resolved(runs[index].href, base)
        end = index + 1
        while end < len(runs) and runs[end].href == runs[index].href:
            end += 1
        inner = "".join(_styled(run) for run in runs[index:end])
        text = "".join(run.text for run in runs[index:end])
        if link is not None and text.strip():
            inner = f'<a href="{esc_attr(link)}">{inner}</a>'
        out.append(inner)
        index = end
    return "".join(out)


def _styled(run: Run) -> str:
    shown = esc(run.text)
    if run.code and run.text.strip() and not run.href:  # Telegram's code holds no other entity
        return f"<code>{shown}</code>"
    if len(run.text) <= STYLE_CHARS and run.text.strip():
        if run.italic:
            shown = f"<i>{shown}</i>"
        if run.bold:
            shown = f"<b>{shown}</b>"
    return shown
