"""An edit → the lines of its Telegram message under the shared header (parse mode HTML).

Split from `render` so the new-post message and the edit message change apart: `render` builds
the header every message shares (title, byline, categories), this module the edit's prefix and
body. Everything from a feed is escaped by `escape.esc`.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.lang import Translator
from bot.core.messages.escape import esc
from bot.core.text import shorten
from bot.core.types import TextDiff


def edit_prefix(diff: TextDiff | None, tr: Translator) -> str:
    """The header's lead-in: a minor edit says so, any other edit is an update."""
    minor = diff is not None and diff.minor
    return tr.gettext("Minor edit: ") if minor else tr.gettext("Updated: ")


def edit_body(diff: TextDiff, budget: Callable[[int], int], tr: Translator) -> list[str]:
    """The lines under the header: the title change, then added and removed sentences, each
    list within its `budget` (the caller's scale for a message that must shrink)."""
    out: list[str] = []
    if diff.old_title is not None and diff.new_title is not None:
        out.append(
            tr.gettext("Title: <i>{old}</i> → {new}").format(
                old=esc(shorten(diff.old_title, budget(150))),
                new=esc(shorten(diff.new_title, budget(150))),
            )
        )
    if diff.added:
        out.append(tr.gettext("<b>Added:</b>"))
        out.extend(_bullets(diff.added, "+", budget(1500), budget(400), tr))
    if diff.removed:
        out.append(tr.gettext("<b>Removed:</b>"))
        out.extend(_bullets(diff.removed, "−", budget(400), budget(120), tr))
    if not out:
        out.append(tr.gettext("The text was reworded or reordered."))
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
