"""Issue 14's scenario against the bot as a real process (`python -m bot run`), exactly as a
person types it: `/channel @name`, `/subscribe URL`, `/channel off`, `/start FEED`."""

from __future__ import annotations

import signal
from pathlib import Path

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.processes import bot_env, start_bot
from tests.support.telegram_html import assert_valid_telegram_html

USER, CHANNEL = 501, -1007001


async def said(api: FakeBotApi, text: str, contains: str) -> str:
    """Send `text` from USER's private chat; wait for a message (or edit) with `contains`."""
    before = len(api.shown(USER))
    api.push_command(text, chat_id=USER, user_id=USER)

    def found() -> str | None:
        return next((m for m in api.shown(USER)[before:] if contains in m), None)

    await api.wait_for(lambda: found() is not None, timeout=20)
    reply = found()
    assert reply is not None
    assert_valid_telegram_html(reply)
    return reply


async def test_channel_subscribe_by_address_and_deep_link_in_the_running_bot(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer, tmp_path: Path
) -> None:
    feeds.serve("/blog/feed/", blog.rss(blog.BEFORE_POSTS, title="Lumen Blog"))
    home = feeds.serve(
        "/blog/",
        b'<html><head><link rel="alternate" type="application/rss+xml" href="feed/">'
        b"</head><body>Lumen</body></html>",
        content_type="text/html",
    )
    bot_api.add_channel(CHANNEL, "Lumen News", username="lumen_news", admins=(USER,))
    env = bot_env(db_url, bot_api, ALLOW_PRIVATE_FEED_URLS="true", POLL_INTERVAL_SECONDS="3600")
    process = await start_bot(env, tmp_path / "bot.log")
    try:
        await bot_api.wait_for(lambda: bool(bot_api.calls_to("setMyCommands")), timeout=30)
        await said(bot_api, "/channel @lumen_news", "now apply to this channel")
        reply = await said(bot_api, f"/subscribe {home}", "Subscribed to")
        assert reply.startswith("📢 <b>Lumen News</b>")
        assert "Now watching <b>Lumen Blog</b> under the feed name <code>lumen-blog</code>" in reply
        await said(bot_api, "/channel off", "this private chat again")
        reply = await said(bot_api, "/start lumen-blog", "Subscribed to")
        assert not reply.startswith("📢")
        reply = await said(bot_api, "/list", "lumen-blog")
        assert not reply.startswith("📢")
        assert feeds.hits("/blog/feed/")  # found through the page's link
    finally:
        process.send_signal(signal.SIGTERM)
        await process.wait()
    assert process.returncode == 0
