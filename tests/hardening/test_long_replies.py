"""Every reply fits Telegram's limits (issue 11, item 8), and the fake Bot API refuses what
Telegram refuses, so a reply that would not fit fails here as it would in production."""

from __future__ import annotations

import html
from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.paging import split_message
from bot.core.messages.render import TELEGRAM_LIMIT, telegram_length
from bot.db import store
from bot.db.engine import transaction
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, lumen_bot
from tests.support.telegram_html import assert_valid_telegram_html

CHAT = 111


@pytest.fixture
async def bot(sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(
        sqlite_url, bot_api, feeds, blog.AFTER_POSTS, max_categories_per_filter=60
    ) as running:
        yield running


def add_feeds(bot: RunningBot, count: int) -> list[str]:
    slugs = [f"feed-{n:03d}" for n in range(count)]
    with transaction(bot.engine) as session:
        for slug in slugs:
            title = f"A blog with a rather long name about compilers and chips, number {slug} " * 2
            store.add_feed(
                session, slug=slug, url=f"https://e.org/{slug}", title=title, trusted=True
            )
    return slugs


async def all_replies(api: FakeBotApi, chat_id: int, command: str) -> list[str]:
    """Every message the bot sends for `command` (a /help afterwards marks the end)."""
    before = len(api.texts(chat_id))
    api.push_command(command, chat_id=chat_id, user_id=chat_id)
    api.push_command("/help", chat_id=chat_id, user_id=chat_id)
    await api.wait_for(lambda: any("/unsubscribe" in t for t in api.texts(chat_id)[before:]))
    replies = api.texts(chat_id)[before:]
    end = next(i for i, t in enumerate(replies) if "/unsubscribe" in t)
    return replies[:end]


async def test_feeds_with_95_feeds_is_split_and_loses_nothing(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    slugs = add_feeds(bot, 95)
    replies = await all_replies(bot_api, CHAT, "/feeds")
    assert len(replies) >= 2
    for reply in replies:
        assert telegram_length(reply) <= TELEGRAM_LIMIT
        assert_valid_telegram_html(reply)
    joined = "\n".join(replies)
    assert all(f"<code>{slug}</code>" in joined for slug in slugs)


async def test_list_with_many_subscriptions_keeps_its_keyboard_on_the_last_part(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    slugs = add_feeds(bot, 45)
    for slug in slugs:
        await ask(bot_api, f"/subscribe {slug}", CHAT)
    replies = await all_replies(bot_api, CHAT, "/list")
    # Since /list comes in pages of 20 (issue 23), a page of these long titles may fit one
    # message; however many parts it takes, the keyboard is under the last.
    assert len(replies) >= 1 and all(telegram_length(r) <= TELEGRAM_LIMIT for r in replies)
    with bot_api.lock:
        markups = [s.params.get("reply_markup") for s in bot_api.sent if s.chat_id == CHAT]
    list_markups = markups[-len(replies) - 1 : -1]  # the /help reply comes last
    assert [m is not None for m in list_markups] == [False] * (len(replies) - 1) + [True]


async def test_filter_with_long_category_names_fits(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/subscribe lumen", CHAT)
    names = ", ".join(f"{n:02d} " + "Category with a long descriptive name " * 2 for n in range(55))
    replies = await all_replies(bot_api, CHAT, f"/filter lumen {names}")
    shown = "".join(html.unescape(r) for r in replies)
    assert shown.startswith("Filter for Lumen Blog: 00 Category")
    assert all(telegram_length(r) <= TELEGRAM_LIMIT for r in replies)
    assert "54 Category" in shown


line = st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=300).map(
    lambda t: f"<b>{html.escape(t, quote=False)}</b> {html.escape(t[::-1], quote=False)}"
)


@given(st.lists(line, max_size=80), st.integers(min_value=50, max_value=TELEGRAM_LIMIT))
def test_split_parts_fit_stay_valid_and_keep_every_line(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    parts = split_message(text, limit)
    for part in parts:
        assert telegram_length(part) <= limit
        assert_valid_telegram_html(part)
    if all(telegram_length(x) <= limit for x in lines):  # no line had to be cut
        kept = [x for x in "\n".join(parts).split("\n")]
        assert [x for x in kept if x.strip()] == [x for x in lines if x.strip()]


async def test_the_fake_refuses_what_telegram_refuses(bot_api: FakeBotApi) -> None:
    url = f"{bot_api.base_url}{bot_api.token}/sendMessage"
    async with httpx.AsyncClient() as client:

        async def send(**params: object) -> httpx.Response:
            return await client.post(url, json=params)

        long_text = "😀" * 2049  # 4098 UTF-16 units
        refused = await send(chat_id=1, text=long_text)
        assert refused.status_code == 400 and "too long" in refused.json()["description"]
        markup = "<b>" + "x" * 4096 + "</b>"  # tags do not count: 4096 visible units fit
        assert (await send(chat_id=1, text=markup, parse_mode="HTML")).status_code == 200
        keyboard = {"inline_keyboard": [[{"text": "b", "callback_data": "x" * 65}]]}
        refused = await send(chat_id=1, text="hi", reply_markup=keyboard)
        assert refused.status_code == 400 and "BUTTON_DATA_INVALID" in refused.text
        answers = [(await send(chat_id=-1005, text=f"m{n}")).status_code for n in range(21)]
        assert answers == [200] * 20 + [429]
        flood = await send(chat_id=-1005, text="again")
        assert flood.json()["parameters"]["retry_after"] >= 50
        assert (await send(chat_id=2, text="a private chat is not limited here")).status_code == 200
