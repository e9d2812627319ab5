"""Notices about one post a chat was told about: withdrawn from its site, or back; the line
naming the other feeds that carried its story; and the label of the button that follows a
post's changes."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.lang import N_, Translator
from bot.core.messages.escape import esc, esc_attr
from bot.core.text import shorten

FOLLOW_LABEL = N_("🔔 Follow changes")
_WITHDRAWN = N_("Withdrawn: this post is no longer on the site")
_BACK = N_("Back: this post is on the site again")
TITLE_COLUMNS = 200


def render_notice(withdrawn: bool, title: str, link: str | None, tr: Translator) -> str:
    """The reply to a post's message: withdrawn (or back), then the post's title (its link)."""
    head = tr.gettext(_WITHDRAWN if withdrawn else _BACK)
    shown = esc(shorten(title, TITLE_COLUMNS)) or esc(link or "")
    if link and link.startswith(("http://", "https://")):
        shown = f'<a href="{esc_attr(link)}">{shown}</a>'
    return f"<b>{esc(head)}</b>\n{shown}"


_ALSO = N_("Also in: {feeds}")


def with_also(text: str, feeds: Sequence[str], tr: Translator) -> str:
    """A post's message naming the other feeds that carried the same story (issue 46)."""
    line = tr.gettext(_ALSO).format(feeds=", ".join(feeds))
    return f"{text}\n\n<i>{esc(line)}</i>"
