"""Who receives each change of a poll, decided once, before anything is fetched for it.

Every chat's rules (categories, keywords, field rules, edits) are checked once per change,
and the per-chat flood rule applied: a chat that would get more than `max_new` new posts
from one poll gets one list of them instead. What comes out says which new posts some chat
receives as a message of its own: only those get their page read (full text) and the
operator's model asked, for exactly the chats that get them. Pure: the poll service runs
it outside the write transaction, so no rule check ever holds the database's write lock.

One thing waits for the model: a chat whose keywords also search the model's text (it
translates or reads model summaries) cannot be told yes or no before that text exists. Its
posts are decided on everything else first (an upper bound, enough to know what to fetch),
and on the keywords when the texts are in (`Fanout.settled`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from bot.core.lang import DEFAULT_LANGUAGE
from bot.core.modes import Format, SummaryMode
from bot.core.rules import quiet
from bot.core.rules.fields import wants
from bot.core.rules.filters import keywords_match
from bot.core.types import Change, ChangeKind, KeywordFilter, Reader

NO_KEYWORDS = KeywordFilter()


@dataclass(frozen=True, slots=True)
class Route:
    """One chat's part of a poll: the changes it gets one message each (in reading order),
    and the new posts it gets in one list (the flood rule)."""

    reader: Reader  # as the fan-out treats it now: in its quiet hours, held like a digest's
    changes: tuple[Change, ...] = ()
    listed: tuple[Change, ...] = ()
    waiting: bool = False  # its keywords still wait for the model's texts

    @property
    def new(self) -> tuple[Change, ...]:
        """The new posts it gets one message each."""
        return tuple(c for c in self.changes if c.kind is ChangeKind.NEW)


@dataclass(frozen=True, slots=True)
class Fanout:
    routes: tuple[Route, ...]
    max_new: int
    # A feed nobody follows yet: its new posts (unless a flood), kept with their pages for
    # the backlog its first chat may ask for, as an operator's preview shows them.
    unfollowed: tuple[str, ...] = ()
    now: datetime | None = None  # the poll's time: a post of the last day shows its hour

    def pages(self) -> list[str]:
        """New posts some chat sees summarised (a message of its own, or a digest's line,
        each within the flood rule): the pages full text reads, in reading order."""
        seen = (c for r in self.routes if len(r.new) <= self.max_new for c in r.new)
        return [*self.unfollowed, *_keys(seen)]

    def asks(self) -> dict[str, tuple[Reader, ...]]:
        """New posts some chat gets as a message of its own now, with the chats that may
        show a model's text (`/summary FEED model`, `/translate on`): what the model is asked."""
        found: dict[str, list[Reader]] = {}
        for route in self.routes:
            if route.reader.digest or not modelled(route.reader):
                continue
            for change in route.new:
                found.setdefault(change.item.key, []).append(route.reader)
        return {k: tuple(v) for k, v in found.items()}

    def full_reads(self) -> list[str]:
        """New posts some chat gets whole (`/format FEED full`) as a message of its own, now
        or when its quiet hours end: the posts a Telegraph page may carry (issue 47). A
        digest lists a post as one line, with no page."""
        found = (
            c
            for r in self.routes
            if r.reader.message_format is Format.FULL and (not r.reader.digest or r.reader.quiet)
            for c in r.new
        )
        return _keys(found)

    def explains(self) -> dict[str, set[str]]:
        """Substantive edits some chat gets as a message now, with those chats' languages:
        what the model is asked to explain, once per edit and language."""
        found: dict[str, set[str]] = {}
        for route in self.routes:
            if route.reader.digest:
                continue
            for change in route.changes:
                if change.kind is ChangeKind.EDITED and change.diff and not change.diff.minor:
                    language = route.reader.language or DEFAULT_LANGUAGE
                    found.setdefault(change.item.key, set()).add(language)
        return found

    def settled(self, searched: Callable[[Reader, Change], str]) -> Fanout:
        """The routes once the model's texts are in: a waiting chat's keywords are checked
        on the post and on what the model wrote for it (`searched`), then the flood rule."""
        if not any(r.waiting for r in self.routes):
            return self
        routes = []
        for route in self.routes:
            if not route.waiting:
                routes.append(route)
                continue
            reader = route.reader
            passed = [
                c
                for c in _in_order(route)
                if keywords_match(reader.keywords, c.item.title, c.item.text, searched(reader, c))
            ]
            routes.append(_flooded(reader, passed, self.max_new))
        return replace(self, routes=tuple(routes))


def route(
    changes: Sequence[Change],
    audience: Iterable[Reader],
    now: datetime | None,
    max_new: int,
    told: Collection[tuple[int, str]] | None = None,
) -> Fanout:
    """Each chat's part of these changes (rules checked once per chat and change). `told`:
    the (chat, post key) pairs of chats told about each edited post; None: every chat was."""
    seats: list[tuple[Reader, Reader, bool, list[Change]]] = []  # as routed, as judged
    for reader in audience:
        reader = _quieted(reader, now)
        waiting = modelled(reader) and not reader.keywords.is_empty
        judged = replace(reader, keywords=NO_KEYWORDS) if waiting else reader
        seats.append((reader, judged, waiting, []))
    for change in changes:  # one post at a time, every chat: its folded text is reused
        for _, judged, _, kept in seats:
            if wants(judged, change) and saw(judged, change, told):
                kept.append(change)
    routes = [
        replace(_flooded(reader, kept, max_new), waiting=waiting)
        for reader, _, waiting, kept in seats
    ]
    if routes:
        return Fanout(tuple(routes), max_new, now=now)
    new = _keys(c for c in changes if c.kind is ChangeKind.NEW)
    return Fanout((), max_new, tuple(new) if len(new) <= max_new else (), now=now)


def saw(reader: Reader, change: Change, told: Collection[tuple[int, str]] | None) -> bool:
    """An edit goes only to a chat told about its post. Why: its difference is against a
    text the chat was shown; a chat that subscribed after the post would read "Removed: …" of
    a sentence it never saw, as its first message about that post (issue 43)."""
    if change.kind is not ChangeKind.EDITED or told is None:
        return True
    return (reader.chat_id, change.item.key) in told


def modelled(reader: Reader) -> bool:
    """The chat's messages may show the model's text (`Written.for_reader`)."""
    return reader.message_format is not Format.FULL and (
        reader.summary_mode is SummaryMode.MODEL or reader.translate
    )


def _flooded(reader: Reader, passed: list[Change], max_new: int) -> Route:
    """More than `max_new` new posts at once: one list of them (digest chats are held anyway)."""
    new = [c for c in passed if c.kind is ChangeKind.NEW]
    if len(new) > max_new and not reader.digest:
        edits = tuple(c for c in passed if c.kind is not ChangeKind.NEW)
        return Route(reader, edits, tuple(new))
    return Route(reader, tuple(passed))


def _in_order(route: Route) -> list[Change]:
    """Everything a route passed, its new posts in the poll's order (the list's order)."""
    return [*route.listed, *route.changes]


def _keys(changes: Iterable[Change]) -> list[str]:
    return list(dict.fromkeys(c.item.key for c in changes))


def _quieted(reader: Reader, now: datetime | None) -> Reader:
    """The chat as the fan-out treats it now: in its quiet hours, its messages are held."""
    window = quiet.stored(reader.quiet)
    if now is None or window is None or reader.digest or not window.holds(now, reader.timezone):
        return reader
    return replace(reader, digest=True)  # held like a digest's, released when the window ends
