"""The ranked digest across a chat's feeds (`/digest all daily 08:00 [top N]`, issue 46).

One message for every feed of the chat: the period's posts folded into stories (the same story
from several feeds is one entry naming them, `core/polls/duplicates.py`), ranked for this chat,
the `top` first (each with its one-line summary and its sources), then the rest as compact
links. The score adds, with their reasons:
- `MATCHED` when the post has one of the chat's keywords or passed a positive field rule: the
  chat said in words what it wants, the strongest signal it gives;
- `CARRIED` for each further feed that carried the story: three feeds thinking it news is
  stronger evidence than one;
- the weights 👍/👎 taught (`core/polls/tuning.py`) for its feeds (the strongest of them) and
  its categories (their sum), each within ±10 and scaled by `WEIGHT`, so a feed liked ten
  times outranks a keyword match but one 👍 does not;
- recency, at most `RECENT` (a post of the last hour) falling linearly to 0 over a day: the
  tie-breaker among equals, never more than one other signal.
Ties keep the period's order (oldest first). The rest are capped at `MAX_REST` links
("… and N more"): a flood of posts is still one message, not ten.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from bot.core.lang import ENGLISH, N_, Translator
from bot.core.messages.digest import DigestSyntaxError, split_messages
from bot.core.messages.escape import esc, esc_attr
from bot.core.polls.duplicates import Story, same_story
from bot.core.text import shorten

MATCHED = 4.0
CARRIED = 2.0
WEIGHT = 0.5
RECENT = 1.0
DAY = timedelta(days=1)
DEFAULT_TOP = 5
MAX_TOP = 20
MAX_REST = 30


# `/digest all …` in every language the bot speaks (as `digest.PERIOD_WORDS`, and why).
ALL_WORDS = ("all", "todos", "todas", "全部", "所有")
_TOP = re.compile(r"^(.*?)\s*(?:top|primeros|mejores|前)\s*(\d{1,3})\s*$", re.IGNORECASE)


def is_all(word: str) -> bool:
    return word.casefold() in ALL_WORDS


def split_top(text: str) -> tuple[str, int]:
    """`daily 08:00 top 5` → (`daily 08:00`, 5); without `top N`, `DEFAULT_TOP`."""
    found = _TOP.fullmatch(text.strip())
    if found is None:
        return text.strip(), DEFAULT_TOP
    top = int(found[2])
    if not 1 <= top <= MAX_TOP:
        raise DigestSyntaxError(N_("top N takes a number from 1 to {most}"), most=MAX_TOP)
    return found[1].strip(), top


@dataclass(frozen=True, slots=True)
class Candidate:
    """One held post of one feed, as the ranking reads it."""

    item_id: int
    title: str
    link: str | None
    feed_id: int
    feed_title: str
    categories: tuple[str, ...]
    summary: str  # one line, Telegram HTML (digest.one_line)
    text: str  # the post's plain text, what an opening's names and numbers are checked in
    story: Story
    at: datetime  # when it was held (its poll)
    matched: bool = False  # a keyword of the chat or a positive field rule


@dataclass(frozen=True, slots=True)
class Entry:
    """A story of the period: its first post, and every feed that carried it."""

    post: Candidate
    feeds: tuple[str, ...]
    feed_ids: tuple[int, ...]
    matched: bool
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class Weights:
    """What the chat's reactions taught: by feed id, and by folded category name."""

    feeds: Mapping[int, int] = field(default_factory=dict)
    categories: Mapping[str, int] = field(default_factory=dict)


def stories(posts: Sequence[Candidate]) -> list[Entry]:
    """The posts as stories, in the period's order: a post that repeats an earlier one of
    another feed adds its feed to that entry (same link, or a near-equal title and opening).
    The posts come feed by feed; sorted by when each was held (a stable sort), the story is
    told by the copy the period had first (GitHub's release, not the planet's copy a poll
    later) and ties in rank keep the order the posts came in, not the feeds' order."""
    entries: list[Entry] = []
    for post in sorted(posts, key=lambda p: p.at):
        for index, entry in enumerate(entries):
            if post.feed_id not in entry.feed_ids and same_story(post.story, entry.post.story):
                entries[index] = replace(
                    entry,
                    feeds=(*entry.feeds, post.feed_title),
                    feed_ids=(*entry.feed_ids, post.feed_id),
                    matched=entry.matched or post.matched,
                )
                break
        else:
            entries.append(Entry(post, (post.feed_title,), (post.feed_id,), post.matched))
    return entries


def score(entry: Entry, weights: Weights, now: datetime) -> float:
    """The entry's rank for this chat (the module's rule)."""
    value = MATCHED if entry.matched else 0.0
    value += CARRIED * (len(entry.feed_ids) - 1)
    feed_weights = [weights.feeds.get(f, 0) for f in entry.feed_ids]
    value += WEIGHT * max(feed_weights, key=abs)
    value += WEIGHT * sum(weights.categories.get(c.casefold(), 0) for c in entry.post.categories)
    age = max(now - entry.post.at, timedelta(0))
    value += RECENT * max(0.0, 1 - age / DAY)
    return value


def rank(posts: Sequence[Candidate], weights: Weights, now: datetime) -> list[Entry]:
    """The period's stories, highest score first (a stable sort: ties keep their order)."""
    scored = [replace(e, score=score(e, weights, now)) for e in stories(posts)]
    return sorted(scored, key=lambda e: -e.score)


def render_ranked(
    entries: Sequence[Entry], top: int, opening: str, tr: Translator = ENGLISH
) -> list[str]:
    """The digest: its head, the opening paragraph (plain text, escaped here), the `top`
    entries numbered [1]… with summary and sources, then the rest as links; more than one
    message only past Telegram's limit."""
    best, rest = entries[:top], entries[top:]
    feeds = len({f for e in entries for f in e.feed_ids})
    head = tr.ngettext(
        "<b>Your digest</b> — {count} story", "<b>Your digest</b> — {count} stories", len(entries)
    ).format(count=len(entries))
    head += " " + tr.ngettext("from {feeds} feed", "from {feeds} feeds", feeds).format(feeds=feeds)
    lines: list[str] = []
    if opening:
        lines.append(f"\n{esc(opening)}")
    for number, entry in enumerate(best, 1):
        unit = [f"\n<b>[{number}]</b> {_linked(entry.post.title, entry.post.link)}"]
        unit.append(f"<i>{esc(_sources(entry, tr))}</i>")
        if entry.post.summary:
            unit.append(entry.post.summary)
        lines.append("\n".join(unit))
    if rest:
        lines.append("\n" + tr.gettext("<b>Also</b>"))
        for entry in rest[:MAX_REST]:
            name = _linked(entry.post.title, entry.post.link)
            lines.append(f"• {name} — {esc(shorten(entry.feeds[0], 60))}")
        if len(rest) > MAX_REST:
            more = len(rest) - MAX_REST
            lines.append(tr.ngettext("… and {n} more", "… and {n} more", more).format(n=more))
    return split_messages(head, lines, tr)


def _sources(entry: Entry, tr: Translator) -> str:
    first = shorten(entry.feeds[0], 60)
    if len(entry.feeds) == 1:
        return first
    also = ", ".join(shorten(f, 40) for f in entry.feeds[1:])
    return tr.gettext("{feed} · also in {feeds}").format(feed=first, feeds=also)


def _linked(title: str, link: str | None) -> str:
    shown = esc(shorten(title, 200)) if title.strip() else esc(shorten(link or "", 200))
    if not link:
        return shown
    return f'<a href="{esc_attr(link)}">{shown}</a>'
