"""The sentence that matched, and the answer a chat reads for its search.

Why a sentence and not the post's summary: the chat asked for words, and the sentence that
holds them (from whichever stored version had them, perhaps one edited away since) is what
tells it this is the post; it is cut around the words when long, and escaped like any text
from a feed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.core.lang import ENGLISH, N_, Translator
from bot.core.messages.escape import esc, esc_attr
from bot.core.search.query import SearchQuery, Term
from bot.core.search.terms import tokens
from bot.core.text import sentences

SENTENCE_CHARS = 200
TITLE_CHARS = 150

ANSWER = N_("Found {count} posts for <b>{words}</b>, newest first:")
ANSWER_ONE = N_("Found 1 post for <b>{words}</b>:")
NONE = N_("Nothing found for <b>{words}</b> in this chat's feeds.")
NONE_IN_FEED = N_("Nothing found for <b>{words}</b> in <b>{feed}</b>.")
SINCE = N_("Only posts of the last {days} days were searched.")
EARLIER = N_("in an earlier version")


@dataclass(frozen=True, slots=True)
class Found:
    """One post a search found, with the newest of its versions that matched."""

    title: str  # the post's title now
    link: str | None
    feed: str  # the feed's title
    date: datetime | None  # published, or first seen
    version_text: str  # the matching version's text
    current: bool  # the matching version is the post as it stands


def has(found: Sequence[str], term: Term) -> bool:
    """`term`'s tokens next to each other in `found` (its last a prefix where it is one)."""
    size = len(term.tokens)
    head, last = term.tokens[:-1], term.tokens[-1]
    for start in range(len(found) - size + 1):
        end = start + size - 1
        if tuple(found[start:end]) != head:
            continue
        if found[end] == last or (term.prefix and found[end].startswith(last)):
            return True
    return False


def sentence(text: str, query: SearchQuery, limit: int = SENTENCE_CHARS) -> str:
    """The first sentence holding the most of the query's terms ("" when none holds one: the
    title matched), cut to `limit` characters around the first term it holds."""
    best, best_count, first = "", 0, None
    for candidate in sentences(text):
        found = tokens(candidate)
        held = [term for term in query.terms if has(found, term)]
        if len(held) > best_count:
            best, best_count, first = candidate, len(held), held[0]
            if best_count == len(query.terms):
                break
    if first is None or len(best) <= limit:
        return best
    at = max(best.casefold().find(first.typed.casefold()), 0)
    start = max(0, min(at - limit // 3, len(best) - limit))
    cut = best[start : start + limit].strip()
    return ("…" if start else "") + cut + ("…" if start + limit < len(best) else "")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def answer(
    found: Sequence[Found],
    query: SearchQuery,
    *,
    feed_title: str | None = None,
    tr: Translator = ENGLISH,
) -> str:
    """The reply: a line saying what was searched, then each post (linked title, feed, date,
    the matching sentence), or the sentence saying nothing was found."""
    _ = tr.gettext
    words = esc(query.shown)
    if not found:
        if feed_title is None:
            lines = [_(NONE).format(words=words)]
        else:
            lines = [_(NONE_IN_FEED).format(words=words, feed=esc(feed_title))]
        if query.since_days is not None:
            lines.append(_(SINCE).format(days=query.since_days))
        return "\n".join(lines)
    head = ANSWER_ONE if len(found) == 1 else ANSWER
    parts = [_(head).format(count=len(found), words=words)]
    for number, post in enumerate(found, start=1):
        title = esc(_clip(post.title or post.link or "…", TITLE_CHARS))
        if post.link:
            title = f'<a href="{esc_attr(post.link)}">{title}</a>'
        about = [esc(_clip(post.feed, 60))]
        if post.date is not None:
            about.append(tr.format_date(post.date))
        if not post.current:
            about.append(_(EARLIER))
        said = sentence(post.version_text, query)
        block = f"{number}. <b>{title}</b>\n{' · '.join(about)}"
        parts.append(block + (f"\n<i>{esc(said)}</i>" if said else ""))
    return "\n\n".join(parts)
