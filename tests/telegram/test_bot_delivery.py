"""Notifications end to end: feed server → poll → outbox → PTB → fake Bot API, with faults."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlmodel import Session, select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Chat, Delivery, Subscription
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import (
    RunningBot,
    bot_settings,
    command,
    cycle,
    lumen_bot,
    posts,
    running_bot,
    titles,
)
from tests.support.telegram_html import assert_valid_telegram_html

ALL, ANNOUNCE, BLOG_ONLY, GROUP, ADMIN = 111, 222, 333, -1001, 77


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(
        db_url, bot_api, feeds, blog.BEFORE_POSTS, delivery_max_attempts=3
    ) as running:
        yield running


@pytest.fixture
async def subscribed(bot: RunningBot, bot_api: FakeBotApi) -> RunningBot:
    await command(bot_api, "/subscribe", ALL)
    await command(bot_api, "/subscribe lumen", ANNOUNCE)
    await command(bot_api, "/filter lumen Announcements", ANNOUNCE)
    await command(bot_api, "/subscribe lumen", BLOG_ONLY)
    await command(bot_api, "/filter lumen Blog, -Community, -Press Release", BLOG_ONLY)
    bot_api.set_member(GROUP, ADMIN, "administrator")
    await command(bot_api, "/subscribe lumen", GROUP, ADMIN)
    return bot


async def test_each_chat_gets_exactly_its_posts_oldest_first_then_one_update(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot = subscribed
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    pune, corvid, lisbon = blog.PUNE.title, blog.CORVID.title, blog.LISBON.title
    assert titles(bot_api, ALL) == [pune, corvid, lisbon]
    assert titles(bot_api, ANNOUNCE) == [corvid, lisbon]
    assert titles(bot_api, BLOG_ONLY) == [corvid]
    assert titles(bot_api, GROUP) == [pune, corvid, lisbon]
    for chat in (ALL, ANNOUNCE, BLOG_ONLY, GROUP):
        for text in posts(bot_api, chat):
            assert_valid_telegram_html(text)
    sent = [s for s in bot_api.sent if s.text.startswith("<b><a")]
    corvid_image = {
        "url": "https://blog.lumen.example/uploads/corvid-member.png",
        "prefer_large_media": True,
        "show_above_text": True,
    }
    # The post's image above the text by default; without one, Telegram's card of the post's
    # page (issue 25: it used to be no preview at all).
    for s in sent:
        with_image = blog.CORVID.title in s.text.split("\n")[0]
        expected = corvid_image if with_image else {"is_disabled": False}
        assert s.parse_mode == "HTML" and s.params["link_preview_options"] == expected

    # A markup-only change (the guide regains fetchpriority) sends nothing.
    feeds.serve("/feed/", blog.rss((*blog.AFTER_POSTS[:3], blog.GUIDE, *blog.MIDDLE)))
    await cycle(bot, bot_api)
    assert len(titles(bot_api, ALL)) == 3

    # A real edit of the guide, which was in the feed before any chat subscribed: no chat
    # was sent the guide, so none gets a difference against a text it never saw (issue 43).
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))
    await cycle(bot, bot_api)
    assert [len(titles(bot_api, c)) for c in (ALL, ANNOUNCE, BLOG_ONLY, GROUP)] == [3, 2, 1, 3]

    # A real edit of Corvid (Announcements, Blog), which they were sent: one update each.
    feeds.serve("/feed/", blog.rss(blog.edited_corvid()))
    await cycle(bot, bot_api)
    update = f"Updated: {blog.CORVID.title}"
    assert titles(bot_api, ALL)[3:] == [update]
    assert titles(bot_api, ANNOUNCE)[2:] == [update]
    assert titles(bot_api, BLOG_ONLY)[1:] == [update]
    assert titles(bot_api, GROUP)[3:] == [update]
    assert blog.EDITED_SENTENCE in posts(bot_api, ALL)[-1]


async def test_retry_after_is_waited_for_and_the_message_sent_once(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail(
        "sendMessage",
        code=429,
        description="Too Many Requests: retry after 1",
        retry_after=1,
        chat_id=ALL,
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(subscribed, bot_api)
    assert len(titles(bot_api, ALL)) == 3
    calls = [
        c
        for c in bot_api.calls_to("sendMessage")
        if c.params["chat_id"] == ALL and "<b><a" in c.params["text"]
    ]
    assert len(calls) == 4
    assert calls[1].at - calls[0].at >= 1.0


async def test_bad_gateway_is_retried_with_backoff(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail("sendMessage", code=502, description="Bad Gateway", chat_id=ALL, times=2)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(subscribed, bot_api)
    assert titles(bot_api, ALL) == [blog.PUNE.title, blog.CORVID.title, blog.LISBON.title]


async def test_persistent_errors_keep_the_delivery_as_failed_and_move_on(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail("sendMessage", code=500, description="Internal Server Error", chat_id=ALL, times=3)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(subscribed, bot_api)
    assert titles(bot_api, ALL) == [blog.CORVID.title, blog.LISBON.title]
    with Session(subscribed.engine) as session:
        failed = session.exec(select(Delivery).where(Delivery.status == "failed")).all()
    assert [(d.chat_id, d.attempts, d.last_error) for d in failed] == [
        (ALL, 3, "Internal Server Error")
    ]


async def test_blocked_chat_is_deactivated_and_skipped(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail(
        "sendMessage", code=403, description="Forbidden: bot was blocked by the user", chat_id=ALL
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(subscribed, bot_api)
    assert titles(bot_api, ALL) == []
    with Session(subscribed.engine) as session:
        chat = session.get(Chat, ALL)
        assert chat is not None and not chat.active
    feeds.serve("/feed/", blog.rss(blog.edited_corvid()))
    await cycle(subscribed, bot_api)
    assert titles(bot_api, ALL) == []
    assert len(titles(bot_api, BLOG_ONLY)) == 2


async def test_chat_migration_moves_subscriptions_and_resends(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    new_id = -100777
    bot_api.fail(
        "sendMessage",
        code=400,
        description="Bad Request: group chat was upgraded to a supergroup chat",
        migrate_to=new_id,
        chat_id=GROUP,
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(subscribed, bot_api)
    assert titles(bot_api, GROUP) == []
    assert titles(bot_api, new_id) == [blog.PUNE.title, blog.CORVID.title, blog.LISBON.title]
    with Session(subscribed.engine) as session:
        chats = session.exec(select(Subscription.chat_id)).all()
    assert new_id in chats and GROUP not in chats


async def test_html_refused_by_telegram_is_resent_as_plain_text(
    subscribed: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.fail(
        "sendMessage",
        code=400,
        description="Bad Request: can't parse entities: Unsupported start tag",
        chat_id=ALL,
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(subscribed, bot_api)
    plain = [
        s
        for s in bot_api.sent
        if s.chat_id == ALL and s.parse_mode is None and blog.PUNE.title in s.text
    ]
    assert len(plain) == 1 and f"({blog.PUNE.link})" in plain[0].text and "<b>" not in plain[0].text
    assert titles(bot_api, ALL) == [blog.CORVID.title, blog.LISBON.title]


async def many_chats_get_a_post(bot: RunningBot, feeds: FeedServer, chats: int) -> None:
    """Private chats 1..`chats` subscribed to the lumen feed, which then publishes one post."""
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    await bot.services.catalog.add_feed(url, slug="lumen", trusted=True)
    with transaction(bot.engine) as session:
        feed = store.get_feed(session, slug="lumen")
        assert feed is not None and feed.id is not None
        for chat_id in range(1, chats + 1):
            store.upsert_chat(session, chat_id=chat_id, type_="private", title="")
            store.subscribe(session, chat_id=chat_id, feed_id=feed.id)
    feeds.serve("/feed/", blog.rss((blog.LISBON, *blog.BEFORE_POSTS)))


async def test_a_fanout_stays_under_the_rate_limit_without_429s(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    chats = 150
    bot_api.rate_limit = 60  # the "server" refuses a 61st message within one second
    settings = bot_settings(
        db_url, bot_api, poll_interval_seconds=3600, telegram_rate_per_second=50
    )
    async with running_bot(settings) as bot:
        await many_chats_get_a_post(bot, feeds, chats)
        started = time.monotonic()
        await cycle(bot, bot_api)
        elapsed = time.monotonic() - started
    assert sorted({s.chat_id for s in bot_api.sent}) == list(range(1, chats + 1))
    assert bot_api.too_many == 0
    assert elapsed >= (chats - 50) / 50 * 0.9  # the limiter really paced the sends


async def test_a_chat_waiting_past_its_lease_is_not_claimed_twice_by_its_own_worker(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Chats of a batch wait at the gate; when that outlasts their lease, the next claim (at
    half the batch) found them free again and put them in a second batch of the same worker,
    which sent their messages a second time (the scale-out test's "4 duplicates")."""
    chats = 70  # a batch of 50 and a second one
    bot_api.latency = 0.04  # 50 chats one at a time: 2 s, twice the lease
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, lease_seconds=1)
    async with running_bot(settings) as bot:
        await many_chats_get_a_post(bot, feeds, chats)
        await cycle(bot, bot_api)
    sent = [c.params["chat_id"] for c in bot_api.calls_to("sendMessage")]
    assert sorted(sent) == list(range(1, chats + 1))  # each chat once


async def test_chats_waiting_at_the_gate_keep_their_leases_while_the_worker_sends(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """A batch's chats wait their turn at the gate; each renewal renews every chat of the
    worker's batches whose lease is half used, so the last ones do not expire while it sends
    (one renewal per chat let them expire and be taken by another worker: 330 "lease lost" in
    the scale-out test on a loaded machine)."""
    chats = 50
    bot_api.latency = 0.04  # one at a time: 2 s, twice the lease
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, lease_seconds=1)
    expired: list[int] = []
    waiting: list[int] = []

    async def look(bot: RunningBot) -> None:
        # 30 sent: 1.2 s of sending, past the lease
        await bot_api.wait_for(lambda: len(bot_api.calls_to("sendMessage")) >= 30, timeout=60)
        now = datetime.now(UTC)
        sent = {c.params["chat_id"] for c in bot_api.calls_to("sendMessage")}
        with Session(bot.engine) as session:
            rows = session.exec(select(Chat.id, Chat.lease_until)).all()
        for chat_id, until in rows:
            if chat_id not in sent:
                waiting.append(chat_id)
                if until is None or until.replace(tzinfo=UTC) <= now:
                    expired.append(chat_id)

    async with running_bot(settings) as bot:
        await many_chats_get_a_post(bot, feeds, chats)
        looking = asyncio.create_task(look(bot))
        await cycle(bot, bot_api)
        await looking
    assert waiting and expired == []
    sent = [c.params["chat_id"] for c in bot_api.calls_to("sendMessage")]
    assert sorted(sent) == list(range(1, chats + 1))


async def test_a_slow_chat_does_not_hold_up_the_next_batch(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Chats are claimed in batches (50 at 4 in flight); the next batch is claimed when half of
    one is done, so one slow answer in a batch leaves the other slots sending (issue 30: waiting
    for each batch's last chat cost a fan-out 7% of its rate)."""
    chats, slow, held = 120, 10, 2.0
    bot_api.chat_latency[slow] = held
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, delivery_concurrency=4)
    async with running_bot(settings) as bot:
        await many_chats_get_a_post(bot, feeds, chats)
        await cycle(bot, bot_api)
    sends = {c.params["chat_id"]: c.at for c in bot_api.calls_to("sendMessage")}
    assert sorted(sends) == list(range(1, chats + 1))
    answered = sends[slow] + held
    later_batches = [c for c, at in sends.items() if c > 50 and at < answered]
    assert len(later_batches) == chats - 50  # all sent while the first batch's chat was held
