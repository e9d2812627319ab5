"""Which changed items are edits a reader would care about, judged across one poll.

An item's visible text can change without anyone editing the post:

- **counters**: "Points: 336", "45 comments", view counts. A number that changes at the same
  place (the word before or after it) in a third or more of the poll's known items, or at a
  place where it changed for this item before, is a counter. A number changed in one post alone
  (a price, a date, a version) is an edit;
- **templates**: a sentence added or removed identically in a third or more of the poll's known
  items, once each item's own title and link are taken out ("The post X appeared first on
  Site."), is the site's template. Any other change in the same item still counts;
- **excerpt ↔ full text**: when a feed starts or stops carrying full content, the excerpt is
  compared with the excerpt (the stored summary's hash), or recognised as the beginning of the
  same text; one post turned into a teaser ending in "Read more" (a paywall) too;
- **typography** (curly ↔ straight quotes, dashes) is folded before comparing sentences, and a
  **host rewrite** seen in the item's own link (a domain move), or in most of the poll's items
  (the whole site moved), is applied to the old text, scheme included;
- **a version seen recently**: two caches serving old and new text in turn would announce
  every swap; the item remembers its last few fingerprints, and returning to one is no news.

Everything else that changed the fingerprint is an edit, described by the sentences that remain.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from bot.core.detection.hosts import Move, moved, rehosted
from bot.core.detection.weight import Weight, weigh
from bot.core.text import (
    FINGERPRINT_VERSION,
    letters,
    same_words,
    sentences,
    typography,
    typography_of,
)
from bot.core.types import ParsedItem, StoredItem, TextDiff

# The share of a poll's known items that must change the same way for it to be the site's doing.
SHARE = 1 / 3
MIN_ITEMS = 2
MAX_PLACES = 16  # counter places remembered per item
MAX_VERSIONS = 3  # recent fingerprints remembered per item (beside the counter places)
VERSION_MARK = "v:"  # how a remembered fingerprint is told from a counter place
# Words that name a count readers never edit: a number next to one is a counter even in one item.
_COUNTED = (
    "point comment view vote like reply score answer read play download star share reaction "
    "favorite favourite retweet watcher subscriber follower visit hit upvote clap listen "
    "post participant member user viewer reader listener attendee backer signature boost "
    "repost bookmark fork"
)
COUNTER_WORDS = frozenset(
    {*_COUNTED.split(), *(word + "s" for word in _COUNTED.split()), "replies"}
)
_NUMBER = re.compile(r"\d+(?:[.,'’]\d+)*[kKmMbB]?")
_TITLE, _LINK = "\ue000", "\ue001"  # private-use placeholders: never in feed text
# Where an excerpt was cut: an ellipsis (bracketed or not) or a "read more" link's words. What
# follows the last one, if short, is the site's footer.
_EXCERPT_MARK = re.compile(
    r"\[?(?:…|\.\.\.|&hellip;|&#8230;)\]?|\b(?:read more|continue reading|weiterlesen|keep reading"
    r"|subscribe to (?:read|continue|keep reading)|this (?:post|article|story) is for (?:paid )?"
    r"(?:subscribers|members)|to read the full (?:story|article|post))\b",
    re.IGNORECASE,
)
MAX_FOOTER_CHARS = 200
LONGEST_MARK = 64  # characters; no cut mark is longer (pinned by a test)
MIN_EXCERPT_LETTERS = 20
_NOT_A_WORD = re.compile(r"[\W_]+")


class Absorbed(StrEnum):
    """Why a changed fingerprint is not an edit."""

    VERSION = "fingerprint version"
    COUNTERS = "counters"
    TEMPLATE = "template change"
    EXCERPT = "excerpt/full text switch"
    SEEN = "version seen recently"
    REHOSTED = "host rewrite"
    TYPOGRAPHY = "typography"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One changed item: an edit (with its diff) or absorbed (with the reason)."""

    key: str
    diff: TextDiff | None
    absorbed: Absorbed | None = None
    places: tuple[str, ...] = ()  # counter places to remember for the item
    versions: tuple[str, ...] = ()  # its recent fingerprints, `VERSION_MARK`-prefixed


Places = tuple[str, ...]  # a changed number's places: `before|#` and `#|after` (masked)


@dataclass
class _Look:
    """One changed item's sentences with its title and link taken out."""

    previous: StoredItem
    item: ParsedItem
    old: list[str]  # the sentences, title and link taken out
    new: list[str]
    added: list[str]
    removed: list[str]
    old_text: str  # the stored text with the poll's host moves applied
    direction: int = 0  # excerpt_direction of the two texts, template sentences left out
    # Sentence pairs that differ only in numbers: (old, new, the places of each changed number).
    numbers: list[tuple[str, str, list[Places]]] = field(default_factory=list)
    title_places: list[Places] | None = None  # when the title changed only in numbers


def judge(
    changed: Sequence[tuple[StoredItem, ParsedItem]],
    known: int,
    site_moves: Sequence[Move] = (),
) -> list[Verdict]:
    """Verdicts for the items whose fingerprint changed; `known` is how many items of this
    poll were already stored (the base the shares are taken of); `site_moves` the origins
    most of the poll's known items moved from and to (`hosts.site_moves`)."""
    verdicts: list[Verdict] = []
    looks: list[_Look] = []
    for previous, item in changed:
        if previous.fingerprint_version != FINGERPRINT_VERSION and _same_post(previous, item):
            verdicts.append(Verdict(item.key, None, Absorbed.VERSION))
            continue
        if VERSION_MARK + item.fingerprint in previous.volatile:  # back to a recent version
            verdicts.append(Verdict(item.key, None, Absorbed.SEEN))
            continue
        looks.append(_look(previous, item, site_moves))
    threshold = share_threshold(known)
    templates = _shared(looks, threshold)
    counters = _counter_places(looks, threshold)
    for look in looks:  # templates out first: a footer added to a short post is no full text
        look.direction = excerpt_direction(
            " ".join(s for s in look.old if s not in templates),
            " ".join(s for s in look.new if s not in templates),
        )
    directions = Counter(look.direction for look in looks)
    switched = {d for d, n in directions.items() if d and n >= threshold}
    for look in looks:
        verdicts.append(_verdict(look, templates, counters, switched))
    by_key = {item.key: previous for previous, item in changed}
    return [_remembering(verdict, by_key[verdict.key]) for verdict in verdicts]


def share_threshold(known: int) -> int:
    """How many of a poll's `known` items make "most": a third or more, at least two."""
    return max(MIN_ITEMS, math.ceil(known * SHARE))


def _remembering(verdict: Verdict, previous: StoredItem) -> Verdict:
    """The fingerprints the item remembers after an edit or a return to a recent version: the
    one it leaves behind, among its last `MAX_VERSIONS`."""
    if not previous.fingerprint or not (verdict.diff or verdict.absorbed is Absorbed.SEEN):
        return verdict  # counters and templates change every poll: no version worth keeping
    mark = VERSION_MARK + previous.fingerprint
    versions = [p for p in previous.volatile if p.startswith(VERSION_MARK) and p != mark]
    return replace(verdict, versions=(*versions, mark)[-MAX_VERSIONS:])


def memory(verdict: Verdict, previous: StoredItem) -> tuple[str, ...]:
    """What the item stores in its memory column: counter places, then recent versions."""
    places = verdict.places
    if not places and verdict.absorbed is not Absorbed.VERSION:  # SEEN, typography, rehost
        places = previous.volatile
    counters = [p for p in places if not p.startswith(VERSION_MARK)][-MAX_PLACES:]
    return (*counters, *verdict.versions)


def _same_post(previous: StoredItem, item: ParsedItem) -> bool:
    return same_words(previous.title, item.title) and same_words(previous.text, item.text)


def _look(previous: StoredItem, item: ParsedItem, site_moves: Sequence[Move] = ()) -> _Look:
    own = moved(previous.link, item.link)
    old_text = rehosted(previous.text, [*([own] if own else []), *site_moves])
    old = sentences(_neutral(old_text, previous.title, previous.link))
    new = sentences(_neutral(item.text, item.title, item.link))
    old_folded = dict(zip(old, typography_of(old), strict=True))  # folded once for all
    new_folded = dict(zip(new, typography_of(new), strict=True))
    old_set, new_set = set(old_folded.values()), set(new_folded.values())
    added = [s for s, folded in new_folded.items() if folded not in old_set]
    removed = [s for s, folded in old_folded.items() if folded not in new_set]
    look = _Look(previous, item, old, new, added, removed, old_text)
    for old_sentence in list(look.removed):  # pair sentences that differ only in numbers
        mask = _NUMBER.sub("#", old_sentence)
        for new_sentence in look.added:
            if _NUMBER.sub("#", new_sentence) == mask:
                places = number_places(old_sentence, new_sentence)
                look.numbers.append((old_sentence, new_sentence, places))
                look.removed.remove(old_sentence)
                look.added.remove(new_sentence)
                break
    if previous.title != item.title and _NUMBER.sub("#", previous.title) == _NUMBER.sub(
        "#", item.title
    ):
        look.title_places = number_places(previous.title, item.title)
    return look


def _folded(text: str) -> str:
    return " ".join(typography(text).split())


def _neutral(text: str, title: str, link: str | None) -> str:
    """The text with the item's own title and link replaced by placeholders, so that a footer
    naming each post reads the same in every item."""
    if link:
        text = text.replace(link, _LINK)
    if title.strip():
        text = text.replace(title.strip(), _TITLE)
    return text


def _shown(sentence: str, item: ParsedItem | StoredItem) -> str:
    return sentence.replace(_TITLE, item.title.strip()).replace(_LINK, item.link or "")


def number_places(old: str, new: str) -> list[Places]:
    """Where numbers differ between two texts of the same shape: for each changed number, the
    word before it and the word after it (numbers masked), e.g. `Points:|#` and `#|comments`."""
    old_tokens, new_tokens = old.split(), new.split()
    masked = [_NUMBER.sub("#", token) for token in new_tokens]
    found: list[Places] = []
    for index, (before, after) in enumerate(zip(old_tokens, new_tokens, strict=False)):
        if before == after:
            continue
        places = []
        if index > 0:
            places.append(f"{masked[index - 1]}|{masked[index]}")
        if index + 1 < len(masked):
            places.append(f"{masked[index]}|{masked[index + 1]}")
        found.append(tuple(places) or (masked[index],))
    return found


def _shared(looks: Sequence[_Look], threshold: int) -> set[str]:
    """Sentences added, or removed, in at least `threshold` items."""
    added: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    for look in looks:
        added.update(set(look.added))
        removed.update(set(look.removed))
    return {s for s, n in added.items() if n >= threshold} | {
        s for s, n in removed.items() if n >= threshold
    }


def _counter_places(looks: Sequence[_Look], threshold: int) -> set[str]:
    seen: Counter[str] = Counter()
    for look in looks:
        numbers = [n for _, _, ns in look.numbers for n in ns] + (look.title_places or [])
        seen.update({place for number in numbers for place in number})
    return {place for place, n in seen.items() if n >= threshold}


def _verdict(look: _Look, templates: set[str], counters: set[str], switched: set[int]) -> Verdict:
    previous, item = look.previous, look.item
    counted = [p for p in previous.volatile if not p.startswith(VERSION_MARK)]
    remembered = set(counted)
    numbers = [n for _, _, ns in look.numbers for n in ns] + (look.title_places or [])
    observed = [place for number in numbers for place in number]
    places = tuple(dict.fromkeys([*counted, *observed]))[-MAX_PLACES:]
    if _is_excerpt_switch(look, switched) or _is_teaser(look):
        return Verdict(item.key, None, Absorbed.EXCERPT, places=tuple(counted))
    absorbed: Absorbed | None = None
    added = [s for s in look.added if s not in templates]
    removed = [s for s in look.removed if s not in templates]
    if len(added) != len(look.added) or len(removed) != len(look.removed):
        absorbed = Absorbed.TEMPLATE
    for old, new, changed in look.numbers:
        if changed and all(_is_counter(n, counters, remembered) for n in changed):
            absorbed = absorbed or Absorbed.COUNTERS
        else:
            removed.append(old)
            added.append(new)
    title_changed = previous.title != item.title
    if look.title_places is not None and all(
        _is_counter(n, counters, remembered) for n in look.title_places
    ):
        title_changed = False
        absorbed = absorbed or Absorbed.COUNTERS
    old_text = look.old_text
    same_title = _folded(previous.title) == _folded(item.title)
    if same_title and _folded(old_text) == _folded(item.text):
        # The same words once typography and a host rewrite are folded: not an edit.
        rehost = old_text != previous.text
        return Verdict(item.key, None, Absorbed.REHOSTED if rehost else Absorbed.TYPOGRAPHY)
    if absorbed is not None and not added and not removed and not title_changed:
        return Verdict(item.key, None, absorbed, places=places)
    diff = TextDiff(
        old_title=previous.title if title_changed else None,
        new_title=item.title if title_changed else None,
        added=tuple(_shown(s, item) for s in _in_order(added, look, new=True)),
        removed=tuple(_shown(s, previous) for s in _in_order(removed, look, new=False)),
        minor=weigh(previous.title, item.title, old_text, item.text) is Weight.MINOR,
    )
    return Verdict(item.key, diff, places=places)


def _is_counter(number: Places, counters: set[str], remembered: set[str]) -> bool:
    """A changed number is a counter when one of its places is: shared across the poll,
    remembered for the item, or next to a word that names a count."""
    for place in number:
        if place in counters or place in remembered:
            return True
        if any(_NOT_A_WORD.sub("", word.casefold()) in COUNTER_WORDS for word in place.split("|")):
            return True
    return False


def _in_order(kept: list[str], look: _Look, *, new: bool) -> list[str]:
    """Sentences in reading order (number-pair sentences were appended at the end)."""
    order = {s: i for i, s in enumerate(look.new if new else look.old)}
    return sorted(dict.fromkeys(kept), key=order.__getitem__)  # kept ⊆ the look's sentences


def _is_excerpt_switch(look: _Look, switched: set[int]) -> bool:
    """The feed started or stopped carrying full text for this item, and the texts agree."""
    previous, item, direction = look.previous, look.item, look.direction
    if direction and direction in switched:
        return True
    if previous.full is None or previous.full == item.full:
        return False
    if previous.excerpt_hash and previous.excerpt_hash == item.excerpt_hash:
        return True
    return direction != 0


def _is_teaser(look: _Look) -> bool:
    """One post cut down to a teaser that says so ("… Read more", "This post is for paid
    subscribers"), or back: the shorter text is the other's beginning and ends in a cut mark."""
    if not look.direction:
        return False
    short = look.item.text if look.direction < 0 else look.previous.text
    return cut_mark(short) is not None


def excerpt_direction(old: str, new: str) -> int:
    """+1 when `old` is an excerpt of `new` (its beginning, maybe with "…" or "Read more"),
    -1 when `new` is an excerpt of `old`, 0 when neither."""
    if is_excerpt(old, new):
        return 1
    if is_excerpt(new, old):
        return -1
    return 0


def is_excerpt(short: str, full: str) -> bool:
    """`short`, up to where it was cut ("[…]", "Read more"; a short footer may follow), is the
    beginning of the longer `full`, letter for letter."""
    mark = cut_mark(short)
    if mark is not None:
        short = short[: mark.start()]
    if len(short) >= len(full):  # an excerpt is shorter (cheap to check on long texts)
        return False
    head = letters(short)
    whole = letters(full[: 2 * len(short) + 64])  # enough of the beginning, usually
    if len(whole) <= len(head):
        whole = letters(full)
    return MIN_EXCERPT_LETTERS <= len(head) < len(whole) and whole.startswith(head)


def cut_mark(text: str) -> re.Match[str] | None:
    """The text's last cut mark, when at most a short footer follows it.

    Such a mark lies in the last `MAX_FOOTER_CHARS + LONGEST_MARK` characters, so the whole
    text is scanned only when that tail holds a mark: the scan of a 26 KB post took 1.1 ms, three
    times per edit (the search from `tail` sees the characters before it, as a scan would)."""
    tail = max(0, len(text) - MAX_FOOTER_CHARS - LONGEST_MARK)
    if _EXCERPT_MARK.search(text, tail) is None:
        return None
    marks = list(_EXCERPT_MARK.finditer(text))
    return marks[-1] if len(text) - marks[-1].end() <= MAX_FOOTER_CHARS else None
