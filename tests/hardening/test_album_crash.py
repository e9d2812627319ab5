"""A crash between an album's send and its mark (issue 47): Telegram showed the album, the bot
was killed before it recorded that; the restarted bot sends it once more, and never again."""

from __future__ import annotations

import asyncio
import signal
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import Session, select

from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.tables import Feed
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.media_feeds import Post, pictures, rss
from tests.support.processes import bot_env, start_bot
from tests.support.settings import make_settings

CHAT = 7001
OLD = Post("https://social.example/@ada/1", "", "<p>Before.</p>", "Mon, 30 Nov 2026 08:00:00 GMT")


@pytest.mark.slow
async def test_a_kill_after_the_album_leaves_at_most_one_duplicate_album(
    sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    engine = make_engine(sqlite_url)
    settings = make_settings(sqlite_url)
    url = feeds.serve("/walks.rss", rss("Walks", "https://social.example/@ada", (OLD,)))
    async with make_fetcher(settings) as fetcher:
        await Catalog(Poller(engine, fetcher, settings)).add_feed(url, slug="walks", trusted=True)
    with transaction(engine) as session:
        feed = session.exec(select(Feed).where(Feed.slug == "walks")).one()
        assert feed.id is not None
        feed.next_check_at = datetime.now(UTC)
        session.add(feed)
        store.upsert_chat(session, chat_id=CHAT, type_="private", title="")
        store.subscribe(session, chat_id=CHAT, feed_id=feed.id)
    urls = pictures(feeds, "crash", 3)
    post = Post(
        "https://social.example/@ada/2",
        "",
        "<p>Three photos.</p>",
        "Tue, 01 Dec 2026 09:00:00 GMT",
        urls,
    )
    feeds.serve("/walks.rss", rss("Walks", "https://social.example/@ada", (post, OLD)))
    # Telegram shows the album at once but answers late: the kill lands in between.
    bot_api.answer_latency["sendMediaGroup"] = 30.0
    env = bot_env(sqlite_url, bot_api, LEASE_SECONDS="2")
    log = tmp_path / "bot.log"
    process = await start_bot(env, log)
    await bot_api.wait_for(lambda: len(bot_api.media_to(CHAT)) == 1, timeout=60)
    process.kill()
    await process.wait()
    bot_api.answer_latency.clear()
    final = await start_bot(env, log)
    try:
        await bot_api.wait_for(lambda: len(bot_api.media_to(CHAT)) == 2, timeout=60)

        def drained() -> bool:
            with Session(engine) as session:
                return store.pending_count(session) == 0

        await bot_api.wait_for(drained, timeout=30)
        await asyncio.sleep(1.5)  # a poll and a delivery round more: nothing is sent again
    finally:
        final.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(final.wait(), timeout=15)
    assert code == 0
    albums = bot_api.media_to(CHAT)
    assert len(albums) == 2, "the album once, and once more after the kill"
    assert all(a.urls == list(urls) for a in albums)
    assert bot_api.calls_to("sendMessage") == []  # the text was the album's caption
    engine.dispose()
