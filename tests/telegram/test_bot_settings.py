"""Keywords, edit and preview switches, pause/resume and forum topics, through PTB and the fake
Bot API, end to end with the feed server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import (
    RunningBot,
    ask,
    bot_settings,
    command,
    cycle,
    lumen_bot,
    running_bot,
    titles,
)

CHAT, FORUM, ADMIN = 111, -100123, 77


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


async def test_keywords_narrow_the_posts(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    reply = await ask(bot_api, '/keywords lumen "platinum member", -Lisbon')
    assert reply.split("\n\n")[0] == 'Keywords for <b>Lumen Blog</b>: "platinum member", -Lisbon.'
    assert "<b>Filter test</b>: 0 of the last 8 posts would arrive." in reply
    assert 'keywords "platinum member", -Lisbon' in await ask(bot_api, "/list")
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert titles(bot_api, CHAT) == [blog.CORVID.title]  # Lisbon mentions Platinum members too
    assert "Usage: /keywords" in await ask(bot_api, "/keywords lumen")
    assert "Keywords are at most" in await ask(bot_api, "/keywords lumen " + "x" * 120)
    assert ": none." in await ask(bot_api, "/keywords lumen off")


async def test_edits_off_means_new_posts_only(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    assert (
        await ask(bot_api, "/edits lumen off") == "Edit notifications for <b>Lumen Blog</b>: off."
    )
    assert "Usage: /edits <i>feed name</i> all|substantive|off" in await ask(
        bot_api, "/edits lumen maybe"
    )
    feeds.serve("/feed/", blog.rss(blog.edited_posts()))
    await cycle(bot, bot_api)
    assert all(not t.startswith("Updated") for t in titles(bot_api, CHAT))
    assert len(titles(bot_api, CHAT)) == 3


async def test_preview_modes_per_subscription(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    assert await ask(bot_api, "/preview lumen link") == (
        "Messages from <b>Lumen Blog</b> now show a preview of the post's link."
    )
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    posts = [s for s in bot_api.sent if s.chat_id == CHAT and s.text.startswith("<b><a")]
    assert len(posts) == 3 and all(
        s.params["link_preview_options"] == {"is_disabled": False} for s in posts
    )
    assert "link previews" in await ask(bot_api, "/list")
    assert await ask(bot_api, "/preview lumen off") == (
        "Messages from <b>Lumen Blog</b> now show no preview."
    )
    assert "no previews" in await ask(bot_api, "/list")
    feeds.serve("/feed/", blog.rss(blog.edited_corvid()))
    await cycle(bot, bot_api)
    (update,) = [s for s in bot_api.sent if s.chat_id == CHAT and s.text.startswith("<b>Upd")]
    assert update.params["link_preview_options"] == {"is_disabled": True}  # it has an image
    assert "link" in await ask(bot_api, "/preview lumen on")  # what `on` meant before images
    assert "/preview <i>feed name</i> image|link|off" in await ask(bot_api, "/preview lumen large")


async def test_pause_and_resume(bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer) -> None:
    await command(bot_api, "/subscribe lumen", CHAT)
    assert (await ask(bot_api, "/pause")).startswith("Paused.")
    assert "paused: /resume" in await ask(bot_api, "/list")
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert titles(bot_api, CHAT) == []
    assert (await ask(bot_api, "/resume")).startswith("Resumed")
    feeds.serve("/feed/", blog.rss(blog.edited_corvid()))
    await cycle(bot, bot_api)
    assert titles(bot_api, CHAT) == []  # an edit of a post it was not sent while paused
    later = replace(blog.CORVID, guid="later-1", slug="later-post", title="A later post")
    feeds.serve("/feed/", blog.rss((later, *blog.edited_corvid())))
    await cycle(bot, bot_api)
    assert titles(bot_api, CHAT) == ["A later post"]


async def test_subscribe_inside_a_forum_topic_delivers_into_it(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.set_member(FORUM, ADMIN, "administrator")
    before = len(bot_api.texts(FORUM))
    bot_api.push_update(
        {
            "message": {
                "message_id": 50,
                "date": 0,
                "message_thread_id": 7,
                "is_topic_message": True,
                "chat": {"id": FORUM, "type": "supergroup", "title": "Forum", "is_forum": True},
                "from": {"id": ADMIN, "is_bot": False, "first_name": "Ada"},
                "text": "/subscribe lumen",
                "entities": [{"type": "bot_command", "offset": 0, "length": 10}],
            }
        }
    )
    await bot_api.wait_replies(FORUM, before + 1)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    posts = [s for s in bot_api.sent if s.chat_id == FORUM and s.text.startswith("<b><a")]
    assert len(posts) == 3 and all(s.params.get("message_thread_id") == 7 for s in posts)


async def test_export_sends_the_chats_subscriptions_as_opml(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    from bot.core.feeds.opml import parse_opml

    assert "no subscriptions to export" in await ask(bot_api, "/export")
    await command(bot_api, "/subscribe lumen", CHAT)
    bot_api.push_command("/export", chat_id=CHAT)
    await bot_api.wait_for(lambda: bool(bot_api.documents))
    ((chat_id, document),) = bot_api.documents
    assert chat_id == CHAT and document["filename"] == "feedwatch.opml"
    (entry,) = parse_opml(document["content"])
    assert entry.title == "Lumen Blog" and entry.url.endswith("/feed/")


async def test_an_opml_file_subscribes_the_chat_that_sent_it_operator_or_not(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(
        db_url, bot_api, poll_interval_seconds=3600, allow_private_feed_urls=True
    )
    async with running_bot(settings):
        one = feeds.serve("/one/", blog.rss(blog.BEFORE_POSTS, title="One"))
        opml = f'<opml version="2.0"><body><outline type="rss" text="One" xmlUrl="{one}"/></body></opml>'
        # Whoever adds it first adds the feed; the other finds it watched: both subscribe.
        for user in (5, 4242):
            before = len(bot_api.texts(user))
            bot_api.push_document(opml.encode(), chat_id=user)

            # a slow import first shows "Importing 0 of 1 feeds…", then edits it into the answer
            def answered(user: int = user, before: int = before) -> bool:
                return any("✅ <b>One</b>: subscribed." in t for t in bot_api.shown(user)[before:])

            await bot_api.wait_for(answered)
        assert bot_api.shown(4242)[-1].startswith("<b>OPML import</b>: 1 subscribed")


async def test_hourly_digest_holds_posts_then_sends_one_message(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.services.digests import run_digests

    await command(bot_api, "/subscribe lumen", CHAT)
    assert await ask(bot_api, "/timezone Europe/Berlin") == "Time zone: Europe/Berlin."
    assert "Unknown time zone" in await ask(bot_api, "/timezone Mars/Olympus")
    assert "every day at 08:30 (Europe/Berlin)" in await ask(bot_api, "/digest lumen daily 08:30")
    assert "Usage: /digest" in await ask(bot_api, "/digest lumen weekly")
    assert await ask(bot_api, "/digest lumen hourly") == "Digest for <b>Lumen Blog</b>: every hour."
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    assert titles(bot_api, CHAT) == []  # held for the digest
    assert run_digests(bot.engine) == 0  # not an hour yet
    later = datetime.now(UTC) + timedelta(hours=1, minutes=1)
    assert run_digests(bot.engine, clock=lambda: later) == 1
    bot.services.wake.set()
    await bot_api.wait_for(lambda: any(t.startswith("<b>Digest:") for t in bot_api.texts(CHAT)))
    (digest,) = [t for t in bot_api.texts(CHAT) if t.startswith("<b>Digest:")]
    assert digest.startswith("<b>Digest: Lumen Blog</b> — 3 posts")
    assert all(title.replace("&", "&amp;") in digest for title in blog.NEW_TITLES_OLDEST_FIRST)
    # Each post with its categories (not the generic "Blog", issue 42) and a one-line summary.
    assert "<i>Announcements · Press Release</i>" in digest and "<i>Community</i>" in digest
    assert "Blog ·" not in digest and "· Blog" not in digest
    assert blog.LISBON.paragraphs[0] in digest
    assert run_digests(bot.engine, clock=lambda: later) == 0  # nothing twice
    assert ": off, every post is sent at once." in await ask(bot_api, "/digest lumen off")
