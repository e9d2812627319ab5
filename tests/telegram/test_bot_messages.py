"""How notifications arrive, end to end through the fake Bot API: an edit replies to the chat's
original message about the post (and still arrives when that message was deleted), a feed set
to /silent arrives without a notification sound, and a digest lists a post and its edit once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, col, select

from bot.db.tables import Delivery
from bot.services.digests import run_digests
from tests.support.fakes.bot_api import FakeBotApi, Sent
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, lumen_bot

READER, QUIET = 501, 502


def corrected(times: int) -> tuple[blog.Post, ...]:
    """AFTER, with `times` corrections appended to the Corvid post (a real edit each time)."""
    lines = tuple(f"Correction {n}: the working group meets monthly." for n in range(times))
    corvid = replace(blog.CORVID, paragraphs=(*blog.CORVID.paragraphs, *lines))
    return tuple(corvid if p.guid == blog.CORVID.guid else p for p in blog.AFTER_POSTS)


def about(api: FakeBotApi, chat_id: int, title: str) -> list[Sent]:
    return [s for s in api.sent if s.chat_id == chat_id and title in s.text.split("\n")[0]]


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        await ask(bot_api, "/subscribe lumen", READER)
        await ask(bot_api, "/subscribe lumen", QUIET)
        yield running


async def test_an_edit_replies_to_the_original_message_even_once_it_is_deleted(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    (original,) = about(bot_api, READER, blog.CORVID.title)
    assert "reply_parameters" not in original.params
    with Session(bot.engine) as session:
        stored = session.exec(
            select(Delivery.message_id).where(
                Delivery.chat_id == READER, col(Delivery.text).contains(blog.CORVID.title)
            )
        ).one()
    assert stored == original.message_id

    feeds.serve("/feed/", blog.rss(corrected(1)))
    await cycle(bot, bot_api)
    _, update = about(bot_api, READER, blog.CORVID.title)
    assert update.text.startswith("<b>Updated:")
    assert update.params["reply_parameters"] == {
        "message_id": original.message_id,
        "allow_sending_without_reply": True,
    }
    others = about(bot_api, QUIET, blog.CORVID.title)
    assert others[1].params["reply_parameters"]["message_id"] == others[0].message_id

    bot_api.delete_message(READER, original.message_id)
    feeds.serve("/feed/", blog.rss(corrected(2)))
    await cycle(bot, bot_api)
    *_, second_update = about(bot_api, READER, blog.CORVID.title)
    assert "Correction 1" in second_update.text  # delivered, replying to nothing
    assert second_update.params["reply_parameters"]["message_id"] == original.message_id


async def test_a_silent_feed_arrives_without_a_sound_and_others_with_one(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    reply = await ask(bot_api, "/silent lumen on", QUIET)
    assert reply == "Messages from <b>Lumen Blog</b> now arrive without a sound."
    assert "silent" in await ask(bot_api, "/list", QUIET)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    quiet = [s for s in bot_api.sent if s.chat_id == QUIET and s.text.startswith("<b><a")]
    loud = [s for s in bot_api.sent if s.chat_id == READER and s.text.startswith("<b><a")]
    assert len(quiet) == len(loud) == 3
    assert all(s.params.get("disable_notification") is True for s in quiet)
    assert not any(s.params.get("disable_notification") for s in loud)

    assert await ask(bot_api, "/silent lumen off", QUIET) == (
        "Messages from <b>Lumen Blog</b> now arrive with a notification sound."
    )
    feeds.serve("/feed/", blog.rss(corrected(1)))
    await cycle(bot, bot_api)
    (update,) = [s for s in about(bot_api, QUIET, blog.CORVID.title) if "Updated" in s.text]
    assert not update.params.get("disable_notification")


async def test_silent_needs_a_feed_and_on_or_off(bot: RunningBot, bot_api: FakeBotApi) -> None:
    reply = await ask(bot_api, "/silent lumen loudly", QUIET)
    assert "/silent <i>feed name</i> on|off" in reply


async def test_a_digest_lists_a_post_and_its_edit_of_the_same_period_once(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    assert "every hour" in await ask(bot_api, "/digest lumen hourly", QUIET)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    feeds.serve("/feed/", blog.rss(corrected(1)))
    await cycle(bot, bot_api)
    later = datetime.now(UTC) + timedelta(hours=1, minutes=1)
    assert run_digests(bot.engine, clock=lambda: later) == 1
    bot.services.wake.set()
    await bot_api.wait_for(lambda: any(t.startswith("<b>Digest:") for t in bot_api.texts(QUIET)))
    (digest,) = [t for t in bot_api.texts(QUIET) if t.startswith("<b>Digest:")]
    assert digest.startswith("<b>Digest: Lumen Blog</b> — 3 posts")
    assert digest.count(blog.CORVID.title) == 1
    corvid_line = next(n for n, line in enumerate(digest.split("\n")) if blog.CORVID.title in line)
    assert (
        "↳ <i>edited since it was posted</i>"
        in digest.split("\n")[corvid_line + 1 : corvid_line + 4]
    )


def video_feed(*ids: str) -> bytes:
    """A YouTube-style Media RSS feed (thumbnails in media:group)."""
    entries = "".join(
        f"<entry><id>yt:video:{v}</id><title>Talk {v}</title>"
        f'<link rel="alternate" href="https://www.youtube.com/watch?v={v}"/>'
        f"<published>2026-11-2{n}T10:00:00+00:00</published><media:group>"
        f'<media:thumbnail url="https://i1.ytimg.com/vi/{v}/hqdefault.jpg" width="480"/>'
        f"<media:description>About {v}.</media:description></media:group></entry>"
        for n, v in enumerate(ids)
    )
    return (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:media="http://search.yahoo.com/mrss/"><title>Quillon Talks</title>'
        f"{entries}</feed>"
    ).encode()


async def test_posts_show_their_image_above_the_text_unless_the_chat_said_off(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = feeds.serve("/videos.xml", video_feed("aaa"), content_type="application/atom+xml")
    await bot.services.catalog.add_feed(url, slug="talks", trusted=True)
    await ask(bot_api, "/subscribe talks", READER)
    await ask(bot_api, "/subscribe talks", QUIET)
    assert "no preview" in await ask(bot_api, "/preview talks off", QUIET)
    feeds.serve("/videos.xml", video_feed("aaa", "bbb"))
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)

    (video,) = about(bot_api, READER, "Talk bbb")
    assert video.text == (
        '<b><a href="https://www.youtube.com/watch?v=bbb">Talk bbb</a></b>\n'
        "Quillon Talks · 21 Nov 2026\n"
        "\n"
        "About bbb."
    )
    # A YouTube entry keeps Telegram's player card, not its thumbnail as a photo (issue 47).
    assert video.params["link_preview_options"] == {"is_disabled": False}
    (corvid,) = about(bot_api, READER, blog.CORVID.title)  # its content starts with an <img>
    assert corvid.params["link_preview_options"]["url"] == (
        "https://blog.lumen.example/uploads/corvid-member.png"
    )
    (pune,) = about(bot_api, READER, blog.PUNE.title)  # no image: the card of its page
    assert pune.params["link_preview_options"] == {"is_disabled": False}
    assert pune.text.startswith(f'<b><a href="{blog.PUNE.link}">')  # the link previewed
    (quiet_video,) = about(bot_api, QUIET, "Talk bbb")
    assert quiet_video.params["link_preview_options"] == {"is_disabled": True}
