"""Following one post: for how long, how many, when its page is read, and what is news on it.

Why: live posts, incident pages and release notes change for days after they leave a feed's
window, where no poll sees them. A chat may follow a post for a period it chooses (bounded, so a
forgotten follow ends by itself); while the post is still in its feed, its edits come with the
feed's polls; once it has left, its page is read at most once per poll interval, and the
page's article is compared with the page as last read (the feed's excerpt is not the page, so
the two are never compared with each other). Only substantive changes are news here: a follow
is asked for a post's real changes, and the page's template changes are noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.core.detection.weight import Weight, weigh
from bot.core.lang import N_, UserError
from bot.core.text import same_words, sentence_diff
from bot.core.types import TextDiff

DEFAULT_DAYS = 14
MAX_DAYS = 60
# A diff this many sentences wide on both sides is the page's template, not an edit.
MAX_CHANGED = 12
PAGE_MARK = "\x1e"  # a reading of the whole page, not of its article


@dataclass(frozen=True, slots=True)
class FollowRequest:
    """What `/follow LINK [DAYS]` asks."""

    link: str
    days: int


def parse_follow(text: str) -> FollowRequest:
    """`LINK [DAYS]`: an http(s) link and 1 to 60 days (14 when not given)."""
    words = text.split()
    if not 1 <= len(words) <= 2 or not words[0].lower().startswith(("http://", "https://")):
        raise UserError(N_("Send a post's link, and the number of days if not 14."))
    days = DEFAULT_DAYS
    if len(words) == 2:
        word = words[1].lower().removesuffix("d")
        if not (word.isascii() and word.isdigit()) or not 1 <= int(word) <= MAX_DAYS:
            raise UserError(N_("A follow lasts from 1 to {most} days."), most=MAX_DAYS)
        days = int(word)
    return FollowRequest(words[0], days)


def follow_until(now: datetime, days: int) -> datetime:
    """When a follow made now for `days` ends (clamped to 1..MAX_DAYS)."""
    return now + timedelta(days=min(max(days, 1), MAX_DAYS))


def may_follow(following: int, most: int, *, already: bool) -> bool:
    """A chat follows at most `most` posts; following one again only moves its end."""
    return already or following < most


def page_due(
    checked_at: datetime | None,
    now: datetime,
    interval_seconds: float,
    *,
    in_feed: bool,
    read: bool = True,
) -> bool:
    """A followed post's page is read when it has never been read (its first reading is the
    baseline, taken while the post may still be in its feed: an edit made as it leaves is then
    seen), and otherwise at most once per poll interval, only once it has left its feed (the
    feed's polls see it until then) or while no reading has worked yet (`read` False)."""
    if checked_at is None:
        return True
    if in_feed and read:
        return False
    return (now - checked_at).total_seconds() >= interval_seconds


def rebaseline(page_at: datetime | None, item_changed_at: datetime | None) -> bool:
    """The feed told an edit after the page was last read: the page as read then is out of
    date, and that edit was already sent; the next reading is a new baseline, not news."""
    return page_at is not None and item_changed_at is not None and item_changed_at > page_at


def reading(article_text: str | None, page_text: str) -> str:
    """What is kept of one reading of a page: its article's text, or when no article could be
    extracted (a short page, an unusual layout) the page's whole visible text, marked so: the
    two are never compared with each other."""
    if article_text is not None:
        return article_text
    return PAGE_MARK + page_text


def page_change(old_text: str, new_text: str, title: str) -> TextDiff | None:
    """The substantive change from the page as last read to the page now, or None (read in
    another way than last time, the same words, a minor edit, or the whole page rewritten: a
    new template, not an edit)."""
    if old_text.startswith(PAGE_MARK) != new_text.startswith(PAGE_MARK):
        return None
    old_text, new_text = old_text.removeprefix(PAGE_MARK), new_text.removeprefix(PAGE_MARK)
    if same_words(old_text, new_text):
        return None
    if weigh(title, title, old_text, new_text) is Weight.MINOR:
        return None
    added, removed = sentence_diff(old_text, new_text)
    if not added and not removed:
        return None
    if len(added) > MAX_CHANGED and len(removed) > MAX_CHANGED:
        return None
    return TextDiff(added=added, removed=removed)
