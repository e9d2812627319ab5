"""Withdrawals end to end (issue 45), through PTB and the fake Bot API: a post a chat was told
about that vanishes from between other posts and whose page answers 404 on two checks gets one
"Withdrawn" reply to its message, and "Back" when it returns; the window growing, a 503 and a
feed that vanished whole say nothing; a restart keeps the pending check; in es and zh too.
`WITHDRAWAL_RECHECK_SECONDS=1` puts the second check a second after the first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer, status
from tests.support.fixtures.watch_site import POSTS, serve_feed, serve_pages
from tests.support.harness import RunningBot, ask, bot_settings, cycle, running_bot

CHAT, SPANISH, CHINESE = 111, 222, 333
A, B, C, D, E = POSTS
RECHECK = 1.0


@pytest.fixture
def settings(db_url: str, bot_api: FakeBotApi) -> Any:
    # An hour between polls: the test polls (`cycle`); the checks run after each cycle.
    return bot_settings(
        db_url, bot_api, poll_interval_seconds=3600, withdrawal_recheck_seconds=int(RECHECK)
    )


@pytest.fixture
async def bot(settings: Any, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    serve_pages(feeds, POSTS)
    url = serve_feed(feeds, (A,))
    async with running_bot(settings) as running:
        await running.services.catalog.add_feed(url, slug="harbour", trusted=True)
        yield running


async def told(bot: RunningBot, api: FakeBotApi, feeds: FeedServer, *chats: int) -> None:
    """Each chat subscribes, and gets B, C and D."""
    for chat in chats:
        await ask(api, "/subscribe harbour", chat)
    serve_feed(feeds, (A, B, C, D))
    await cycle(bot, api)
    for chat in chats:
        assert sum(1 for t in api.texts(chat) if t.startswith("<b><a href")) == 3


def notices(api: FakeBotApi, chat_id: int) -> list[tuple[str, int | None]]:
    with api.lock:
        sent = [s for s in api.sent if s.chat_id == chat_id]
    return [
        (s.text, (s.params.get("reply_parameters") or {}).get("message_id"))
        for s in sent
        if not s.text.startswith(("<b><a href", "<b>Updated")) and "<b>" in s.text.split("\n")[0]
        and ("ithdrawn" in s.text or "Back" in s.text or "Retirada" in s.text
             or "撤回" in s.text or "De vuelta" in s.text or "已恢复" in s.text)
    ]  # fmt: skip


def message_of(api: FakeBotApi, chat_id: int, title: str) -> int:
    with api.lock:
        return next(
            s.message_id
            for s in api.sent
            if s.chat_id == chat_id and s.text.startswith("<b><a href") and title in s.text
        )


async def twice(bot: RunningBot, api: FakeBotApi) -> None:
    """Two checks: now, and once the recheck is due."""
    await cycle(bot, api)
    await asyncio.sleep(RECHECK + 0.2)
    await cycle(bot, api)
    await cycle(bot, api)


async def test_a_withdrawn_post_is_told_once_and_back(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await told(bot, bot_api, feeds, CHAT)
    serve_feed(feeds, (A, B, D, E))  # C vanished from between B and D
    feeds.behave(C.path(), status(404))
    await twice(bot, bot_api)
    ((text, reply_to),) = notices(bot_api, CHAT)
    assert text.startswith("<b>Withdrawn: this post is no longer on the site</b>\n<a href=")
    assert C.title in text
    assert reply_to == message_of(bot_api, CHAT, C.title)
    assert len(feeds.hits(C.path())) >= 2  # then the withdrawn page is watched for its return
    await asyncio.sleep(RECHECK + 0.2)
    await cycle(bot, bot_api)
    assert len(notices(bot_api, CHAT)) == 1  # once

    serve_feed(feeds, (A, B, C, D, E))  # it is back in the feed
    await cycle(bot, bot_api)
    await asyncio.sleep(RECHECK + 0.2)
    await cycle(bot, bot_api)
    assert [t.split("\n")[0] for t, _ in notices(bot_api, CHAT)] == [
        "<b>Withdrawn: this post is no longer on the site</b>",
        "<b>Back: this post is on the site again</b>",
    ]


async def test_window_growth_a_503_a_timeout_and_a_live_page_say_nothing(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await told(bot, bot_api, feeds, CHAT)
    serve_feed(feeds, (A, B, C, D, E))  # the window grows: nothing vanished
    await twice(bot, bot_api)
    serve_feed(feeds, (B, C, D, E))  # the window rolls past the oldest
    feeds.behave(A.path(), status(404))
    await twice(bot, bot_api)
    assert feeds.hits(A.path()) == []
    serve_feed(feeds, (B, D, E))  # C vanishes, but its page answers 503
    feeds.behave(C.path(), status(503))
    await twice(bot, bot_api)
    assert len(feeds.hits(C.path())) >= 1
    serve_feed(feeds, (B, E))  # D vanishes, its page still stands (moved out of the feed)
    await twice(bot, bot_api)
    assert len(feeds.hits(D.path())) == 1  # checked once, then cleared
    assert notices(bot_api, CHAT) == []


async def test_a_feed_that_vanished_whole_says_nothing(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await told(bot, bot_api, feeds, CHAT)
    for post in POSTS:
        feeds.behave(post.path(), status(404))
    feeds.behave("/feed.xml", status(404))  # the whole site is gone
    await twice(bot, bot_api)
    serve_feed(feeds, (A, B, D))  # it comes back without C, whose page is 404...
    await cycle(bot, bot_api)
    feeds.behave("/feed.xml", status(404))  # ...and the feed is gone again at the recheck
    await asyncio.sleep(RECHECK + 0.2)
    await cycle(bot, bot_api)
    await cycle(bot, bot_api)
    assert notices(bot_api, CHAT) == []


async def test_a_restart_keeps_the_pending_check_and_languages(
    settings: Any, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    serve_pages(feeds, POSTS)
    url = serve_feed(feeds, (A,))
    async with running_bot(settings) as first:
        await first.services.catalog.add_feed(url, slug="harbour", trusted=True)
        await ask(bot_api, "/language es", SPANISH)
        await ask(bot_api, "/language zh", CHINESE)
        await told(first, bot_api, feeds, SPANISH, CHINESE)
        serve_feed(feeds, (A, B, D))
        feeds.behave(C.path(), status(410))
        await cycle(first, bot_api)  # the first check: 410
    assert len(feeds.hits(C.path())) == 1
    await asyncio.sleep(RECHECK + 0.2)
    async with running_bot(settings) as second:
        await cycle(second, bot_api)
        await cycle(second, bot_api)
    assert len(feeds.hits(C.path())) >= 2  # then the withdrawn page is watched for its return
    ((spanish, _),) = notices(bot_api, SPANISH)
    ((chinese, _),) = notices(bot_api, CHINESE)
    assert spanish.startswith("<b>Retirada: esta entrada ya no está en el sitio</b>")
    assert chinese.startswith("<b>已撤回：这篇文章已不在网站上</b>")
