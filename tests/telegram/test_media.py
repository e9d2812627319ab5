"""Posts as Telegram shows them best (issue 47), end to end: feed server → poll → outbox → PTB
→ the fake Bot API, which fetches each file by URL as Telegram does and refuses what it
refuses. Albums here; episodes and videos in `test_media_files.py`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.media_feeds import Post, pictures, rss
from tests.support.harness import RunningBot, ask, bot_settings, command, cycle, running_bot

PRIVATE, GROUP, ADMIN = 501, -100501, 77
OLD = Post(
    "https://social.example/@ada/1",
    "",
    "<p>Morning on the ridge.</p>",
    "Mon, 30 Nov 2026 08:00:00 GMT",
)


def gallery(urls: tuple[str, ...], text: str = "<p>Four photos from the hill walk.</p>") -> Post:
    return Post("https://social.example/@ada/2", "", text, "Tue, 01 Dec 2026 09:00:00 GMT", urls)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, delivery_max_attempts=2)
    async with running_bot(settings) as running:
        url = feeds.serve("/walks.rss", rss("Ada's walks", "https://social.example/@ada", (OLD,)))
        await running.services.catalog.add_feed(url, slug="walks", trusted=True)
        await command(bot_api, "/subscribe walks", PRIVATE)
        yield running


def publish(feeds: FeedServer, post: Post) -> None:
    feeds.serve("/walks.rss", rss("Ada's walks", "https://social.example/@ada", (post, OLD)))


async def test_four_pictures_arrive_as_one_album_with_the_text_as_its_caption(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    urls = pictures(feeds, "hill", 4)
    publish(feeds, gallery(urls))
    await cycle(bot, bot_api)
    [album] = bot_api.media_to(PRIVATE)
    assert album.method == "sendMediaGroup"
    assert album.urls == list(urls)
    assert "Four photos from the hill walk." in album.caption
    assert album.params["media"][0]["parse_mode"] == "HTML"
    assert all("caption" not in item for item in album.params["media"][1:])
    assert not bot_api.calls_to("sendMessage")[1:], "no second message beside the album"
    assert sorted(bot_api.fetched) == sorted(urls)


async def test_a_text_too_long_for_a_caption_follows_the_album_as_a_reply(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await command(bot_api, "/format walks full", PRIVATE)
    await command(bot_api, "/silent walks on", PRIVATE)
    long = "".join(
        f"<p>Paragraph {n} of the walk, with the path and the weather.</p>" for n in range(40)
    )
    urls = pictures(feeds, "long", 3)
    publish(feeds, gallery(urls, long))
    await cycle(bot, bot_api)
    [album] = bot_api.media_to(PRIVATE)
    assert album.caption == "" and len(album.urls) == 3
    assert album.params.get("disable_notification") is True
    reply = [c for c in bot_api.calls_to("sendMessage") if "Paragraph 1 " in str(c.params["text"])]
    assert len(reply) == 1
    assert reply[0].params["reply_parameters"]["message_id"] == album.message_ids[0]
    assert reply[0].params["link_preview_options"] == {"is_disabled": True}


async def test_eleven_pictures_make_an_album_of_ten(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    urls = pictures(feeds, "many", 11)
    publish(feeds, gallery(urls))
    await cycle(bot, bot_api)
    [album] = bot_api.media_to(PRIVATE)
    assert album.urls == list(urls[:10])


async def test_avatars_and_small_pictures_do_not_make_an_album(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    [photo] = pictures(feeds, "only", 1)
    avatar = feeds.serve("/avatars/ada.png", b"x", content_type="image/png")
    tiny = feeds.serve("/media/thumb-100x100.jpg", b"x", content_type="image/jpeg")
    publish(feeds, gallery((photo, avatar, tiny)))
    await cycle(bot, bot_api)
    assert bot_api.media_to(PRIVATE) == []
    [sent] = [c for c in bot_api.calls_to("sendMessage") if "hill walk" in str(c.params["text"])]
    assert sent.params["link_preview_options"]["url"] == photo


async def test_an_album_telegram_cannot_fetch_falls_back_to_the_message(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    urls = pictures(feeds, "gone", 2)
    missing = feeds.url("/media/missing.jpg")  # 404: "failed to get HTTP URL content"
    publish(feeds, gallery((*urls, missing)))
    await cycle(bot, bot_api)
    assert bot_api.media_to(PRIVATE) == []
    assert len(bot_api.calls_to("sendMediaGroup")) == 1
    [sent] = [c for c in bot_api.calls_to("sendMessage") if "hill walk" in str(c.params["text"])]
    assert sent.params["link_preview_options"]["url"] == urls[0]


async def test_an_album_reaches_a_forum_topic(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.set_member(GROUP, ADMIN, "administrator")
    bot_api.push_update(
        {
            "message": {
                "message_id": 50,
                "date": 0,
                "message_thread_id": 9,
                "is_topic_message": True,
                "chat": {"id": GROUP, "type": "supergroup", "title": "Forum", "is_forum": True},
                "from": {"id": ADMIN, "is_bot": False, "first_name": "Ada"},
                "text": "/subscribe walks",
                "entities": [{"type": "bot_command", "offset": 0, "length": 10}],
            }
        }
    )
    await bot_api.wait_replies(GROUP, 1)
    urls = pictures(feeds, "topic", 2)
    publish(feeds, gallery(urls))
    await cycle(bot, bot_api)
    [album] = bot_api.media_to(GROUP)
    assert album.params.get("message_thread_id") == 9


async def test_a_digest_chat_gets_no_album_the_post_waits_for_its_digest(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    assert "every hour" in await ask(bot_api, "/digest walks hourly", PRIVATE)
    publish(feeds, gallery(pictures(feeds, "digest", 3)))
    await cycle(bot, bot_api)
    assert bot_api.media_to(PRIVATE) == []
    assert bot_api.calls_to("sendMediaGroup") == []
