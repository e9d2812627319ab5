"""An edit → the lines of its Telegram message under the shared header (parse mode HTML).

Split from `render` so the new-post message and the edit message change apart: `render` builds
the header every message shares (title, byline, categories), this module the edit's prefix and
body, and a `title` subscription's one-line notice. Everything from a feed is escaped by
`escape.esc`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from bot.core.lang import Translator
from bot.core.messages.escape import esc
from bot.core.messages.explain import explain
from bot.core.messages.worddiff import marked, pair
from bot.core.text import shorten
from bot.core.types import TextDiff

MARKED = 300  # a changed sentence, cut around its change on both sides alike
NOTICE = 120  # what changed, after a title subscription's one-line notice
_TAG = re.compile(r"<[^>]+>")


def edit_prefix(diff: TextDiff | None, tr: Translator) -> str:
    """The header's lead-in: a minor edit says so, any other edit is an update."""
    minor = diff is not None and diff.minor
    return tr.gettext("Minor edit: ") if minor else tr.gettext("Updated: ")


def edit_body(
    diff: TextDiff, budget: Callable[[int], int], tr: Translator, explained: str | None = None
) -> list[str]:
    """The lines under the header. A minor edit of one sentence is that sentence with its
    changed words marked (one line). Any other edit opens with one line saying what changed
    (`explained`: the model's, already checked; else the rule-based `explain`), then the
    changed sentences with their words marked, then whole sentences added and removed, each
    list within its `budget` (the caller's scale for a message that must shrink)."""
    changed, removed, added = pair(diff.removed, diff.added)
    retitled = diff.old_title is not None and diff.new_title is not None
    if diff.minor and len(changed) == 1 and not (removed or added or retitled):
        return [marked(*changed[0], budget(MARKED))]
    out: list[str] = []
    if changed or removed or added:
        out.append(f"<i>{esc(explained or explain(diff, tr))}</i>")
    if retitled:  # a new title alone says what changed
        out.append(
            tr.gettext("Title: <i>{old}</i> → {new}").format(
                old=esc(shorten(diff.old_title or "", budget(150))),
                new=esc(shorten(diff.new_title or "", budget(150))),
            )
        )
    lines = [marked(old, new, budget(MARKED)) for old, new in changed]
    out.extend(_listed(lines, "~", budget(1500), tr))
    if added:
        out.append(tr.gettext("<b>Added:</b>"))
        out.extend(_bullets(tuple(added), "+", budget(1500), budget(400), tr))
    if removed:
        out.append(tr.gettext("<b>Removed:</b>"))
        out.extend(_bullets(tuple(removed), "−", budget(400), budget(120), tr))
    if not out:
        out.append(tr.gettext("The text was reworded or reordered."))
    return out


def edit_notice(
    diff: TextDiff | None, title: str, tr: Translator, explained: str | None = None
) -> str:
    """A `title` subscription's edit: one line, its prefix, the linked `title` (already HTML)
    and what changed, as its new-post messages are one title each."""
    line = f"<b>{edit_prefix(diff, tr)}</b>{title}"
    if diff is None:
        return line
    what = explained or explain(diff, tr)
    return f"{line} — <i>{esc(shorten(what, NOTICE))}</i>"


def _listed(lines: list[str], mark: str, total: int, tr: Translator) -> list[str]:
    """Marked sentences (already HTML) as bullets, within `total` visible characters."""
    out: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        size = len(html.unescape(_TAG.sub("", line)))
        if used + size > total and out:
            rest = len(lines) - index
            out.append(
                tr.ngettext("<i>… and {n} more</i>", "<i>… and {n} more</i>", rest).format(n=rest)
            )
            break
        out.append(f"{mark} {line}")
        used += size
    return out


def _bullets(
    sentences: tuple[str, ...], mark: str, total: int, each: int, tr: Translator
) -> list[str]:
    out: list[str] = []
    used = 0
    for index, sentence in enumerate(sentences):
        line = shorten(sentence, each)
        if used + len(line) > total and out:
            rest = len(sentences) - index
            out.append(
                tr.ngettext("<i>… and {n} more</i>", "<i>… and {n} more</i>", rest).format(n=rest)
            )
            break
        out.append(f"{mark} {esc(line)}")
        used += len(line)
    return out
