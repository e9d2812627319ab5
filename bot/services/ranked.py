"""The ranked digest across a chat's feeds (issue 46), run every housekeeping tick beside the
per-feed digests (`digests.py`), whose holding and schedules it reuses.

A chat with `/digest all daily 08:00 top N` has every feed on that digest schedule; when its
digests are due together, instead of one message per feed they become one ranked message
(core/messages/ranked.py). In three steps, so no transaction waits for the model:
1. read (no write lock): the chat's due digest subscriptions, their held posts, its weights;
   a chat in its quiet hours is left for a later tick (its digest stays due until then);
2. the opening paragraph: the operator's model within MODEL_TIMEOUT_SECONDS, kept only when
   every sentence passes `opening.accepted`, else the extractive one;
3. one write transaction a chat: its held posts taken compare-and-set (a digest another
   worker queued first wins: nothing twice), the digest queued as ordinary pending messages,
   so delivery, its order, retries and the Telegram budget apply as to any message.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.messages.digest import DIGEST_SUMMARY_COLUMNS, is_due, one_line
from bot.core.messages.header import post_name
from bot.core.messages.opening import accepted, extractive, prompt
from bot.core.messages.ranked import Candidate, Entry, Weights, rank, render_ranked
from bot.core.messages.summary import summarize
from bot.core.polls.duplicates import story_of
from bot.core.rules import quiet
from bot.core.rules.filters import keywords_match
from bot.core.types import KeywordFilter, MessageKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.store import DigestSubscription, HeldItem, OutboxRow
from bot.net.model_api import ModelError
from bot.runtime import metrics
from bot.runtime.clock import Clock, utcnow
from bot.runtime.i18n import translator
from bot.services.digests import zone
from bot.services.models import ModelWriter

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Due:
    """One chat's ranked digest, as read: its due subscriptions and their held posts."""

    chat_id: int
    top: int
    subs: list[DigestSubscription]
    held: list[tuple[DigestSubscription, HeldItem]]
    weights: Weights


async def run_ranked_digests(
    engine: Engine, models: ModelWriter | None = None, clock: Clock = utcnow
) -> int:
    """Queue every ranked digest that is due; return how many messages were queued."""
    now = clock()
    queued = 0
    for due in await asyncio.to_thread(read_due, engine, now):
        entries = rank(candidates(due), due.weights, now)
        language = due.subs[0].audience.language
        opening = await write_opening(models, entries[: due.top], language or "en")
        messages = render_ranked(entries, due.top, opening, translator(language))
        queued += await asyncio.to_thread(queue, engine, due, messages, now)
    return queued


def read_due(engine: Engine, now: datetime) -> list[Due]:
    """Step 1: the chats whose ranked digest is due now and not in their quiet hours."""
    found: list[Due] = []
    with Session(engine, expire_on_commit=False) as session:
        ranked = [d for d in store.digest_subscriptions(session) if d.top is not None]
        ranked.sort(key=lambda d: d.audience.chat_id)
        for chat_id, group in groupby(ranked, key=lambda d: d.audience.chat_id):
            subs = list(group)
            due = [d for d in subs if _due(d, now)]
            window = quiet.stored(subs[0].audience.quiet)
            if not due or (window is not None and window.holds(now, subs[0].timezone)):
                continue  # quiet hours: still due when the window ends
            held = [
                (d, h)
                for d in due
                for h in store.held_for(session, chat_id=chat_id, feed_id=d.audience.feed_id)
            ]
            taught = store.feed_weights(session, chat_id=chat_id)
            weights = Weights(
                {int(f): w for f, w in taught.get(store.FEED, {}).items() if f.isdigit()},
                taught.get(store.CATEGORY, {}),
            )
            found.append(Due(chat_id, due[0].top or 0, due, held, weights))
    return found


def _due(sub: DigestSubscription, now: datetime) -> bool:
    schedule = sub.schedule
    return is_due(schedule.mode, schedule.at, zone(sub.timezone), sub.last, now)


def candidates(due: Due) -> list[Candidate]:
    """The held posts as the ranking reads them, each post once (a post new and then edited
    in the period is one entry)."""
    words = tuple(dict.fromkeys(w for d in due.subs for w in d.audience.keywords.include))
    wanted = KeywordFilter(include=words)
    found: dict[int, Candidate] = {}
    for sub, held in due.held:
        if held.item_id in found:
            continue
        reader = sub.audience
        ruled = any(not r.startswith("-") for r in (*reader.rules, *reader.chat_rules))
        matched = ruled or (bool(words) and keywords_match(wanted, held.title, held.text))
        summary = summarize(held.html, held.text, limit=DIGEST_SUMMARY_COLUMNS, title=held.title)
        found[held.item_id] = Candidate(
            item_id=held.item_id,
            title=post_name(held.title, held.text, held.link),
            link=held.link,
            feed_id=reader.feed_id,
            feed_title=sub.feed_title,
            categories=held.categories,
            summary=one_line(summary),
            text=held.text,
            story=story_of(held.link, held.title, held.text),
            at=held.seen or sub.last,
            matched=matched,
        )
    return list(found.values())


async def write_opening(models: ModelWriter | None, top: Sequence[Entry], language: str) -> str:
    """Step 2: the model's paragraph when it passes every check, else the extractive one."""
    fallback = extractive(top, translator(language))
    if models is None or models.api is None or not top or not models.breaker.allows():
        return fallback
    messages = prompt(top, language)
    try:
        async with asyncio.timeout(models.settings.model_timeout_seconds):
            reply = await models.api.complete(messages)
    except (ModelError, TimeoutError) as exc:
        log.warning("ranked digest: %s; the opening is extractive", exc or "timed out")
        metrics.MODEL_FALLBACKS.inc()
        if models.breaker.failed():
            log.error("the model endpoint failed repeatedly: no calls for a while")
        return fallback
    models.breaker.worked()
    text = accepted(reply, top, messages[-1]["content"])
    if text is None:
        log.info("ranked digest: the model's opening cites or names what its posts do not")
        metrics.MODEL_FALLBACKS.inc()
        return fallback
    return text


def queue(engine: Engine, due: Due, messages: list[str], now: datetime) -> int:
    """Step 3: the chat's held posts taken and its digest queued, in one transaction."""
    ids = [h.delivery_id for _, h in due.held]
    with transaction(engine) as session:
        taken = store.take_held(session, delivery_ids=ids)
        if len(taken) < len(ids):  # another worker's digest took them first
            session.rollback()
            return 0
        for sub in due.subs:
            store.digest_sent(session, chat_id=due.chat_id, feed_id=sub.audience.feed_id, at=now)
        if not ids:
            return 0
        first, reader = due.held[0][1], due.subs[0].audience
        rows = [
            OutboxRow(
                chat_id=due.chat_id,
                feed_id=due.held[0][0].audience.feed_id,
                item_id=first.item_id,
                kind=MessageKind.DIGEST,
                text=text,
                silent=reader.silent,
                thread_id=reader.thread_id,
            )
            for text in messages
        ]
        store.enqueue(session, rows=rows)
    log.info("chat %s: ranked digest of %d posts queued", due.chat_id, len(ids))
    return len(rows)
