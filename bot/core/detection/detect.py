"""Decide what is news: compare a parsed feed with what is stored.

Rules (reasons in docs/design.md):
- on the feed's first successful poll everything is the baseline: stored, never announced;
- a never-seen key (after `identity.reconcile` has re-keyed the posts it recognised) is `new`,
  unless `identity.sort_unseen` calls it history (the window growing into the past);
- a known key whose visible-text fingerprint changed is `edited` when `edits.judge` says a reader
  would care (not counters, not a template, not an excerpt switch, not a fingerprint version);
- a known key whose fingerprint is unchanged is nothing, however much its markup moved;
- items missing from the feed are not touched here: a post that comes back is not new;
- a feed the operator set to new posts only (`feed set SLUG --edits off`: a planet re-issuing
  its entries) has its edits stored silently (`new_posts_only`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from bot.core.detection.edits import Absorbed, judge, memory, share_threshold
from bot.core.detection.hosts import site_moves
from bot.core.detection.identity import Rekey, sort_unseen
from bot.core.types import Change, ChangeKind, Detection, ParsedFeed, ParsedItem, StoredItem


def detect(
    feed: ParsedFeed,
    stored: Mapping[str, StoredItem],
    *,
    baseline: bool = False,
    newest_stored: datetime | None = None,
    has_stored: bool = False,
    full_list: bool = False,
) -> Detection:
    """Events for `feed` given the stored items (only keys present in the feed matter).

    `has_stored` and `newest_stored` describe the feed's stored items as a whole (needed when
    none of them is in this document); `full_list`: no item of the last document dropped out.
    """
    changes: list[Change] = []
    unchanged: list[str] = []
    changed: list[tuple[StoredItem, ParsedItem]] = []
    for item in feed.items:
        previous = stored.get(item.key)
        if previous is None:
            continue
        if previous.fingerprint == item.fingerprint:
            unchanged.append(item.key)
        else:
            changed.append((previous, item))
    history: tuple[str, ...] = ()
    notes: list[str] = []
    if not baseline:
        unseen = sort_unseen(feed.items, stored, newest_stored, has_stored, full_list=full_list)
        news = set(unseen.news)
        changes.extend(Change(ChangeKind.NEW, item) for item in feed.items if item.key in news)
        history = unseen.history
        if history and unseen.migration:
            notes.append(f"stored {len(history)} items silently: the whole window changed ids")
        elif history:
            notes.append(f"stored {len(history)} older items silently")
    known = sum(1 for item in feed.items if item.key in stored)
    absorbed: dict[str, str] = {}
    places: dict[str, tuple[str, ...]] = {}
    by_key = {item.key: item for item in feed.items}
    pairs = [(stored[item.key], item) for item in feed.items if item.key in stored]
    for verdict in judge(
        changed, known, site_moves(pairs, share_threshold(known)) if changed else ()
    ):
        if verdict.diff is not None:
            changes.append(Change(ChangeKind.EDITED, by_key[verdict.key], verdict.diff))
        elif verdict.absorbed is not None:
            absorbed[verdict.key] = verdict.absorbed.value
        remembered = memory(verdict, stored[verdict.key])
        if remembered != stored[verdict.key].volatile:
            places[verdict.key] = remembered
    for reason, count in sorted(Counter(absorbed.values()).items()):
        notes.append(_NOTES[reason].format(n=count, s="s" * (count != 1)))
    changes.sort(key=lambda change: reading_order(change.item))
    return Detection(
        changes=tuple(changes),
        unchanged=tuple(unchanged),
        absorbed=absorbed,
        history=history,
        places=places,
        notes=tuple(notes),
    )


EDITS_OFF = "edits off"


def new_posts_only(detection: Detection) -> Detection:
    """The detection with its edits stored silently, as absorbed changes: the operator set the
    feed to new posts only. Detection itself is unchanged (the stored text still follows the
    feed, so turning edits back on compares with the latest text, not an old one)."""
    edits = [c.item.key for c in detection.changes if c.kind is ChangeKind.EDITED]
    if not edits:
        return detection
    n = len(edits)
    return replace(
        detection,
        changes=tuple(c for c in detection.changes if c.kind is not ChangeKind.EDITED),
        absorbed={**detection.absorbed, **dict.fromkeys(edits, EDITS_OFF)},
        notes=(*detection.notes, f"stored {n} edit{'s' * (n != 1)} silently (edits off)"),
    )


_NOTES: dict[str, str] = {
    Absorbed.VERSION: "re-baselined {n} item{s} silently (the fingerprint version changed)",
    Absorbed.COUNTERS: "ignored changed counters on {n} item{s}",
    Absorbed.TEMPLATE: "ignored a template change on {n} item{s}",
    Absorbed.EXCERPT: "ignored an excerpt/full text switch on {n} item{s}",
    Absorbed.SEEN: "ignored a version seen recently on {n} item{s}",
    Absorbed.REHOSTED: "ignored a host rewrite in the text of {n} item{s}",
    Absorbed.TYPOGRAPHY: "ignored typography on {n} item{s}",
}


def explain(rekeys: Sequence[Rekey], detection: Detection) -> str | None:
    """One line naming what a poll absorbed instead of announcing (None when nothing was)."""
    parts: list[str] = []
    if rekeys:
        how = Counter(rekey.match.value for rekey in rekeys)
        why = ", ".join(f"{n} by {match}" for match, n in sorted(how.items()))
        parts.append(
            f"re-keyed {len(rekeys)} item{'s' * (len(rekeys) != 1)}: GUID migration ({why})"
        )
    parts += detection.notes
    return "; ".join(parts) or None


def reading_order(item: ParsedItem) -> tuple[int, float, int]:
    """Oldest published first; undated items after dated ones; ties by reverse feed order.

    Feeds list newest first, so among equal dates the item further down is the older one.
    """
    if item.published is None:
        return (1, 0.0, -item.position)
    return (0, _timestamp(item.published), -item.position)


def _timestamp(value: datetime) -> float:
    return value.timestamp()
