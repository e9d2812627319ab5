"""What a chat follows, and how, as use cases: subscribe (within the per-chat limit), leave,
the latest posts after subscribing, filters, keywords and every per-subscription switch.
Each returns what happened as a value (`Subscribed`, a bool for "the chat follows that feed");
handlers turn it into the chat's sentence."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.messages.digest import DigestSchedule
from bot.core.modes import AnyMode, Mode
from bot.core.rules.fields import reason
from bot.core.rules.filters import unknown_categories
from bot.core.rules.leaving import Keeping
from bot.core.types import CategoryFilter, FeedInfo, KeywordFilter, ParsedItem, Reader
from bot.db import store
from bot.db.store import FeedView
from bot.runtime.clock import Clock, utcnow
from bot.services import run
from bot.services.cpu import check_off_loop
from bot.services.outbox import plan_backlog


class Subscribed(StrEnum):
    ADDED = "added"
    RESTORED = "restored"  # followed again, with the settings it had when the chat left
    HAD = "had"  # the chat followed the feed already
    LIMIT = "limit"  # the chat follows as many feeds as it may


@dataclass(frozen=True, slots=True)
class Left:
    """What leaving did: how many subscriptions ended, and when (what an Undo names)."""

    count: int
    at: datetime


@dataclass(frozen=True, slots=True)
class FilterSet:
    subscribed: bool  # False: the chat does not follow the feed; nothing changed
    unknown: tuple[str, ...] = ()  # categories the feed was never seen to use


@dataclass(frozen=True, slots=True)
class DigestSet:
    subscribed: bool
    zone: str = "UTC"  # the chat's time zone, which a daily time is in


@dataclass(frozen=True, slots=True)
class Overview:
    """What /list shows, read at once: the chat's subscriptions (by feed name) and its own
    switches."""

    subscriptions: list[tuple[Reader, FeedView]]
    paused: bool = False
    translate: bool = False
    quiet: str | None = None
    digests: dict[int, DigestSchedule] = field(default_factory=dict)  # by feed id
    timezone: str = "UTC"
    language: str | None = None  # None: not chosen (the user's own, or English)
    rules: tuple[str, ...] = ()  # /filter all …
    weights: tuple[store.Weight, ...] = ()  # what its 👍 and 👎 taught (/tuning reset)
    muted: tuple[tuple[str, datetime], ...] = ()  # feeds a 👎 muted, until when
    duplicates: str = "fold"  # /duplicates: a repeated story folded, or a quiet reply
    digest_top: int | None = None  # /digest all … top N: one ranked digest for every feed


@dataclass(frozen=True, slots=True)
class FilterTest:
    """The filter test: the chat's subscription as the fan-out sees it (None: the chat does
    not follow the feed), and the feed's latest posts each with the rule that stops it (None:
    it would arrive)."""

    reader: Reader | None
    verdicts: tuple[tuple[ParsedItem, str | None], ...] = ()


class Subscriptions:
    def __init__(
        self,
        engine: Engine,
        *,
        max_per_chat: int,
        clock: Clock = utcnow,
        keeping: Keeping | None = None,
    ) -> None:
        self.engine, self.max_per_chat, self.clock = engine, max_per_chat, clock
        self.keeping = keeping or Keeping()

    async def overview(self, chat_id: int) -> Overview:
        def work(session: Session) -> Overview:
            return Overview(
                store.chat_subscriptions(session, chat_id=chat_id),
                paused=store.is_paused(session, chat_id=chat_id),
                translate=store.chat_translates(session, chat_id=chat_id),
                quiet=store.chat_quiet(session, chat_id=chat_id),
                digests=store.chat_digests(session, chat_id=chat_id),
                timezone=store.chat_timezone(session, chat_id=chat_id),
                language=store.chat_language(session, chat_id=chat_id)[1],
                rules=store.chat_rules(session, chat_id=chat_id),
                weights=tuple(store.weights(session, chat_id=chat_id)),
                muted=tuple(store.muted(session, chat_id=chat_id, now=utcnow())),
                duplicates=store.chat_duplicates(session, chat_id=chat_id),
                digest_top=store.chat_digest_top(session, chat_id=chat_id),
            )

        return await run.read(self.engine, work)

    async def filter_test(self, chat_id: int, feed_id: int, count: int) -> FilterTest:
        """The feed's latest `count` posts judged by this chat's filters, keywords and rules,
        off the event loop (`cpu.check_off_loop`): 20 rules on 20 long posts is real work."""

        def work(session: Session) -> tuple[Reader | None, list[ParsedItem]]:
            reader = store.get_subscription(session, chat_id=chat_id, feed_id=feed_id)
            if reader is None:
                return None, []
            items = store.latest_items(session, feed_id=feed_id, limit=count)
            rules = store.chat_rules(session, chat_id=chat_id)
            return replace(reader, chat_rules=rules), [item for _, item in items]

        reader, items = await run.read(self.engine, work)
        if reader is None:
            return FilterTest(None)
        return FilterTest(reader, await check_off_loop(_verdicts, reader, items))

    async def subscribe(self, chat_id: int, feed_id: int, thread_id: int | None) -> Subscribed:
        """Follow a feed (in a forum topic: there), unless the chat is at its limit (checked in
        the same transaction, so two commands at once cannot both pass). A subscription the
        chat left within the keeping time comes back with its settings."""
        kept_since = self.keeping.kept_since(self.clock())

        def work(session: Session) -> Subscribed:
            if store.count_subscriptions(session, chat_id=chat_id) >= self.max_per_chat:
                return Subscribed.LIMIT
            if store.rejoin(
                session, chat_id=chat_id, feed_id=feed_id, thread_id=thread_id, since=kept_since
            ):
                return Subscribed.RESTORED
            added = store.subscribe(session, chat_id=chat_id, feed_id=feed_id, thread_id=thread_id)
            return Subscribed.ADDED if added else Subscribed.HAD

        return await run.write(self.engine, work)

    async def unsubscribe(self, chat_id: int, feed_id: int | None) -> Left:
        """Leave one feed (None: every feed); the settings are kept (core/rules/leaving.py)."""
        now = self.clock()
        count = await run.write(
            self.engine, lambda s: store.unsubscribe(s, chat_id=chat_id, feed_id=feed_id, now=now)
        )
        return Left(count, now)

    async def queue_backlog(self, chat_id: int, feed_id: int, count: int) -> int:
        """Queue the newest `count` posts (oldest of them first) this chat has not had yet."""
        now = self.clock()
        return await run.write(self.engine, lambda s: _backlog(s, chat_id, feed_id, count, now))

    async def set_filter(
        self,
        chat_id: int,
        feed_id: int,
        flt: CategoryFilter | None,
        rules: list[str] | None,
        *,
        clear: bool = False,
    ) -> FilterSet:
        """Categories (`flt`) or field rules (`rules`); `clear` (`/filter off`) ends both."""

        def work(session: Session) -> FilterSet:
            ok = True
            if flt is not None or clear:
                cleared = flt if flt is not None else CategoryFilter()
                ok = store.set_filter(session, chat_id=chat_id, feed_id=feed_id, flt=cleared)
            if rules is not None or clear:
                ok = store.set_rules(session, chat_id=chat_id, feed_id=feed_id, rules=rules) and ok
            if not ok or flt is None:
                return FilterSet(ok)
            known = [name for name, _n in store.category_counts(session, feed_id=feed_id)]
            return FilterSet(ok, tuple(unknown_categories(flt, known)))

        return await run.write(self.engine, work)

    async def set_keywords(self, chat_id: int, feed_id: int, words: KeywordFilter) -> bool:
        return await run.write(
            self.engine,
            lambda s: store.set_keywords(s, chat_id=chat_id, feed_id=feed_id, words=words),
        )

    async def set_mode(self, chat_id: int, feed_id: int, value: AnyMode) -> bool:
        """Any mode's value (`core/modes.py`): `/format FEED full`, `/edits FEED off`…"""
        return await run.write(
            self.engine,
            lambda s: store.set_mode(s, chat_id=chat_id, feed_id=feed_id, value=value),
        )

    async def set_digest(
        self, chat_id: int, feed_id: int, schedule: DigestSchedule | None
    ) -> DigestSet:
        """A digest schedule (None: every post at once); its first period starts now."""
        now: datetime = self.clock()

        def work(session: Session) -> DigestSet:
            if not store.set_digest(
                session, chat_id=chat_id, feed_id=feed_id, schedule=schedule, now=now
            ):
                return DigestSet(False)
            return DigestSet(True, store.chat_timezone(session, chat_id=chat_id))

        return await run.write(self.engine, work)

    async def set_digest_all(
        self, chat_id: int, schedule: DigestSchedule | None, top: int
    ) -> tuple[int, str]:
        """/digest all: every feed on `schedule`, one ranked digest of `top` posts first (None:
        every post at once); (how many feeds, the chat's zone)."""
        now: datetime = self.clock()
        work = functools.partial(store.set_digest_all, schedule=schedule, top=top, now=now)
        return await run.write(self.engine, lambda s: work(s, chat_id=chat_id))

    async def toggle(self, chat_id: int, feed_id: int, mode: Mode) -> bool:
        """Press a mode's switch under /list (edits on/off; previews image → link → off);
        False: not followed."""
        return await run.write(
            self.engine,
            lambda s: store.toggle_mode(s, chat_id=chat_id, feed_id=feed_id, mode=mode),
        )


def _verdicts(reader: Reader, items: list[ParsedItem]) -> tuple[tuple[ParsedItem, str | None], ...]:
    return tuple((item, reason(reader, item)) for item in items)


def _backlog(session: Session, chat_id: int, feed_id: int, count: int, now: datetime) -> int:
    if count <= 0:
        return 0
    reader = store.get_subscription(session, chat_id=chat_id, feed_id=feed_id)
    feed = store.feed_by_id(session, feed_id=feed_id)
    if reader is None or feed is None:
        return 0
    latest = store.latest_items(session, feed_id=feed_id, limit=count)
    had = store.delivered_item_ids(session, chat_id=chat_id, item_ids=[i for i, _ in latest])
    fresh = [(item_id, item) for item_id, item in reversed(latest) if item_id not in had]
    _known, language = store.chat_language(session, chat_id=chat_id)
    zone = store.chat_timezone(session, chat_id=chat_id)
    reader = replace(reader, language=language, timezone=zone)
    info = FeedInfo(slug=feed.slug, title=feed.title)
    rows = plan_backlog(fresh, reader, info, feed_id, now)
    store.enqueue(session, rows=rows)
    return len(rows)
