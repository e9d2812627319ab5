"""One poll of one feed, planned at once: the feed's state, the fetch result, the parsed
document and what storage knows about its items in; every write and every change out.

Like lemon24/reader's `make_intents`, this is the whole decision in one pure call: the poll
service reads once (`store.read_poll`), calls `make_plan`, and hands the plan to storage to
execute (`store.write_poll`). Nothing here touches the database, the clock or the network, and
nothing between the layers is a sentinel: a re-keyed row, a silent rewrite and a markup-only
update are each a `WriteKind`, decided here and only executed there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from bot.core.detection.churn import ChurnStep, churn_step, slowed_pace
from bot.core.detection.detect import detect, explain, new_posts_only
from bot.core.detection.identity import Rekey, identity_of, reconcile
from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import finish_feed
from bot.core.messages.article import Article
from bot.core.messages.fulltext import excerpt_only, with_article
from bot.core.messages.modeltext import ModelText
from bot.core.polls.alerts import AlertStep, alert_step
from bot.core.polls.decide import FeedIntent, FeedState, FetchResult, PollKind, decide, failed
from bot.core.polls.schedule import next_check
from bot.core.types import (
    Change,
    ChangeKind,
    Detection,
    Identity,
    ParsedItem,
    RawFeed,
    Reader,
    StoredItem,
)


@dataclass(frozen=True, slots=True)
class Known:
    """What storage knows for one poll, read in one call: the feed's row, its stored items
    under the document's keys, the stored posts that unseen entries may be (GUID migrations),
    whether it has items at all and the newest of them (for a document none of whose keys is
    known), and the chats that follow it."""

    feed: FeedState
    stored: Mapping[str, StoredItem] = field(default_factory=dict)
    candidates: Sequence[StoredItem] = ()
    has_stored: bool = False
    newest: datetime | None = None
    audience: Sequence[Reader] = ()
    # The model's stored answers the unseen entries may need (cache key → text): read with
    # the rest, so that a poll with the model on still reads storage once.
    model_texts: Mapping[str, ModelText] = field(default_factory=dict)
    # How many items of the last parsed document this one lacks (read only when it has unseen
    # entries beside known ones; None: not read). 0: the document only grew (a full list).
    dropped: int | None = None


@dataclass(frozen=True, slots=True)
class Rules:
    """The settings a plan follows (from `Settings`, kept apart so the core reads no config)."""

    interval_seconds: float
    alert_after: timedelta
    keep_days: int
    max_items: int | None = None


class WriteKind(StrEnum):
    """What one item of the document does to its stored row."""

    INSERT = "insert"  # never stored: a new row
    EDIT = "edit"  # an edit worth telling: the row takes it, and its change time
    REWRITE = "rewrite"  # absorbed, re-keyed or a new identity: the row takes it silently
    MARKUP = "markup"  # the text is the same, the markup moved: hash, image, full text
    SEEN = "seen"  # nothing but the last-seen time


@dataclass(frozen=True, slots=True)
class ItemWrite:
    kind: WriteKind
    item: ParsedItem
    identity: Identity
    volatile: tuple[str, ...] | None = None  # counter places to remember, when they changed
    # The row's categories before this write (an edit or rewrite): the feed's counts swap
    # them for the item's, with no query of their own.
    was: tuple[str, ...] = ()
    # A seen item whose bytes changed: the row takes every field again, and the bytes' hash
    # (a markup write always does), so that it stands for them next time (feeds/changed.py).
    refresh: bool = False


@dataclass(frozen=True, slots=True)
class Prune:
    """Items absent since `unseen_since` go; past `keep`, the oldest absent from this poll."""

    unseen_since: datetime
    seen_at: datetime
    keep: int | None = None


@dataclass(frozen=True, slots=True)
class PollPlan:
    """Everything one poll does, for storage to execute and the service to log."""

    feed: FeedState
    intent: FeedIntent  # the feed row's new state, its pace settled once
    alert: AlertStep
    title: str | None = None  # the document's title, when the feed had none of its own
    churn: ChurnStep | None = None
    rekeys: tuple[Rekey, ...] = ()
    writes: tuple[ItemWrite, ...] = ()
    changes: tuple[Change, ...] = ()  # what chats are told, in reading order
    articles: Mapping[str, Article] = field(default_factory=dict)
    model_texts: Mapping[str, ModelText] = field(default_factory=dict)  # fresh answers to keep
    notes: str | None = None  # what was absorbed instead of announced
    warning: str | None = None  # what the parser had to work around
    items: int = 0  # entries in the document
    inserted: int = 0  # of them never stored before
    excerpt_only: bool | None = None
    prune: Prune | None = None
    prune_texts: datetime | None = None  # model texts older than this go

    @property
    def kind(self) -> PollKind:
        """A changed body whose items hold nothing to tell is, to a reader, unchanged."""
        if self.intent.kind is PollKind.CHANGED and not self.changes:
            return PollKind.UNCHANGED
        return self.intent.kind

    @property
    def shown_title(self) -> str:
        return self.title or self.feed.title


def make_plan(
    known: Known,
    result: FetchResult | str,
    raw: RawFeed | NotAFeed | None,
    now: datetime,
    rules: Rules,
) -> PollPlan:
    """The poll's one decision. `raw`: the body read as a feed (or why it is not one) whenever
    the fetch was a 200. What the plan's new posts get besides the feed (their pages, the
    model's texts) is fetched afterwards, for the chats that receive them (`enriched`)."""
    feed = known.feed
    # The pace is settled once, with the body's own <ttl> when there is a body.
    paced = replace(feed, ttl_seconds=raw.ttl_seconds) if isinstance(raw, RawFeed) else feed
    intent = decide(paced, result, now, rules.interval_seconds)
    if isinstance(raw, RawFeed):
        intent = replace(intent, ttl_seconds=raw.ttl_seconds)
    if not intent.parse:
        return PollPlan(feed, intent, alert_step(feed, intent, rules.alert_after))
    if raw is None:
        raise ValueError("a body to parse is read as a feed before the poll is planned")
    if isinstance(raw, NotAFeed):
        intent = failed(feed, str(raw), now, feed.interval_seconds or rules.interval_seconds)
        return PollPlan(feed, intent, alert_step(feed, intent, rules.alert_after))
    title = raw.title if raw.title and (not feed.title or feed.title == feed.slug) else None
    stored = dict(known.stored)
    rekeys: list[Rekey] = []
    if feed.baseline_done:
        rekeys = reconcile(raw.entries, stored, known.candidates) if known.candidates else []
        by_key = {c.key: c for c in known.candidates}
        for rekey in rekeys:
            stored[rekey.new_key] = replace(by_key[rekey.old_key], key=rekey.new_key)
    if stored or not feed.baseline_done:
        has_stored, newest = bool(stored), None
    else:  # nothing in this document is known: what is stored at all decides
        has_stored, newest = known.has_stored, known.newest
    parsed = finish_feed(raw, stored)
    detection = detect(
        parsed,
        stored,
        baseline=not feed.baseline_done,
        newest_stored=newest,
        has_stored=has_stored,
        full_list=known.dropped == 0,
    )
    if not feed.edits:
        detection = new_posts_only(detection)
    moved = {r.new_key for r in rekeys}
    changed = {c.item.key for c in detection.changes}
    writes = tuple(
        _write(item, stored.get(item.key), detection, changed, moved) for item in parsed.items
    )
    inserted = sum(1 for w in writes if w.kind is WriteKind.INSERT)
    churn = churn_step(feed.churn_polls or 0, inserted if feed.baseline_done else 0, len(writes))
    if churn.slowed:
        pace = slowed_pace(intent.pace_seconds)
        intent = replace(intent, next_check_at=next_check(now, pace), pace_seconds=pace)
    return PollPlan(
        feed,
        intent,
        alert_step(feed, intent, rules.alert_after),
        title=title,
        churn=churn,
        rekeys=tuple(rekeys),
        writes=writes,
        changes=detection.changes,
        notes=explain(rekeys, detection),
        warning=raw.warning,
        items=len(writes),
        inserted=inserted,
        excerpt_only=excerpt_only(parsed.items),
        prune=Prune(now - timedelta(days=rules.keep_days), now, rules.max_items),
    )


def enriched(
    plan: PollPlan,
    articles: Mapping[str, Article],
    model_texts: Mapping[str, ModelText],
    *,
    model_used: bool = False,
) -> PollPlan:
    """The decided plan with what was fetched for its new posts: their pages (`articles`,
    shown instead of the excerpts; detection stayed on the feed's own text) and the model's
    fresh answers (kept; when the model was used, its texts older than the items are pruned).
    Nothing is decided again: the changes, writes and state stay the plan's."""
    if not articles and not model_texts and not model_used:
        return plan
    prune_texts = plan.prune.unseen_since if model_used and plan.prune is not None else None
    return replace(
        plan,
        changes=tuple(_shown(c, articles) for c in plan.changes),
        articles={**plan.articles, **articles},
        model_texts={**plan.model_texts, **model_texts},
        prune_texts=prune_texts,
    )


def _write(
    item: ParsedItem,
    old: StoredItem | None,
    detection: Detection,
    changed: set[str],
    moved: set[str],
) -> ItemWrite:
    """The one place that says what an item does to its row."""
    same_parts = old is not None and (old.link, old.title, old.published) == (
        item.link,
        item.title,
        item.published,
    )
    if old is not None and old.identity is not None and same_parts and item.key not in moved:
        ident = old.identity  # unchanged parts, unchanged identity (computing it is not free)
    else:
        ident = identity_of(item.key, item.link, item.title, item.published)
    volatile = detection.places.get(item.key)
    if old is None:
        return ItemWrite(WriteKind.INSERT, item, ident, volatile)
    if item.key in changed:
        return ItemWrite(WriteKind.EDIT, item, ident, volatile, old.categories)
    if item.key in detection.absorbed or item.key in moved or old.identity != ident:
        return ItemWrite(WriteKind.REWRITE, item, ident, volatile, old.categories)
    if old.content_hash != item.content_hash:
        return ItemWrite(WriteKind.MARKUP, item, ident, was=old.categories, refresh=True)
    refresh = item.raw_hash is not None and item.raw_hash != old.raw_hash
    return ItemWrite(WriteKind.SEEN, item, ident, was=old.categories, refresh=refresh)


def _shown(change: Change, articles: Mapping[str, Article]) -> Change:
    """A new post with a page read for it is shown with its article; detection stays on the
    feed's own text, so page furniture never becomes an edit."""
    article = articles.get(change.item.key)
    if change.kind is ChangeKind.NEW and article is not None:
        return replace(change, item=with_article(change.item, article))
    return change
