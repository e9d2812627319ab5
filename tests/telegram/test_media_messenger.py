"""The media edge (`bot/telegram/messenger.py`) through real PTB against the fake Bot API, and
the fake's own rules (issue 47): what Telegram refuses in `sendMediaGroup`, `sendAudio` and
`sendVideo`, with its error texts, and what the edge does with each refusal."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import InputMediaAudio, InputMediaPhoto
from telegram.error import BadRequest
from telegram.ext import ExtBot
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.core.messages.media import Media
from bot.core.types import MediaKind
from bot.services.messenger import Outgoing, Reply
from bot.telegram.budget import MemoryBuckets, SharedRateLimiter
from bot.telegram.messenger import TelegramMessenger
from bot.telegram.request import AiohttpRequest
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.media_feeds import MP3, MP4, pictures

CHANNEL = -1002001


@pytest.fixture
async def bot(bot_api: FakeBotApi) -> AsyncIterator[ExtBot[Any]]:
    limiter = SharedRateLimiter(MemoryBuckets(), per_second=1000, group_per_minute=1000)
    made: ExtBot[Any] = ExtBot(
        bot_api.token,
        base_url=bot_api.base_url,
        request=AiohttpRequest(read_timeout=5.0),
        rate_limiter=limiter,
    )
    async with made:
        yield made


async def raw(bot: ExtBot[Any], method: str, fields: dict[str, object]) -> object:
    data = RequestData([RequestParameter(name, value, None) for name, value in fields.items()])
    return await bot.request.post(url=f"{bot.base_url}/{method}", request_data=data)


def album(urls: tuple[str, ...]) -> Media:
    return Media(MediaKind.ALBUM, urls)


async def test_the_fake_refuses_albums_telegram_refuses(
    bot: ExtBot[Any], feeds: FeedServer
) -> None:
    urls = pictures(feeds, "rule", 11)
    # PTB checks the count itself: the fake's answer is read through its request layer.
    for count, error in ((1, "media group must include 2-10 items"), (11, "too many messages")):
        items = [{"type": "photo", "media": u} for u in urls[:count]]
        with pytest.raises(BadRequest, match=rf"(?i){error}"):
            await raw(bot, "sendMediaGroup", {"chat_id": 1, "media": items})
    with pytest.raises(BadRequest, match=r"(?i)message caption is too long"):
        await bot.send_media_group(1, [InputMediaPhoto(urls[0], caption="x" * 1025)] * 2)
    song = feeds.serve("/media/song.mp3", MP3, content_type="audio/mpeg")
    with pytest.raises(BadRequest, match=r"(?i)can't be mixed"):
        await bot.send_media_group(1, [InputMediaPhoto(urls[0]), InputMediaAudio(song)])
    page = feeds.serve("/media/page.html", b"<html></html>", content_type="text/html")
    with pytest.raises(BadRequest, match=r"(?i)wrong type of the web page content"):
        await bot.send_media_group(1, [InputMediaPhoto(urls[0]), InputMediaPhoto(page)])
    missing = feeds.url("/media/none.jpg")
    with pytest.raises(BadRequest, match=r"(?i)failed to get HTTP URL content"):
        await bot.send_media_group(1, [InputMediaPhoto(urls[0]), InputMediaPhoto(missing)])
    sent = await bot.send_media_group(1, [InputMediaPhoto(u) for u in urls[:10]])
    assert len(sent) == 10


async def test_the_fake_refuses_files_over_the_url_limits(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    big_photo = feeds.serve(
        "/media/big.jpg", b"\xff" * (5 * 1024 * 1024 + 1), content_type="image/jpeg"
    )
    small = pictures(feeds, "small", 1)[0]
    with pytest.raises(BadRequest, match=r"(?i)failed to get HTTP URL content"):
        await bot.send_media_group(1, [InputMediaPhoto(small), InputMediaPhoto(big_photo)])
    big_audio = feeds.serve(
        "/media/big.mp3", b"\x00" * (20 * 1024 * 1024 + 1), content_type="audio/mpeg"
    )
    with pytest.raises(BadRequest, match=r"(?i)failed to get HTTP URL content"):
        await bot.send_audio(1, big_audio)
    with pytest.raises(BadRequest, match=r"(?i)wrong file identifier/HTTP URL specified"):
        await bot.send_video(1, "ftp://files.example/a.mp4")
    song = feeds.serve("/media/ok.mp3", MP3, content_type="audio/mpeg")
    message = await bot.send_audio(1, song, title="Ep 1", performer="Ada", duration=60)
    assert message.audio is not None and message.audio.title == "Ep 1"
    assert bot_api.media_to(1)[-1].method == "sendAudio"


async def test_an_album_goes_to_a_channel_with_its_caption(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    bot_api.add_channel(CHANNEL, "Walks", username="walks")
    urls = pictures(feeds, "chan", 2)
    answer = await TelegramMessenger(bot).send(
        Outgoing(CHANNEL, "<b>A post</b> &amp; its pictures", media=album(urls))
    )
    assert answer.reply is Reply.ACCEPTED
    [sent] = bot_api.media_to(CHANNEL)
    assert sent.caption == "<b>A post</b> &amp; its pictures"
    assert answer.message_id == sent.message_ids[0]


async def test_a_caption_counts_what_telegram_counts_not_the_markup(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    urls = pictures(feeds, "count", 2)
    text = '<a href="https://b.example/' + "p" * 300 + '">' + "w" * 1000 + "</a>"
    await TelegramMessenger(bot).send(Outgoing(1, text, media=album(urls)))
    [sent] = bot_api.media_to(1)
    assert sent.caption == text  # 1,000 visible characters: a caption, markup or not
    await TelegramMessenger(bot).send(Outgoing(2, "é" * 1025, media=album(urls)))
    assert bot_api.media_to(2)[0].caption == ""
    assert bot_api.texts(2)[-1] == "é" * 1025


async def test_a_caption_telegram_cannot_parse_is_left_to_the_plain_resend(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    urls = pictures(feeds, "html", 2)
    answer = await TelegramMessenger(bot).send(Outgoing(1, "<b>broken", media=album(urls)))
    assert answer.reply is Reply.ENTITIES  # delivery resends it as plain text, without media
    assert bot_api.media_to(1) == []


async def test_an_episode_refused_by_telegram_becomes_the_message(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    gone = feeds.url("/media/gone.mp3")
    media = Media(MediaKind.AUDIO, (gone,), title="Episode 9", performer="Ada", duration=4385)
    answer = await TelegramMessenger(bot).send(Outgoing(1, "<b>Episode 9</b>", media=media))
    assert answer.reply is Reply.ACCEPTED
    assert bot_api.media_to(1) == []
    assert bot_api.texts(1) == ["<b>Episode 9</b>"]


async def test_a_video_by_url_streams_with_its_duration(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    clip = feeds.serve("/media/clip.mp4", MP4, content_type="video/mp4")
    media = Media(MediaKind.VIDEO, (clip,), duration=95)
    answer = await TelegramMessenger(bot).send(
        Outgoing(1, "<b>A clip</b>", media=media, follow=("Follow changes", 5), thread_id=3)
    )
    assert answer.reply is Reply.ACCEPTED
    [sent] = bot_api.media_to(1)
    assert sent.method == "sendVideo" and sent.params["duration"] == 95
    assert sent.params["supports_streaming"] is True
    assert sent.params["message_thread_id"] == 3
    assert sent.params["reply_markup"]["inline_keyboard"][0][0]["text"] == "Follow changes"


async def test_the_text_after_an_album_waits_out_a_429_instead_of_resending_the_album(
    bot: ExtBot[Any], bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    urls = pictures(feeds, "busy", 2)
    bot_api.fail(
        "sendMessage", code=429, description="Too Many Requests: retry after 1", retry_after=1
    )
    bot_api.fail("sendMessage", code=502, description="Bad Gateway")
    answer = await TelegramMessenger(bot).send(Outgoing(-100777, "w" * 1100, media=album(urls)))
    assert answer.reply is Reply.ACCEPTED
    [sent] = bot_api.media_to(-100777)
    assert answer.message_id == sent.message_ids[0]
    assert bot_api.texts(-100777)[-1] == "w" * 1100
    assert len(bot_api.calls_to("sendMessage")) == 3
