"""Decide what is news: compare a parsed feed with what is stored.

Rules (reasons in docs/design.md):
- a key never seen is `new`, unless this is the feed's first successful poll (baseline: silent);
- a known key whose visible-text fingerprint changed is `edited`, with a sentence diff;
- a known key whose fingerprint is unchanged is nothing, however much its markup moved;
- a known key fingerprinted by another version (an html2text upgrade, a renderer fix) is
  re-baselined silently when its words are the same, and is an edit when they are not;
- items missing from the feed are not touched here: a post that comes back is not new.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from bot.core.model import (
    Change,
    ChangeKind,
    Detection,
    ParsedFeed,
    ParsedItem,
    StoredItem,
    TextDiff,
)
from bot.core.text import FINGERPRINT_VERSION, same_words, sentence_diff


def detect(
    feed: ParsedFeed, stored: Mapping[str, StoredItem], *, baseline: bool = False
) -> Detection:
    """Events for `feed` given the stored items (only keys present in the feed matter)."""
    changes: list[Change] = []
    unchanged: list[str] = []
    rebaselined: list[str] = []
    for item in feed.items:
        previous = stored.get(item.key)
        if previous is None:
            if not baseline:
                changes.append(Change(ChangeKind.NEW, item))
        elif previous.fingerprint == item.fingerprint:
            unchanged.append(item.key)
        elif previous.fingerprint_version != FINGERPRINT_VERSION and _same_post(previous, item):
            rebaselined.append(item.key)
        else:
            changes.append(Change(ChangeKind.EDITED, item, describe_edit(previous, item)))
    changes.sort(key=lambda change: reading_order(change.item))
    return Detection(
        changes=tuple(changes), unchanged=tuple(unchanged), rebaselined=tuple(rebaselined)
    )


def _same_post(previous: StoredItem, item: ParsedItem) -> bool:
    return same_words(previous.title, item.title) and same_words(previous.text, item.text)


def describe_edit(previous: StoredItem, item: ParsedItem) -> TextDiff:
    added, removed = sentence_diff(previous.text, item.text)
    title_changed = previous.title != item.title
    return TextDiff(
        old_title=previous.title if title_changed else None,
        new_title=item.title if title_changed else None,
        added=added,
        removed=removed,
    )


def reading_order(item: ParsedItem) -> tuple[int, float, int]:
    """Oldest published first; undated items after dated ones; ties by reverse feed order.

    Feeds list newest first, so among equal dates the item further down is the older one.
    """
    if item.published is None:
        return (1, 0.0, -item.position)
    return (0, _timestamp(item.published), -item.position)


def _timestamp(value: datetime) -> float:
    return value.timestamp()
