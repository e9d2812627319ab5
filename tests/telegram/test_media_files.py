"""Episodes and videos end to end (issue 47): an enclosure Telegram can fetch is sent as a
playable file by URL, one it cannot (too large, or of unknown size) is a line with its length
and link; a YouTube entry keeps Telegram's player card."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.media_feeds import MP3, MP4, Post, rss
from tests.support.harness import RunningBot, bot_settings, command, cycle, running_bot

CHAT = 601
OLD = Post(
    "https://pod.example/ep/1",
    "Episode 1",
    "<p>The first one.</p>",
    "Mon, 30 Nov 2026 08:00:00 GMT",
)
NOTES = (
    "<p>We talk about mapping old footpaths with volunteers and a borrowed drone.</p>"
    "<p>This episode is brought to you by Trailco. Use code WALK for 20% off.</p>"
)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        url = feeds.serve("/pod.rss", rss("Footpaths", "https://pod.example", (OLD,)))
        await running.services.catalog.add_feed(url, slug="pod", trusted=True)
        await command(bot_api, "/subscribe pod", CHAT)
        yield running


def episode(enclosure: tuple[str, str, int], link: str = "https://pod.example/ep/2") -> Post:
    return Post(
        link,
        "Episode 2: Footpaths",
        NOTES,
        "Tue, 01 Dec 2026 09:00:00 GMT",
        (),
        enclosure,
        "1:13:05",
    )


def publish(feeds: FeedServer, post: Post) -> None:
    feeds.serve("/pod.rss", rss("Footpaths", "https://pod.example", (post, OLD)))


async def test_an_episode_within_the_url_limit_is_sent_as_audio(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    mp3 = feeds.serve("/ep2.mp3", MP3, content_type="audio/mpeg")
    publish(feeds, episode((mp3, "audio/mpeg", 19_000_000)))
    await cycle(bot, bot_api)
    [sent] = bot_api.media_to(CHAT)
    assert sent.method == "sendAudio" and sent.urls == [mp3]
    assert sent.params["title"] == "Episode 2: Footpaths"
    assert sent.params["performer"] == "Ada Lindqvist"
    assert sent.params["duration"] == 4385
    assert "mapping old footpaths" in sent.caption
    assert "Trailco" not in sent.caption  # the sponsor read is out, as in every summary
    assert "callback_data" in str(sent.params["reply_markup"])  # "Follow changes"


async def test_an_episode_too_large_to_send_by_url_is_a_line_with_its_link(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = "https://cdn.pod.example/ep2.mp3"
    publish(feeds, episode((url, "audio/mpeg", 68_000_000)))
    await cycle(bot, bot_api)
    assert bot_api.media_to(CHAT) == []
    [text] = [t for t in bot_api.texts(CHAT) if "Episode 2" in t]
    assert f'▶ <a href="{url}">Episode, 73 min, 68 MB</a>' in text


async def test_an_episode_of_unknown_size_is_a_line_too(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = "https://cdn.pod.example/ep2.mp3"
    publish(feeds, episode((url, "audio/mpeg", 0)))
    await cycle(bot, bot_api)
    assert bot_api.media_to(CHAT) == []
    [text] = [t for t in bot_api.texts(CHAT) if "Episode 2" in t]
    assert f'▶ <a href="{url}">Episode, 73 min</a>' in text


async def test_an_episode_telegram_cannot_fetch_arrives_as_the_message(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    gone = feeds.url("/gone.mp3")  # declared small, but 404 when Telegram fetches it
    publish(feeds, episode((gone, "audio/mpeg", 1_000_000)))
    await cycle(bot, bot_api)
    assert len(bot_api.calls_to("sendAudio")) == 1
    assert bot_api.media_to(CHAT) == []
    assert [t for t in bot_api.texts(CHAT) if "Episode 2" in t]


async def test_a_video_enclosure_is_sent_as_video(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    mp4 = feeds.serve("/clip.mp4", MP4, content_type="video/mp4")
    publish(feeds, episode((mp4, "video/mp4", 5_000_000)))
    await cycle(bot, bot_api)
    [sent] = bot_api.media_to(CHAT)
    assert sent.method == "sendVideo" and sent.params["duration"] == 4385


async def test_a_large_video_is_a_line_with_its_length(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = "https://cdn.pod.example/talk.mp4"
    publish(feeds, episode((url, "video/mp4", 300_000_000)))
    await cycle(bot, bot_api)
    [text] = [t for t in bot_api.texts(CHAT) if "Episode 2" in t]
    assert f'▶ <a href="{url}">Video, 73 min, 300 MB</a>' in text


async def test_a_youtube_entry_keeps_the_player_card(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    watch = "https://www.youtube.com/watch?v=abcdEFGH123"
    thumb = Post(
        watch,
        "A walk, filmed",
        "<p>Filmed on the ridge.</p>",
        "Tue, 01 Dec 2026 09:00:00 GMT",
        ("https://i.ytimg.com/vi/abcdEFGH123/hqdefault.jpg",),
    )
    publish(feeds, thumb)
    await cycle(bot, bot_api)
    [sent] = [
        c for c in bot_api.calls_to("sendMessage") if "A walk, filmed" in str(c.params["text"])
    ]
    assert sent.params["link_preview_options"] == {"is_disabled": False}
