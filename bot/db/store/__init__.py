"""Storage, split by domain (as in lemon24/reader's `_storage`): keyword-only functions that take
a session and never commit (the caller owns the transaction: one per feed poll, one per
command), returning value objects (core types or the small ones defined here), never ORM rows.

- `feeds`: the catalog of feeds
- `feedstate`: each feed's poll state, on the Core table (a quiet poll loads no ORM)
- `items`: what feeds published; per-feed category counts
- `polls`: one poll of one feed: read what its plan needs, execute the plan
- `articles`: what full-text feeds' post pages gave
- `search`: every version of each post, and /search over them (FTS5, tsvector)
- `telegraph`: long posts' Telegraph pages, and the account's token
- `modeltexts`: what the operator's language model wrote, and who asks for it
- `chats`: chats and their own settings
- `subscriptions`: who follows what, with which filters; the fan-out's audience
- `leaving`: subscriptions left but kept a while (Undo, settings back on resubscribe)
- `outbox`: queued messages, from enqueue to sent
- `stories`: each new post's message in a chat, for the cross-feed duplicate check
- `ranked`: the ranked digest across a chat's feeds taking its held posts
- `tuning`: what a chat's reactions taught (weights, a feed muted for a day)
- `follows`: posts chats follow, and what their pages said when last read
- `withdrawals`: withdrawal checks of posts that left their feed from between others
- `leases`: which process polls a feed or delivers to a chat
- `state`: small cross-process facts
- `budget`: the Telegram rate budget and the model's hourly shares, shared by every process
- `statements`: how the poll's hot path runs SQL (statements built once, with bind parameters)

A new query goes in the module of the table it reads or writes, and is re-exported here (the
import below for the type checker, and `EXPORTS`); one that every poll runs is built once at
import and run with `statements.run`.

Importing the package loads none of its modules: `store.name` imports the module that holds
`name` on first use (`__getattr__`). A quiet `poll --once` then loads the feeds' and leases'
queries, not the items', the search index's or the outbox's and the core they need: start-up
is most of a cron poll's CPU (issue 48). `tests/db/test_store_exports.py` keeps the imports
and `EXPORTS` in step.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.db.store.articles import articles_of as articles_of
    from bot.db.store.articles import known_keys as known_keys
    from bot.db.store.articles import save_articles as save_articles
    from bot.db.store.articles import set_full_text as set_full_text
    from bot.db.store.articles import toggle_full_text as toggle_full_text
    from bot.db.store.budget import reserve as reserve
    from bot.db.store.budget import spend_model_calls as spend_model_calls
    from bot.db.store.chats import chat_language as chat_language
    from bot.db.store.chats import chat_quiet as chat_quiet
    from bot.db.store.chats import chat_rules as chat_rules
    from bot.db.store.chats import chat_timezone as chat_timezone
    from bot.db.store.chats import ensure_private_chat as ensure_private_chat
    from bot.db.store.chats import is_paused as is_paused
    from bot.db.store.chats import managed_chat as managed_chat
    from bot.db.store.chats import migrate_chat as migrate_chat
    from bot.db.store.chats import set_chat_active as set_chat_active
    from bot.db.store.chats import set_chat_rules as set_chat_rules
    from bot.db.store.chats import set_managing as set_managing
    from bot.db.store.chats import set_paused as set_paused
    from bot.db.store.chats import set_quiet as set_quiet
    from bot.db.store.chats import set_timezone as set_timezone
    from bot.db.store.chats import upsert_chat as upsert_chat
    from bot.db.store.feeds import FeedListing as FeedListing
    from bot.db.store.feeds import FeedView as FeedView
    from bot.db.store.feeds import add_feed as add_feed
    from bot.db.store.feeds import all_feeds as all_feeds
    from bot.db.store.feeds import count_feeds as count_feeds
    from bot.db.store.feeds import feed_by_id as feed_by_id
    from bot.db.store.feeds import get_feed as get_feed
    from bot.db.store.feeds import get_feed_by_url as get_feed_by_url
    from bot.db.store.feeds import list_feeds as list_feeds
    from bot.db.store.feeds import move_feed as move_feed
    from bot.db.store.feeds import remove_feed as remove_feed
    from bot.db.store.feeds import rename_feed as rename_feed
    from bot.db.store.feeds import set_feed_edits as set_feed_edits
    from bot.db.store.feeds import set_interval as set_interval
    from bot.db.store.feedstate import apply_intent as apply_intent
    from bot.db.store.feedstate import feed_states as feed_states
    from bot.db.store.feedstate import mark_feeds_checked as mark_feeds_checked
    from bot.db.store.items import category_counts as category_counts
    from bot.db.store.items import identity_candidates as identity_candidates
    from bot.db.store.items import item_ids as item_ids
    from bot.db.store.items import latest_items as latest_items
    from bot.db.store.items import newest_stored as newest_stored
    from bot.db.store.items import prune_items as prune_items
    from bot.db.store.items import rekey_items as rekey_items
    from bot.db.store.items import stored_items as stored_items
    from bot.db.store.items import write_items as write_items
    from bot.db.store.leases import claim_chats as claim_chats
    from bot.db.store.leases import claim_feeds as claim_feeds
    from bot.db.store.leases import pacing_counts as pacing_counts
    from bot.db.store.leases import release_chats as release_chats
    from bot.db.store.leases import release_leases as release_leases
    from bot.db.store.leases import renew_chat as renew_chat
    from bot.db.store.leases import renew_chats as renew_chats
    from bot.db.store.leaving import forget_left as forget_left
    from bot.db.store.leaving import left_since as left_since
    from bot.db.store.leaving import rejoin as rejoin
    from bot.db.store.leaving import restore as restore
    from bot.db.store.modeltexts import chat_translates as chat_translates
    from bot.db.store.modeltexts import model_texts as model_texts
    from bot.db.store.modeltexts import prune_model_texts as prune_model_texts
    from bot.db.store.modeltexts import save_model_texts as save_model_texts
    from bot.db.store.modeltexts import set_translate as set_translate
    from bot.db.store.outbox import HeldItem as HeldItem
    from bot.db.store.outbox import OutboxRow as OutboxRow
    from bot.db.store.outbox import Queued as Queued
    from bot.db.store.outbox import QuietChat as QuietChat
    from bot.db.store.outbox import SentMark as SentMark
    from bot.db.store.outbox import cancel_queued as cancel_queued
    from bot.db.store.outbox import delivered_item_ids as delivered_item_ids
    from bot.db.store.outbox import enqueue as enqueue
    from bot.db.store.outbox import held_for as held_for
    from bot.db.store.outbox import hold_delivery as hold_delivery
    from bot.db.store.outbox import mark_digested as mark_digested
    from bot.db.store.outbox import mark_failed as mark_failed
    from bot.db.store.outbox import mark_retry as mark_retry
    from bot.db.store.outbox import mark_sent as mark_sent
    from bot.db.store.outbox import next_due_delivery as next_due_delivery
    from bot.db.store.outbox import original_message_id as original_message_id
    from bot.db.store.outbox import pending_by_chat as pending_by_chat
    from bot.db.store.outbox import pending_count as pending_count
    from bot.db.store.outbox import quiet_chats as quiet_chats
    from bot.db.store.outbox import quiet_held_ids as quiet_held_ids
    from bot.db.store.outbox import release_held as release_held
    from bot.db.store.outbox import told_about as told_about
    from bot.db.store.polls import ModelKeys as ModelKeys
    from bot.db.store.polls import read_poll as read_poll
    from bot.db.store.polls import shown_items as shown_items
    from bot.db.store.polls import write_poll as write_poll
    from bot.db.store.ranked import chat_digest_top as chat_digest_top
    from bot.db.store.ranked import take_held as take_held
    from bot.db.store.search import DEFERRED as DEFERRED
    from bot.db.store.search import index_versions as index_versions
    from bot.db.store.search import record_versions as record_versions
    from bot.db.store.search import search_posts as search_posts
    from bot.db.store.state import get_state as get_state
    from bot.db.store.state import set_state as set_state
    from bot.db.store.stories import DUPLICATE_MODES as DUPLICATE_MODES
    from bot.db.store.stories import FOLD as FOLD
    from bot.db.store.stories import SHOW as SHOW
    from bot.db.store.stories import ChatStories as ChatStories
    from bot.db.store.stories import NewStory as NewStory
    from bot.db.store.stories import Repeat as Repeat
    from bot.db.store.stories import SentStory as SentStory
    from bot.db.store.stories import Told as Told
    from bot.db.store.stories import add_also as add_also
    from bot.db.store.stories import add_stories as add_stories
    from bot.db.store.stories import chat_duplicates as chat_duplicates
    from bot.db.store.stories import chat_stories as chat_stories
    from bot.db.store.stories import edits_replying as edits_replying
    from bot.db.store.stories import find_repeat as find_repeat
    from bot.db.store.stories import primed as primed
    from bot.db.store.stories import repeat_of as repeat_of
    from bot.db.store.stories import set_duplicates as set_duplicates
    from bot.db.store.subscriptions import DigestSubscription as DigestSubscription
    from bot.db.store.subscriptions import FeedName as FeedName
    from bot.db.store.subscriptions import audience as audience
    from bot.db.store.subscriptions import chat_digests as chat_digests
    from bot.db.store.subscriptions import chat_feed_names as chat_feed_names
    from bot.db.store.subscriptions import chat_subscriptions as chat_subscriptions
    from bot.db.store.subscriptions import count_subscriptions as count_subscriptions
    from bot.db.store.subscriptions import digest_sent as digest_sent
    from bot.db.store.subscriptions import digest_subscriptions as digest_subscriptions
    from bot.db.store.subscriptions import feed_audience as feed_audience
    from bot.db.store.subscriptions import get_subscription as get_subscription
    from bot.db.store.subscriptions import set_digest as set_digest
    from bot.db.store.subscriptions import set_digest_all as set_digest_all
    from bot.db.store.subscriptions import set_filter as set_filter
    from bot.db.store.subscriptions import set_keywords as set_keywords
    from bot.db.store.subscriptions import set_mode as set_mode
    from bot.db.store.subscriptions import set_rules as set_rules
    from bot.db.store.subscriptions import subscribe as subscribe
    from bot.db.store.subscriptions import toggle_mode as toggle_mode
    from bot.db.store.subscriptions import unsubscribe as unsubscribe
    from bot.db.store.telegraph import StoredPage as StoredPage
    from bot.db.store.telegraph import forget_telegraph_token as forget_telegraph_token
    from bot.db.store.telegraph import keep_telegraph_token as keep_telegraph_token
    from bot.db.store.telegraph import save_telegraph_pages as save_telegraph_pages
    from bot.db.store.telegraph import telegraph_pages as telegraph_pages
    from bot.db.store.telegraph import telegraph_token as telegraph_token
    from bot.db.store.tuning import CATEGORY as CATEGORY
    from bot.db.store.tuning import FEED as FEED
    from bot.db.store.tuning import Reacted as Reacted
    from bot.db.store.tuning import Weight as Weight
    from bot.db.store.tuning import delivery_post as delivery_post
    from bot.db.store.tuning import feed_weights as feed_weights
    from bot.db.store.tuning import move as move
    from bot.db.store.tuning import mute as mute
    from bot.db.store.tuning import muted as muted
    from bot.db.store.tuning import reacted_post as reacted_post
    from bot.db.store.tuning import reset_tuning as reset_tuning
    from bot.db.store.tuning import subscription_keywords as subscription_keywords
    from bot.db.store.tuning import tune as tune
    from bot.db.store.tuning import weights as weights

EXPORTS: dict[str, tuple[str, ...]] = {
    "articles": ("articles_of", "known_keys", "save_articles", "set_full_text", "toggle_full_text"),
    "budget": ("reserve", "spend_model_calls"),
    "chats": (
        "chat_language",
        "chat_quiet",
        "chat_rules",
        "chat_timezone",
        "ensure_private_chat",
        "is_paused",
        "managed_chat",
        "migrate_chat",
        "set_chat_active",
        "set_chat_rules",
        "set_managing",
        "set_paused",
        "set_quiet",
        "set_timezone",
        "upsert_chat",
    ),
    "feeds": (
        "FeedListing",
        "FeedView",
        "add_feed",
        "all_feeds",
        "count_feeds",
        "feed_by_id",
        "get_feed",
        "get_feed_by_url",
        "list_feeds",
        "move_feed",
        "remove_feed",
        "rename_feed",
        "set_feed_edits",
        "set_interval",
    ),
    "feedstate": ("apply_intent", "feed_states", "mark_feeds_checked"),
    "items": (
        "category_counts",
        "identity_candidates",
        "item_ids",
        "latest_items",
        "newest_stored",
        "prune_items",
        "rekey_items",
        "stored_items",
        "write_items",
    ),
    "leases": (
        "claim_chats",
        "claim_feeds",
        "pacing_counts",
        "release_chats",
        "release_leases",
        "renew_chat",
        "renew_chats",
    ),
    "leaving": ("forget_left", "left_since", "rejoin", "restore"),
    "modeltexts": (
        "chat_translates",
        "model_texts",
        "prune_model_texts",
        "save_model_texts",
        "set_translate",
    ),
    "outbox": (
        "HeldItem",
        "OutboxRow",
        "Queued",
        "QuietChat",
        "SentMark",
        "cancel_queued",
        "delivered_item_ids",
        "enqueue",
        "held_for",
        "hold_delivery",
        "mark_digested",
        "mark_failed",
        "mark_retry",
        "mark_sent",
        "next_due_delivery",
        "original_message_id",
        "pending_by_chat",
        "pending_count",
        "quiet_chats",
        "quiet_held_ids",
        "release_held",
        "told_about",
    ),
    "polls": ("ModelKeys", "read_poll", "shown_items", "write_poll"),
    "ranked": ("chat_digest_top", "take_held"),
    "search": ("DEFERRED", "index_versions", "record_versions", "search_posts"),
    "state": ("get_state", "set_state"),
    "stories": (
        "DUPLICATE_MODES",
        "FOLD",
        "SHOW",
        "ChatStories",
        "NewStory",
        "Repeat",
        "SentStory",
        "Told",
        "add_also",
        "add_stories",
        "chat_duplicates",
        "chat_stories",
        "edits_replying",
        "find_repeat",
        "primed",
        "repeat_of",
        "set_duplicates",
    ),
    "subscriptions": (
        "DigestSubscription",
        "FeedName",
        "audience",
        "chat_digests",
        "chat_feed_names",
        "chat_subscriptions",
        "count_subscriptions",
        "digest_sent",
        "digest_subscriptions",
        "feed_audience",
        "get_subscription",
        "set_digest",
        "set_digest_all",
        "set_filter",
        "set_keywords",
        "set_mode",
        "set_rules",
        "subscribe",
        "toggle_mode",
        "unsubscribe",
    ),
    "telegraph": (
        "StoredPage",
        "forget_telegraph_token",
        "keep_telegraph_token",
        "save_telegraph_pages",
        "telegraph_pages",
        "telegraph_token",
    ),
    "tuning": (
        "CATEGORY",
        "FEED",
        "Reacted",
        "Weight",
        "delivery_post",
        "feed_weights",
        "move",
        "mute",
        "muted",
        "reacted_post",
        "reset_tuning",
        "subscription_keywords",
        "tune",
        "weights",
    ),
}
_HOME = {name: module for module, names in EXPORTS.items() for name in names}


if not TYPE_CHECKING:  # the type checker sees the imports above, and flags unknown names

    def __getattr__(name: str) -> object:
        """`store.name`: the module that holds it, imported on first use."""
        module = _HOME.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # later lookups find it without this function
        return value
