"""One poll of one feed, for storage: everything the plan needs read in one call, and the plan
executed in one call (`core/polls/plan.py` decides; nothing here does)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import bindparam, func
from sqlalchemy import select as sa_select
from sqlmodel import Session

from bot.core.detection.identity import identity_of
from bot.core.polls.decide import FeedState
from bot.core.polls.plan import Known, PollPlan
from bot.core.types import Identity, RawEntry, Reader, StoredItem
from bot.db.store.articles import save_articles
from bot.db.store.feedstate import apply_intent, feed_states
from bot.db.store.items import (
    identity_candidates,
    item_ids,
    newest_stored,
    prune_items,
    rekey_items,
    stored_items,
    write_items,
)
from bot.db.store.modeltexts import model_texts, prune_model_texts, save_model_texts
from bot.db.store.outbox import OutboxRow, enqueue
from bot.db.store.statements import columns, run, table
from bot.db.store.subscriptions import feed_audience
from bot.db.tables import Item

_ITEM = table(Item)
_OF_FEED = _ITEM.c.feed_id == bindparam("b_feed")

# The keys of the last parsed document: every item it showed was touched with that poll's time.
_LAST_SEEN = sa_select(func.max(_ITEM.c.last_seen_at)).where(_OF_FEED).scalar_subquery()
_LAST_SHOWN = sa_select(_ITEM.c.key).where(_OF_FEED, _ITEM.c.last_seen_at == _LAST_SEEN)

# The model's cache keys that unseen entries may need for this audience ([] when the model is
# off or no chat asks for it): given by the poll service, which knows the model and prompt.
ModelKeys = Callable[[FeedState, Sequence[RawEntry], Sequence[Reader]], list[str]]


def read_poll(
    session: Session,
    *,
    feed_id: int,
    entries: Sequence[RawEntry] = (),
    model_keys: ModelKeys | None = None,
) -> Known | None:
    """The feed's row and what is stored about the document's `entries` (None: the feed was
    removed). Candidates for re-keying are looked up only for unseen entries of a feed past
    its baseline, the feed's newest item only when none of the document's keys is stored,
    the model's stored answers only when some chat asks for them."""
    found = feed_states(session, feed_id=feed_id)
    if not found:
        return None
    feed = found[0]
    if not entries:
        return Known(feed, audience=feed_audience(session, feed_id=feed_id))
    stored = stored_items(session, feed_id=feed_id, keys=[e.key for e in entries])
    unseen = [e for e in entries if e.key not in stored]
    audience = feed_audience(session, feed_id=feed_id)
    texts = {}
    if model_keys is not None and feed.baseline_done and unseen:
        keys = model_keys(feed, unseen, audience)
        texts = model_texts(session, keys=keys) if keys else {}
    candidates, dropped = [], None
    if feed.baseline_done and unseen and stored:
        dropped = dropped_out(session, feed_id=feed_id, present=[e.key for e in entries])
    if feed.baseline_done and unseen:
        candidates = identity_candidates(
            session,
            feed_id=feed_id,
            identities=[identity_of(e.key, e.link, e.title, e.published) for e in unseen],
            present=[e.key for e in entries],
        )
    has_stored, newest = bool(stored), None
    if feed.baseline_done and not stored:
        has_stored, newest = newest_stored(session, feed_id=feed_id)
    return Known(
        feed,
        stored,
        candidates,
        has_stored,
        newest,
        audience=audience,
        dropped=dropped,
        model_texts=texts,
    )


# The rows of the items the feed's last parsed document showed, by the hash of the bytes they
# were read from: all a poll needs to take an unchanged item for its row (core/feeds/changed.py).
_SHOWN = columns(
    Item,
    "raw_hash key title link author published_at categories content_hash image full"
    " excerpt_hash fingerprint_version canon_key canon_link canon_title",
)
_SELECT_SHOWN = sa_select(*_SHOWN).where(
    _OF_FEED, _ITEM.c.raw_hash.is_not(None), _ITEM.c.last_seen_at == _LAST_SEEN
)


def shown_items(session: Session, *, feed_id: int) -> dict[str, StoredItem]:
    """The items of the feed's last parsed document whose bytes are known, by their hash
    (every item a document shows is touched with that poll's time). No text: an item found
    here again is seen, never compared."""
    found: dict[str, StoredItem] = {}
    for found_row in run(session, _SELECT_SHOWN, {"b_feed": feed_id}):
        row: Sequence[Any] = tuple(found_row)
        raw, key, title, link, author, published, cats, hashed, image, full, ex, version = row[:12]
        found[raw] = StoredItem(
            key,
            title,
            "",
            "",
            hashed,
            version,
            link=link,
            published=published,
            identity=Identity(row[12] or "", row[13], row[14]),
            full=full,
            excerpt_hash=ex,
            categories=tuple(cats or ()),
            raw_hash=raw,
            author=author,
            image=image,
        )
    return found


def dropped_out(session: Session, *, feed_id: int, present: Iterable[str]) -> int:
    """How many items of the feed's last parsed document are absent from this one (0: the
    document only grew, as a feed listing every post does)."""
    shown = {row[0] for row in run(session, _LAST_SHOWN, {"b_feed": feed_id})}
    return len(shown - set(present))


def write_poll(session: Session, *, plan: PollPlan, rows: Sequence[OutboxRow] = ()) -> bool:
    """Execute the plan in the caller's transaction: the feed row first (which releases its
    lease, and says whether the feed still exists: it was read outside this transaction, and
    one removed meanwhile gets nothing written: False), re-keys, item rows, articles, the
    model's answers, the messages (`rows` about this poll's posts name them by `item_key`:
    their ids exist only now), and pruning."""
    feed_id, now = plan.feed.id, plan.intent.checked_at
    if not apply_intent(
        session,
        feed_id=feed_id,
        intent=plan.intent,
        title=plan.title,
        alert=plan.alert,
        churn_polls=plan.churn.polls if plan.churn is not None else None,
        excerpt_only=plan.excerpt_only,
    ):
        return False
    if plan.rekeys:
        rekey_items(session, feed_id=feed_id, moves=[(r.old_key, r.new_key) for r in plan.rekeys])
    if plan.writes:
        write_items(session, feed_id=feed_id, writes=plan.writes, now=now)
    if plan.articles:
        save_articles(session, feed_id=feed_id, articles=plan.articles, now=now)
    if plan.model_texts:
        save_model_texts(session, feed_id=feed_id, texts=plan.model_texts, now=now)
    if rows:
        ids = item_ids(session, feed_id=feed_id, keys=[r.item_key for r in rows if r.item_key])
        enqueue(
            session,
            rows=[replace(r, item_id=ids[r.item_key]) if r.item_key else r for r in rows],
        )
    if plan.prune_texts is not None:
        prune_model_texts(session, feed_id=feed_id, before=plan.prune_texts)
    if plan.prune is not None:
        prune_items(
            session,
            feed_id=feed_id,
            unseen_since=plan.prune.unseen_since,
            keep=plan.prune.keep,
            seen_at=plan.prune.seen_at,
        )
    return True
