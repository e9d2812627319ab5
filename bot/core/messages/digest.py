"""Digests: when a chat's period is over, and the one message (or few) that sums it up.

A digest lists each of the period's posts once, in order, as its linked title, its categories
and a one-line summary (an edited post is marked "Updated:" as its message would be), and is
split into several messages only when one would pass Telegram's 4096-unit limit. The flood
guard's list (too many new posts from one poll) groups linked titles by category instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta
from enum import StrEnum
from typing import NamedTuple
from zoneinfo import ZoneInfo

from bot.core.lang import ENGLISH, N_, Translator, UserError
from bot.core.messages.escape import esc, esc_attr
from bot.core.messages.header import post_name, shown_categories
from bot.core.messages.render import TELEGRAM_LIMIT, telegram_length
from bot.core.text import shorten
from bot.core.types import ParsedItem


class DigestMode(StrEnum):
    HOURLY = "hourly"
    DAILY = "daily"


HOURLY, DAILY = DigestMode.HOURLY, DigestMode.DAILY
DIGEST_SUMMARY_COLUMNS = 200


class DigestSchedule(NamedTuple):
    """When a subscription's digest goes out: every hour, or daily at a local time."""

    mode: DigestMode
    at: time | None = None

    @property
    def at_text(self) -> str | None:
        """`HH:MM` as stored and shown (None for hourly)."""
        return self.at.strftime("%H:%M") if self.at else None

    @classmethod
    def stored(cls, mode: str | None, at: str | None) -> DigestSchedule | None:
        """From the two stored columns; None when the subscription has no digest."""
        if mode is None:
            return None
        return cls(DigestMode(mode), time.fromisoformat(at) if at else None)


class DigestSyntaxError(UserError):
    """The /digest arguments are not understood."""


@dataclass(frozen=True, slots=True)
class DigestEntry:
    title: str
    link: str | None
    categories: tuple[str, ...]
    updated: bool = False  # only edited in this period: listed as "Updated: …"
    edited_since: bool = False  # new in this period and edited after: one line, a note under it
    item_id: int = 0
    summary: str = ""  # one line of the post's summary, Telegram HTML (core/messages/summary.py)
    also: tuple[str, ...] = ()  # other feeds that carried the same story (issue 46)


def merge_entries(entries: list[DigestEntry]) -> list[DigestEntry]:
    """One entry per item: a post that appeared and was then edited in the same period is
    listed once, with its edit noted under it, not twice."""
    merged: dict[int, DigestEntry] = {}
    for entry in entries:
        first = merged.get(entry.item_id) if entry.item_id else None
        if first is None:
            merged[entry.item_id or -len(merged) - 1] = entry
        elif entry.updated:
            merged[entry.item_id] = replace(
                entry, updated=first.updated, edited_since=not first.updated
            )
    return list(merged.values())


# The words for each period in every language the bot speaks, so `/digest FEED diario 9:10` and
# `/digest FEED 每天 9:10` mean `daily 09:10` (a chat reads its usage line in its own language
# and types what it reads). Why accept them all everywhere: a chat's language and its people's
# need not match, and none of these words means anything else here.
PERIOD_WORDS: dict[DigestMode, tuple[str, ...]] = {
    HOURLY: ("hourly", "cada hora", "por hora", "horario", "每小时", "每小時"),
    DAILY: ("daily", "diario", "diaria", "cada día", "cada dia", "每天", "每日"),
}
OFF_WORDS = ("off", "desactivar", "apagar", "关闭", "關閉")
_AT = re.compile(r"([0-9]{1,2})\s*[:：]\s*([0-9]{2})")
_WORDS_ERROR = N_("use hourly, daily HH:MM or off")


def is_off(words: list[str]) -> bool:
    """`/digest FEED off` in any of the bot's languages."""
    return " ".join(words).casefold().strip() in OFF_WORDS


def parse_schedule(words: list[str]) -> DigestSchedule:
    """`hourly` or `daily HH:MM` (`H:MM` too), in any of the bot's languages (`PERIOD_WORDS`)."""
    text = " ".join(words).casefold().strip()
    for mode, names in PERIOD_WORDS.items():
        for name in names:  # none is the start of another
            if text.startswith(name):
                return _schedule(mode, text[len(name) :].strip())
    raise DigestSyntaxError(_WORDS_ERROR)


def _schedule(mode: DigestMode, rest: str) -> DigestSchedule:
    if mode is HOURLY:
        if rest:
            raise DigestSyntaxError(_WORDS_ERROR)
        return DigestSchedule(HOURLY)
    found = _AT.fullmatch(rest)
    if found is None or int(found[1]) > 23 or int(found[2]) > 59:
        raise DigestSyntaxError(N_("the time is HH:MM, e.g. 08:30"))
    return DigestSchedule(DAILY, time(int(found[1]), int(found[2])))


def is_due(mode: str, at: time | None, zone: ZoneInfo, last: datetime, now: datetime) -> bool:
    """Hourly: an hour since the last digest. Daily: the chat's local HH:MM has passed since."""
    if mode == HOURLY:
        return now - last >= timedelta(hours=1)
    assert at is not None
    local_now = now.astimezone(zone)
    today = datetime.combine(local_now.date(), at, tzinfo=zone)
    latest = today if today <= local_now else today - timedelta(days=1)
    return last < latest <= now


def render_digest(
    feed_title: str, entries: list[DigestEntry], tr: Translator = ENGLISH
) -> list[str]:
    """One or more messages in `tr`'s language; each stays within Telegram's limit."""
    entries = merge_entries(entries)
    count = len(entries)
    head = tr.ngettext(
        "<b>Digest: {feed}</b> — {count} post", "<b>Digest: {feed}</b> — {count} posts", count
    ).format(feed=esc(shorten(feed_title, 100)), count=count)
    updated = tr.gettext("Updated: ")
    edited_since = tr.gettext("↳ <i>edited since it was posted</i>")
    units = []
    for entry in entries:
        lines = [f"• {_linked((updated if entry.updated else '') + entry.title, entry.link)}"]
        categories = shown_categories(entry.categories, entry.title, feed_title)
        if categories:
            shown = " · ".join(shorten(c, 60) for c in categories)
            lines.append(f"<i>{esc(shown)}</i>")
        if entry.summary:
            lines.append(entry.summary)
        if entry.edited_since:
            lines.append(edited_since)
        if entry.also:
            also = tr.gettext("Also in: {feeds}").format(feeds=", ".join(entry.also))
            lines.append(f"<i>{esc(also)}</i>")
        units.append("\n".join(lines))
    return split_messages(head, ["\n" + unit for unit in units], tr)


def one_line(summary: str, limit: int = DIGEST_SUMMARY_COLUMNS) -> str:
    """The first line of a summary (its first paragraph or list item), for a digest."""
    return summary.split("\n", 1)[0] if telegram_length(summary.split("\n", 1)[0]) <= limit else ""


def _linked(title: str, link: str | None) -> str:
    """The linked name: an anchor always has text (the address when there is no name)."""
    shown = esc(shorten(title, 200)) if title.strip() else ""
    if not link:
        return shown
    return f'<a href="{esc_attr(link)}">{shown or esc(shorten(link, 200))}</a>'


def render_new_list(
    feed_title: str, items: Sequence[ParsedItem], tr: Translator = ENGLISH
) -> list[str]:
    """The flood guard's message: one poll's many new posts as linked titles, like a digest."""
    other = tr.gettext("Other")
    groups: dict[str, list[DigestEntry]] = {}
    for item in items:
        entry = DigestEntry(post_name(item.title, item.text, item.link), item.link, item.categories)
        groups.setdefault(item.categories[0] if item.categories else other, []).append(entry)
    head = tr.ngettext(
        "<b>{feed}</b> — {count} new post at once",
        "<b>{feed}</b> — {count} new posts at once",
        len(items),
    ).format(feed=esc(shorten(feed_title, 100)), count=len(items))
    return _list_messages(head, groups, tr)


def _list_messages(head: str, groups: dict[str, list[DigestEntry]], tr: Translator) -> list[str]:
    """Linked titles grouped by category, split only past Telegram's limit."""
    updated = tr.gettext("Updated: ")
    lines: list[str] = []
    for category in sorted(groups, key=str.casefold):
        lines.append(f"\n<i>{esc(shorten(category, 60))}</i>")
        for entry in groups[category]:
            lines.append(
                f"• {_linked((updated if entry.updated else '') + entry.title, entry.link)}"
            )
    return split_messages(head, lines, tr)


def split_messages(head: str, lines: list[str], tr: Translator) -> list[str]:
    """The lines under `head`, in as few messages as Telegram's limit allows."""
    continued = tr.gettext("{head} (continued)").format(head=head)
    messages: list[str] = []
    current = head
    for line in lines:
        candidate = f"{current}\n{line}"
        if telegram_length(candidate) > TELEGRAM_LIMIT:
            messages.append(current)
            current = f"{continued}\n{line.lstrip(chr(10))}"
        else:
            current = candidate
    messages.append(current)
    return messages
