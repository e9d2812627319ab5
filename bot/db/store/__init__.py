"""Storage, split by domain (as in lemon24/reader's `_storage`): keyword-only functions that take
a session and never commit (the caller owns the transaction: one per feed poll, one per
command), returning value objects, never ORM rows.

- `feeds`: the catalog of feeds and each feed's poll state
- `items`: what feeds published; per-feed category counts
- `chats`: chats and their own settings
- `subscriptions`: who follows what, with which filters; the fan-out's audience
- `outbox`: queued messages, from enqueue to sent
- `leases`: which process polls a feed or delivers to a chat
- `state`: small cross-process facts
- `budget`: the Telegram rate budget shared by every process (PostgreSQL)

A new query goes in the module of the table it reads or writes, and is re-exported here.
"""

from bot.db.store.budget import reserve
from bot.db.store.chats import (
    chat_language,
    chat_timezone,
    ensure_private_chat,
    is_paused,
    migrate_chat,
    set_chat_active,
    set_paused,
    set_timezone,
    upsert_chat,
)
from bot.db.store.feeds import (
    FeedRow,
    FeedView,
    add_feed,
    apply_intent,
    feed_by_id,
    feed_snapshots,
    get_feed,
    get_feed_by_url,
    list_feeds,
    mark_feeds_checked,
    move_feed,
    remove_feed,
    set_interval,
)
from bot.db.store.items import (
    category_counts,
    latest_items,
    prune_items,
    save_items,
    stored_items,
)
from bot.db.store.leases import (
    claim_chats,
    claim_feeds,
    release_chats,
    release_leases,
    renew_chat,
)
from bot.db.store.outbox import (
    HeldItem,
    OutboxRow,
    cancel_queued,
    delivered_item_ids,
    enqueue,
    held_for,
    mark_digested,
    mark_failed,
    mark_retry,
    mark_sent,
    next_due_delivery,
    original_message_id,
    pending_by_chat,
    pending_count,
)
from bot.db.store.state import get_state, set_state
from bot.db.store.subscriptions import (
    DigestSubscription,
    audience,
    chat_subscriptions,
    count_subscriptions,
    digest_sent,
    digest_subscriptions,
    feed_audience,
    get_subscription,
    set_digest,
    set_edits,
    set_filter,
    set_keywords,
    set_preview_mode,
    set_silent,
    subscribe,
    toggle_edits,
    toggle_preview,
    unsubscribe,
)

__all__ = [
    "DigestSubscription",
    "FeedRow",
    "FeedView",
    "HeldItem",
    "OutboxRow",
    "add_feed",
    "apply_intent",
    "audience",
    "cancel_queued",
    "category_counts",
    "chat_language",
    "chat_subscriptions",
    "chat_timezone",
    "claim_chats",
    "claim_feeds",
    "count_subscriptions",
    "delivered_item_ids",
    "digest_sent",
    "digest_subscriptions",
    "enqueue",
    "ensure_private_chat",
    "feed_audience",
    "feed_by_id",
    "feed_snapshots",
    "get_feed",
    "get_feed_by_url",
    "get_state",
    "get_subscription",
    "held_for",
    "is_paused",
    "latest_items",
    "list_feeds",
    "mark_digested",
    "mark_failed",
    "mark_feeds_checked",
    "mark_retry",
    "mark_sent",
    "migrate_chat",
    "move_feed",
    "next_due_delivery",
    "original_message_id",
    "pending_by_chat",
    "pending_count",
    "prune_items",
    "release_chats",
    "release_leases",
    "remove_feed",
    "renew_chat",
    "reserve",
    "save_items",
    "set_chat_active",
    "set_digest",
    "set_edits",
    "set_filter",
    "set_interval",
    "set_keywords",
    "set_paused",
    "set_preview_mode",
    "set_silent",
    "set_state",
    "set_timezone",
    "stored_items",
    "subscribe",
    "toggle_edits",
    "toggle_preview",
    "unsubscribe",
    "upsert_chat",
]
