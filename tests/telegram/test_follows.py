"""Following a post end to end (issue 45): the button under a new post's message and /follow
LINK, through PTB and the fake Bot API. A followed post that left its feed is read on its page
(conditional GET), and its page's real change reaches the chat as a reply to the post's message
within two poll intervals, though the chat turned the feed's edits off; /following lists and
ends follows; the limit; in es and zh too."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.watch_site import POSTS, serve_feed, serve_pages
from tests.support.harness import RunningBot, ask, bot_settings, keyboard, press, running_bot

CHAT, SPANISH, CHINESE = 111, 222, 333
INTERVAL = 2
OLD, FERRY, REGATTA = POSTS[0], POSTS[1], POSTS[2]
NEWS = "The ferry now leaves at 07:40 instead of 08:15 on weekdays from 1 December."


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=INTERVAL, max_follows_per_chat=2)
    serve_pages(feeds, POSTS)
    url = serve_feed(feeds, (OLD,))
    async with running_bot(settings) as running:
        await running.services.catalog.add_feed(url, slug="harbour", trusted=True)
        yield running


def sent_to(api: FakeBotApi, chat_id: int) -> list[Any]:
    with api.lock:
        return [s for s in api.sent if s.chat_id == chat_id]


def post_message(api: FakeBotApi, chat_id: int, title: str) -> Any:
    return next(
        s for s in sent_to(api, chat_id) if s.text.startswith("<b><a href") and title in s.text
    )


def follow_data(message: Any) -> str:
    (row,) = message.params["reply_markup"]["inline_keyboard"]
    (button,) = row
    data: str = button["callback_data"]
    assert data.startswith("follow:")
    return data


async def arrive(api: FakeBotApi, feeds: FeedServer, chat_id: int, title: str) -> Any:
    serve_feed(feeds, (OLD, FERRY, REGATTA))
    await api.wait_for(
        lambda: any(title in s.text for s in sent_to(api, chat_id)), timeout=4 * INTERVAL + 10
    )
    return post_message(api, chat_id, title)


def replies_to(api: FakeBotApi, chat_id: int, message_id: int) -> list[str]:
    return [
        s.text
        for s in sent_to(api, chat_id)
        if (s.params.get("reply_parameters") or {}).get("message_id") == message_id
    ]


async def test_a_followed_post_that_left_its_feed_is_followed_on_its_page(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe harbour", CHAT)
    assert ": off." in await ask(bot_api, "/edits harbour off", CHAT)
    message = await arrive(bot_api, feeds, CHAT, FERRY.title)
    assert "Follow changes" in str(message.params["reply_markup"])

    answer = await press(bot_api, follow_data(message), CHAT)
    assert answer["text"].startswith(f"Following {FERRY.title} until ")
    # The baseline: the page read once while the post is still in its feed.
    await bot_api.wait_for(lambda: len(feeds.hits(FERRY.path())) >= 1, timeout=20)

    serve_feed(feeds, (OLD, REGATTA))  # the post leaves the feed...
    serve_pages(feeds, (FERRY.edited(NEWS),))  # ...and its page changes
    changed = time.monotonic()
    await bot_api.wait_for(lambda: replies_to(bot_api, CHAT, message.message_id), timeout=30)
    took = time.monotonic() - changed
    (reply,) = replies_to(bot_api, CHAT, message.message_id)
    assert reply.startswith("<b>Updated: <a href=")
    assert "07:40 instead of 08:15" in reply
    # Two intervals, plus a page worker's cold start on a loaded machine.
    print(f"page change replied in {took:.1f} s")
    assert took < 2 * INTERVAL + 10, took
    # Conditional GETs from then on: the unchanged page answers 304 and nothing more is sent.
    hits = len(feeds.hits(FERRY.path()))
    await bot_api.wait_for(lambda: len(feeds.hits(FERRY.path())) >= hits + 2, timeout=20)
    assert any("If-None-Match" in h.headers for h in feeds.hits(FERRY.path())[hits:])
    assert len(replies_to(bot_api, CHAT, message.message_id)) == 1


async def test_follow_by_link_the_list_the_limit_and_the_end(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe harbour", CHAT)
    await arrive(bot_api, feeds, CHAT, REGATTA.title)
    base = feeds.url("").rstrip("/")
    assert "1 to 60 days" in await ask(bot_api, f"/follow {base}{FERRY.path()} 61", CHAT)
    assert "No post with that link" in await ask(bot_api, f"/follow {base}/nowhere/", CHAT)
    said = await ask(bot_api, f"/follow {base}{FERRY.path()} 30", CHAT)
    assert said.startswith("Following <a href=") and FERRY.title in said
    # the link as written without its final slash is the same post
    assert "Following" in await ask(bot_api, f"/follow {base}{REGATTA.path().rstrip('/')}", CHAT)
    refused = await ask(bot_api, f"/follow {base}{OLD.path()}", CHAT)
    assert "already follows 2 posts" in refused

    listed = await ask(bot_api, "/following", CHAT)
    assert FERRY.title in listed and REGATTA.title in listed
    rows = keyboard(bot_api, CHAT)
    assert [r[0]["callback_data"].split(":")[0] for r in rows] == ["unfollow", "unfollow"]
    await press(bot_api, rows[0][0]["callback_data"], CHAT)
    await bot_api.wait_for(
        lambda: "No longer following" in str(bot_api.calls_to("answerCallbackQuery"))
    )
    assert "Following" in await ask(bot_api, f"/follow {base}{OLD.path()}", CHAT)


async def test_spanish_and_chinese(bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer) -> None:
    for chat, language in ((SPANISH, "es"), (CHINESE, "zh")):
        await ask(bot_api, f"/language {language}", chat)
        await ask(bot_api, "/subscribe harbour", chat)
    spanish = await arrive(bot_api, feeds, SPANISH, FERRY.title)
    await bot_api.wait_for(lambda: any(FERRY.title in t for t in bot_api.texts(CHINESE)))
    chinese = post_message(bot_api, CHINESE, FERRY.title)
    assert "Seguir cambios" in str(spanish.params["reply_markup"])
    assert "关注修改" in str(chinese.params["reply_markup"])
    assert (await press(bot_api, follow_data(spanish), SPANISH))["text"].startswith("Siguiendo ")
    assert (await press(bot_api, follow_data(chinese), CHINESE))["text"].startswith("正在关注 ")
    assert "Entradas seguidas" in await ask(bot_api, "/following", SPANISH)
    assert "关注的文章" in await ask(bot_api, "/following", CHINESE)
    base = feeds.url("").rstrip("/")
    assert "de 1 a 60 días" in await ask(bot_api, f"/follow {base}{FERRY.path()} 0", SPANISH)


async def test_a_followed_post_edited_in_its_feed_with_edits_off(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    for chat in (CHAT, SPANISH):
        await ask(bot_api, "/subscribe harbour", chat)
        await ask(bot_api, "/edits harbour off", chat)
    message = await arrive(bot_api, feeds, CHAT, FERRY.title)
    await bot_api.wait_for(lambda: any(FERRY.title in t for t in bot_api.texts(SPANISH)))
    await press(bot_api, follow_data(message), CHAT)
    # the feed itself shows the edit: the follower hears it, the other chat (edits off) not
    edited = replace(FERRY, paragraphs=(NEWS, *FERRY.paragraphs[1:]))
    serve_feed(feeds, (OLD, edited, REGATTA))
    await bot_api.wait_for(lambda: replies_to(bot_api, CHAT, message.message_id), timeout=30)
    (reply,) = replies_to(bot_api, CHAT, message.message_id)
    assert reply.startswith("<b>Updated: <a href=") and "07:40" in reply
    assert not any(t.startswith("<b>Updated") for t in bot_api.texts(SPANISH))


def tiny(price: str) -> bytes:
    """A page too short for an article: its whole visible text is what is compared."""
    return (
        "<!DOCTYPE html><html><head><title>Fares</title></head><body>"
        f"<h1>Ferry fares</h1><p>Adult return: {price}.</p></body></html>"
    ).encode()


async def test_a_short_page_without_an_article_is_followed_whole(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/subscribe harbour", CHAT)
    feeds.serve(FERRY.path(), tiny("$49"), content_type="text/html; charset=utf-8")
    message = await arrive(bot_api, feeds, CHAT, FERRY.title)
    await press(bot_api, follow_data(message), CHAT)
    await bot_api.wait_for(lambda: len(feeds.hits(FERRY.path())) >= 1, timeout=20)
    serve_feed(feeds, (OLD, REGATTA))
    feeds.serve(FERRY.path(), tiny("$59"), content_type="text/html; charset=utf-8")
    await bot_api.wait_for(lambda: replies_to(bot_api, CHAT, message.message_id), timeout=30)
    (reply,) = replies_to(bot_api, CHAT, message.message_id)
    assert "$59" in reply and "$49" in reply
