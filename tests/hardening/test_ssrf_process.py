"""The production process never connects to a private host however its URL spells it (issue 40,
item 1): on the old main, `/subscribe http://①②⑦.0.0.1:PORT/feed.xml` watched an internal
service's feed, and a full-text post's page, or a redirect from a feed's own site, reached it too.

The bot runs as `python -m bot run` with its own resolver and the default guard (no private
addresses, web ports only); a real loopback listener counts the connections it accepts.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Feed
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer, redirect
from tests.support.fakes.raw_tcp import Listener
from tests.support.fixtures.article_pages import Story, excerpt_feed, quiet_story
from tests.support.harness import answer, posts
from tests.support.processes import bot_env, start_bot
from tests.support.settings import make_settings

CHAT = 501
BLOCKED = "That address leads to a private network, and this bot only reads public websites."
SPELLINGS = (
    "①②⑦.0.0.1",
    "127。0。0。1",
    "１２７.０.０.１",
    "127．0．0．1",
    "１２７。０。０。１",
    "⑫⑦.0.0.1",
    "ｌｏｃａｌｈｏｓｔ",
    "127.0.0.1",
    "[::ffff:127.0.0.1]",
    "0177.0.0.1",
)
OLD = [quiet_story(n) for n in range(3)]


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener().start()
    yield server
    server.stop()


def story(slug: str) -> Story:
    return Story(
        slug=slug,
        title=f"Post {slug}",
        lede=f"The {slug} post opens with a sentence about the harbour's new ferry timetable.",
        paragraphs=("A second paragraph.",),
    )


async def watch_with_full_text(engine: Engine, db_url: str, base: str) -> None:
    """An operator's feed on loopback (its own origin trusted), full text on, chat subscribed,
    due at once for the bot process."""
    settings = make_settings(db_url)
    async with make_fetcher(settings) as fetcher:
        await Catalog(Poller(engine, fetcher, settings)).add_feed(
            base + "/feed", slug="ours", trusted=True
        )
    with transaction(engine) as session:
        store.set_full_text(session, slug="ours", on=True)
        feed = session.exec(select(Feed).where(Feed.slug == "ours")).one()
        assert feed.id is not None
        feed.next_check_at = datetime.now(UTC)
        session.add(feed)
        store.upsert_chat(session, chat_id=CHAT, type_="private", title="")
        store.subscribe(session, chat_id=CHAT, feed_id=feed.id)


async def test_no_spelling_of_a_private_host_is_reached_by_the_running_bot(
    engine: Engine,
    db_url: str,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    listener: Listener,
    tmp_path: Path,
) -> None:
    base = feeds.url("").rstrip("/")
    feeds.serve("/feed", excerpt_feed(base, OLD))
    await watch_with_full_text(engine, db_url, base)
    log = tmp_path / "bot.log"
    env = bot_env(db_url, bot_api, COMMANDS_PER_MINUTE="1000", FULL_TEXT_WAIT_SECONDS="10")
    process = await start_bot(env, log)
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        for host in SPELLINGS:
            target = f"http://{host}:{listener.port}/feed.xml"
            assert await answer(bot_api, f"/subscribe {target}", chat_id=9) == BLOCKED, host
        assert "Internal Service" not in await answer(bot_api, "/list", chat_id=9)

        # Full-text posts linking to the listener, directly and through a redirect from the
        # feed's own (trusted) site; four posts a poll, under any flood threshold.
        sent = 0
        for start in range(0, len(SPELLINGS), 2):
            new = []
            for host in SPELLINGS[start : start + 2]:
                n = SPELLINGS.index(host)
                page = f"http://{host}:{listener.port}/page{n}"
                feeds.behave(f"/hop{n}/", redirect(302, page))
                new += [(story(f"direct{n}"), page), (story(f"hop{n}"), f"{base}/hop{n}/")]
            body = excerpt_feed(base, [s for s, _ in new] + OLD)
            for made, link in new:
                body = body.replace(f"{base}/{made.slug}/".encode(), link.encode())
            feeds.serve("/feed", body)
            sent += len(new)
            await bot_api.wait_for(lambda n=sent: len(posts(bot_api, CHAT)) >= n, timeout=60)
        await bot_api.wait_for(
            lambda: log.read_text().count("its message uses the feed's excerpt") >= sent,
            timeout=30,
        )
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    assert code == 0
    assert listener.accepted == 0
    text = log.read_text()
    assert text.count("non-public address") >= sent, text[-3000:]
    for message in posts(bot_api, CHAT):
        assert "harbour's new ferry timetable" in message  # the feed's excerpt
    assert all(len(feeds.hits(f"/hop{n}/")) >= 1 for n in range(len(SPELLINGS)))
