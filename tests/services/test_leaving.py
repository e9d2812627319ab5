"""Coming back after leaving (issue 43, item 3), as services on both databases: Undo restores
while it works and while the chat has room, restores only what was left together, and
housekeeping forgets what was left longer ago than the settings are kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.rules.leaving import Keeping, stamp
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Subscription
from bot.services.chats import ChatCard, Chats
from bot.services.leaving import Returns, Undone, forget_left
from bot.services.subscribing import Subscribed, Subscriptions

CHAT = 41
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
KEEP = Keeping(undo_minutes=10, keep_days=30)


def feeds(engine: Engine, count: int) -> list[int]:
    with transaction(engine) as session:
        ids = [
            store.add_feed(
                session, slug=f"f{n}", url=f"https://e.org/{n}", title=f"Feed {n}", trusted=True
            ).id
            for n in range(count)
        ]
    return [i for i in ids if i is not None]


async def test_undo_works_for_a_while_within_the_chats_limit(engine: Engine) -> None:
    first, second, third = feeds(engine, 3)
    await Chats(engine).remember(ChatCard(CHAT, "private", "Ada", "en"))
    clock = [NOW]
    subs = Subscriptions(engine, max_per_chat=2, clock=lambda: clock[0], keeping=KEEP)
    returns = Returns(engine, max_per_chat=2, keeping=KEEP, clock=lambda: clock[0])
    for feed in (first, second):
        assert await subs.subscribe(CHAT, feed, None) is Subscribed.ADDED
    left = await subs.unsubscribe(CHAT, None)
    assert (left.count, left.at) == (2, NOW)
    assert await subs.subscribe(CHAT, third, None) is Subscribed.ADDED  # room was made
    clock[0] = NOW + timedelta(minutes=9)
    assert await returns.undo(CHAT, None, stamp(left.at)) is Undone.LIMIT  # 1 + 2 > 2
    assert await returns.undo(CHAT, second) is Undone.DONE  # one of them fits
    assert await returns.undo(CHAT, second) is Undone.EXPIRED  # nothing left to undo
    clock[0] = NOW + timedelta(minutes=11)
    assert await subs.unsubscribe(CHAT, third) == type(left)(1, clock[0])
    assert await returns.undo(CHAT, first) is Undone.EXPIRED  # left 11 minutes ago
    assert await returns.undo(CHAT, None, stamp(NOW)) is Undone.EXPIRED
    assert await returns.undo(CHAT, None, stamp(clock[0])) is Undone.DONE  # only `third`
    seen = await subs.overview(CHAT)
    assert sorted(feed.slug for _, feed in seen.subscriptions) == ["f1", "f2"]
    assert await subs.subscribe(CHAT, first, None) is Subscribed.LIMIT


async def test_housekeeping_forgets_left_rows_past_the_keeping_time(engine: Engine) -> None:
    first, second = feeds(engine, 2)
    subs = Subscriptions(engine, max_per_chat=5, clock=lambda: NOW, keeping=KEEP)
    for feed in (first, second):
        await subs.subscribe(CHAT, feed, None)
    await subs.unsubscribe(CHAT, first)
    assert await forget_left(engine, KEEP, NOW + timedelta(days=29)) == 0
    assert await subs.subscribe(CHAT, first, None) is Subscribed.RESTORED
    await subs.unsubscribe(CHAT, first)
    assert await forget_left(engine, KEEP, NOW + timedelta(days=31)) == 1
    with Session(engine) as session:
        rows = session.exec(select(Subscription)).all()
        assert [(row.feed_id, row.left_at) for row in rows] == [(second, None)]
    assert await subs.subscribe(CHAT, first, None) is Subscribed.ADDED
