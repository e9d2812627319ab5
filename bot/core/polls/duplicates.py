"""One story, one message: when a chat's new post repeats one it was sent from another feed.

Why: a chat following a foundation's blog, a member's blog and a planet gets the same press
release three times; a release reaches it from GitHub, the project blog and a planet (issue 46).
Two posts of different feeds are one story when
- their canonical links are equal (scheme, `www.`, a trailing slash, the fragment and tracking
  parameters such as `utm_*` or `fbclid` ignored: `identity.canonical_url`), or
- their titles share at least `TITLE_MIN` of their words *and* their openings (the first
  `OPENING_WORDS` words of the text, syndication lines such as "The post … appeared first on …"
  and "Originally published at …" taken out) share at least `OPENING_MIN` of their word pairs.
A translated title shares no words with the original: not one story. Two weekly posts with the
same title ("This week in Lumen") open differently: not one story. A post without an opening
(title-only items) is only ever matched by its link: a title alone says too little.
Only posts sent in the last `WINDOW` are compared (a story is news for a few days), and only
the chat's stories in that window are read, through an index on (chat, time), at most
`CANDIDATES` of them: the check costs the same however long the chat's history is.
An edit of a story told in one message is one "Updated:" reply: a planet republishing the
original's edit tells the same change (`same_change`: equal text after the header, which names
each copy's own title, feed and date), and only the first copy's edit is sent.
Thresholds measured on real-shaped pairs (`tests/core/polls/test_duplicates.py`): copies,
a planet's copy and a news site's excerpt score 0.8–1.0 on titles and 0.9–1.0 on openings; two
weekly posts with one title score 0.19 on openings; a translated title 0.24 and another post
about the same project 0.36 on titles.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import timedelta

from bot.core.detection.identity import canonical_url

TITLE_MIN = 0.6  # shared words / all words of the two titles
OPENING_MIN = 0.5  # shared word pairs / all word pairs of the two openings
OPENING_WORDS = 40
MIN_OPENING = 8  # fewer words than this: no opening to compare
WINDOW = timedelta(days=3)
CANDIDATES = 300  # the chat's most recent stories compared by title and opening
_OPENING_CHARS = 4000  # read no further for the opening's words (a post may be 100 KB)
_WORD = re.compile(r"\w+")
# Lines that say where else a post was published: dropped before the opening is read.
_SYNDICATION = re.compile(
    r"(?is)(?:the post .{1,300}? appeared first on .*?(?:\.\s|$)"
    r"|(?:originally|first) published (?:at|on|in) .*?(?:\.\s|$)"
    r"|this (?:post|article) (?:was )?(?:originally|first) (?:published|posted|appeared)"
    r" .*?(?:\.\s|$))"
)


@dataclass(frozen=True, slots=True)
class Story:
    """What a post is compared by: its canonical link's hash, its title's and opening's words."""

    link: str | None  # sha256 of the canonical link
    title: str  # the title's words, folded, space-separated
    opening: str  # the opening's words, folded, space-separated


def story_of(link: str | None, title: str, text: str) -> Story:
    canonical = canonical_url(link)
    return Story(
        link=_hash(canonical) if canonical else None,
        title=" ".join(words(title)),
        opening=" ".join(words(_SYNDICATION.sub(" ", text[:_OPENING_CHARS]))[:OPENING_WORDS]),
    )


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def words(text: str) -> list[str]:
    """Folded words (case and accents ignored; a CJK run is one word per character)."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    plain = unicodedata.normalize(
        "NFC", "".join(ch for ch in folded if not unicodedata.combining(ch))
    )
    found: list[str] = []
    for word in _WORD.findall(plain):
        if any(_cjk(ch) for ch in word):
            found.extend(word)
        else:
            found.append(word)
    return found


def _cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def similarity(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """Shared / all (Jaccard) of two sets; 0 when both are empty."""
    left, right = set(a), set(b)
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def _pairs(text: str, length: int) -> set[tuple[str, str]]:
    found = text.split()[:length]
    return set(itertools.pairwise(found))


def title_score(a: Story, b: Story) -> float:
    return similarity(a.title.split(), b.title.split())


def opening_score(a: Story, b: Story) -> float:
    """The openings' shared word pairs, over as many words as the shorter one has (an excerpt
    against the full text compares the excerpt's length); 0 without an opening to compare."""
    length = min(len(a.opening.split()), len(b.opening.split()))
    if length < MIN_OPENING:
        return 0.0
    return similarity(_pairs(a.opening, length), _pairs(b.opening, length))


def same_story(new: Story, sent: Story) -> bool:
    """Is `new` the story `sent` already told (see the module's rule)?"""
    if new.link is not None and new.link == sent.link:
        return True
    return title_score(new, sent) >= TITLE_MIN and opening_score(new, sent) >= OPENING_MIN


def change_of(message: str) -> str:
    """What an edit's message says changed, without its header (the copy's own linked title,
    feed and date): the text after its first blank line, or a one-line notice's after its last
    " — "; empty when it says nothing more than its header."""
    _, blank, body = message.partition("\n\n")
    if blank:
        return body
    _, dash, what = message.rpartition(" — ")
    return what if dash else ""


def same_change(new: str, told: str) -> bool:
    """Do two edits' messages (of two copies of one story) tell the same change?"""
    change = change_of(new)
    return bool(change) and change == change_of(told)


def first_copies(posts: Sequence[tuple[int, Story]]) -> dict[int, int]:
    """Posts in order as (feed id, story): each post that tells the story of an earlier one of
    another feed (`same_story`) → the index of the first post telling it. What quiet hours
    held overnight is one story per entry, however many feeds had it. The first posts are
    indexed by link and by title word, so a post's shared title words are counted from the
    index and only another feed's near enough titles have their openings compared: 700 posts
    in 90 ms (0.7 s when every title is near every other), where every pair afresh took
    1.8 s for 400."""
    found: dict[int, int] = {}
    by_link: dict[str, list[int]] = {}
    by_word: dict[str, list[int]] = {}
    titles = [frozenset(story.title.split()) for _, story in posts]
    openings = _Openings([story.opening.split() for _, story in posts])
    for index, (feed_id, story) in enumerate(posts):
        shared: Counter[int] = Counter()
        for word in titles[index]:
            shared.update(by_word.get(word, ()))
        size = len(titles[index])
        near = {
            f
            for f, n in shared.items()
            if posts[f][0] != feed_id
            and n / (size + len(titles[f]) - n) >= TITLE_MIN
            and _opening(openings, index, f) >= OPENING_MIN
        }
        if story.link:
            near.update(by_link.get(story.link, ()))
        first = min((f for f in near if posts[f][0] != feed_id), default=None)
        if first is not None:
            found[index] = first
            continue
        if story.link:
            by_link.setdefault(story.link, []).append(index)
        for word in titles[index]:
            by_word.setdefault(word, []).append(index)
    return found


class _Openings:
    """`opening_score` for many pairs of one batch, each opening's word pairs made once per
    length compared (almost always the full `OPENING_WORDS`)."""

    def __init__(self, words: list[list[str]]) -> None:
        self.words = words
        self.pairs: dict[tuple[int, int], set[tuple[str, str]]] = {}

    def of(self, index: int, length: int) -> set[tuple[str, str]]:
        key = (index, length)
        if key not in self.pairs:
            self.pairs[key] = set(itertools.pairwise(self.words[index][:length]))
        return self.pairs[key]


def _opening(openings: _Openings, a: int, b: int) -> float:
    length = min(len(openings.words[a]), len(openings.words[b]))
    if length < MIN_OPENING:
        return 0.0
    return _jaccard(openings.of(a, length), openings.of(b, length))


def _jaccard(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> float:
    """`similarity` of two sets already made."""
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return shared / union if union else 0.0
