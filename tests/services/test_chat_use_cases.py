"""The chat use cases as services (issue 24), on both databases: subscribing within the
per-chat limit says which of three things happened, the backlog queues only what the chat has
not had, `/filter off` clears categories and rules at once, and /list reads in one call."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.modes import EDITS, Edits
from bot.core.types import CategoryFilter
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Delivery
from bot.services.chats import ChatCard, Chats
from bot.services.subscribing import Subscribed, Subscriptions

CHAT = 41


def feeds(engine: Engine, count: int) -> list[int]:
    with transaction(engine) as session:
        ids = [
            store.add_feed(
                session, slug=f"f{n}", url=f"https://e.org/{n}", title=f"Feed {n}", trusted=True
            ).id
            for n in range(count)
        ]
    return [i for i in ids if i is not None]


async def test_subscribing_says_added_had_or_limit(engine: Engine) -> None:
    first, second, third = feeds(engine, 3)
    await Chats(engine).remember(ChatCard(CHAT, "private", "Ada", "en"))
    subs = Subscriptions(engine, max_per_chat=2)
    assert await subs.subscribe(CHAT, first, None) is Subscribed.ADDED
    assert await subs.subscribe(CHAT, first, None) is Subscribed.HAD
    assert await subs.subscribe(CHAT, second, 7) is Subscribed.ADDED
    assert await subs.subscribe(CHAT, third, None) is Subscribed.LIMIT
    seen = await subs.overview(CHAT)
    assert [feed.slug for _reader, feed in seen.subscriptions] == ["f0", "f1"]
    assert [reader.thread_id for reader, _feed in seen.subscriptions] == [None, 7]
    assert (seen.paused, seen.translate, seen.quiet) == (False, False, None)
    assert (await subs.unsubscribe(CHAT, None)).count == 2
    assert await subs.subscribe(CHAT, third, None) is Subscribed.ADDED


async def test_filters_switches_and_chat_settings_reach_the_overview(engine: Engine) -> None:
    (feed,) = feeds(engine, 1)
    chats, subs = Chats(engine), Subscriptions(engine, max_per_chat=10)
    await chats.remember(ChatCard(CHAT, "private", "Ada", "en"))
    assert not (await subs.set_filter(CHAT, feed, CategoryFilter(("Blog",)), None)).subscribed
    await subs.subscribe(CHAT, feed, None)
    done = await subs.set_filter(CHAT, feed, CategoryFilter(("Blog",)), None)
    assert done.subscribed and done.unknown == ("Blog",)  # the feed never used it
    assert (await subs.set_filter(CHAT, feed, None, ["title:release"])).subscribed
    reader = (await subs.overview(CHAT)).subscriptions[0][0]
    assert reader.categories.include == ("Blog",) and reader.rules == ("title:release",)
    await subs.set_filter(CHAT, feed, None, None, clear=True)
    reader = (await subs.overview(CHAT)).subscriptions[0][0]
    assert reader.categories == CategoryFilter() and reader.rules == ()
    assert await subs.toggle(CHAT, feed, EDITS)  # edits were on: now off
    await chats.pause(CHAT, paused=True)
    await chats.set_translate(CHAT, on=True)
    await chats.set_timezone(CHAT, "Asia/Shanghai")
    assert await chats.set_quiet(CHAT, "22:00-07:00") == "Asia/Shanghai"
    seen = await subs.overview(CHAT)
    assert (seen.paused, seen.translate, seen.quiet) == (True, True, "22:00-07:00")
    assert seen.subscriptions[0][0].edits is Edits.OFF


async def test_the_backlog_queues_only_posts_the_chat_has_not_had(engine: Engine) -> None:
    (feed,) = feeds(engine, 1)
    subs = Subscriptions(engine, max_per_chat=10)
    await Chats(engine).remember(ChatCard(CHAT, "private", "Ada", "en"))
    assert await subs.queue_backlog(CHAT, feed, 3) == 0  # not subscribed
    await subs.subscribe(CHAT, feed, None)
    assert await subs.queue_backlog(CHAT, feed, 3) == 0  # nothing stored yet
    from bot.db.tables import Item

    with transaction(engine) as session:
        for n in range(4):
            session.add(Item(feed_id=feed, key=f"k{n}", title=f"Post {n}", fingerprint=f"f{n}"))
    assert await subs.queue_backlog(CHAT, feed, 0) == 0
    assert await subs.queue_backlog(CHAT, feed, 3) == 3
    assert await subs.queue_backlog(CHAT, feed, 3) == 0  # already had (or about to)
    with Session(engine) as session:
        kinds = session.exec(select(Delivery.kind).where(Delivery.chat_id == CHAT)).all()
    assert kinds == ["new"] * 3
