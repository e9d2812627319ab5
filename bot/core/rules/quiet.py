"""Quiet hours (`/quiet 22:00-07:00`): a window in the chat's time zone in which messages are
held, not dropped, and delivered when it ends (as one digest per feed when there are more
than `DIGEST_AFTER`). Operator alerts and what a person asked for (a backlog) ignore it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.lang import N_, UserError

DIGEST_AFTER = 3  # more held messages than this come as a digest per feed
WRONG_SYNTAX = N_("Quiet hours are written HH:MM-HH:MM, e.g. 22:00-07:00.")
WRONG_TIME = N_("Times of day go from 00:00 to 23:59.")
NO_LENGTH = N_("Quiet hours need a start and an end that differ.")
_WINDOW = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*[-–—~]\s*(\d{1,2}):(\d{2})\s*$")


class QuietSyntaxError(UserError):
    """The window is not HH:MM-HH:MM with two different times of day."""


@dataclass(frozen=True, slots=True)
class QuietHours:
    start: time
    end: time

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"

    def holds(self, moment: datetime, zone: str) -> bool:
        """Whether `moment` falls in the window, read in the IANA `zone` (UTC if unknown).
        The start is inside, the end outside; a window may cross midnight."""
        try:
            local = moment.astimezone(ZoneInfo(zone)).time().replace(tzinfo=None)
        except (ValueError, ZoneInfoNotFoundError):
            local = moment.astimezone(ZoneInfo("UTC")).time().replace(tzinfo=None)
        if self.start < self.end:
            return self.start <= local < self.end
        return local >= self.start or local < self.end


def parse_quiet(text: str) -> QuietHours:
    """`22:00-07:00` (also with –, — or ~) → QuietHours; QuietSyntaxError otherwise."""
    match = _WINDOW.match(text)
    if match is None:
        raise QuietSyntaxError(WRONG_SYNTAX)
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59:
        raise QuietSyntaxError(WRONG_TIME)
    window = QuietHours(time(h1, m1), time(h2, m2))
    if window.start == window.end:
        raise QuietSyntaxError(NO_LENGTH)
    return window


def stored(value: str | None) -> QuietHours | None:
    """A chat's stored window (written by `str(QuietHours)`), None when off or unreadable."""
    if not value:
        return None
    try:
        return parse_quiet(value)
    except QuietSyntaxError:
        return None
