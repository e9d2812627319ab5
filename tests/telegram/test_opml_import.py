"""An OPML file from any chat (issue 43, item 4), through PTB and the fake Bot API, in en, es
and zh: each feed it lists goes through what a pasted link goes through (the SSRF guard: the
loopback-only network of `test_ssrf` records every connection it allowed; the per-person feed
limit; FEED_ADDING) and the sending chat is subscribed to each, with one line per feed. A
plain user's private chat, a group's admin (not a member), and a channel managed from a private
chat; operators get the same, without the per-person limit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlmodel import Session

from bot.core.lang import Translator
from bot.db import store
from bot.net.fetch import Fetcher, FetchLimits
from bot.runtime.i18n import translator
from bot.telegram import texts
from bot.telegram.commands import importing
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.network import PUBLIC_IP, LoopbackOnly, make_resolver
from tests.support.fixtures import blog
from tests.support.harness import (
    OPERATOR_ID,
    RunningBot,
    ask,
    bot_settings,
    running_bot,
)
from tests.support.telegram_html import assert_valid_telegram_html

USER, GROUP, ADMIN, MEMBER, CHANNEL = 111, -1001, 77, 78, -1005001
NAMES = {"blog.example": [PUBLIC_IP], "news.example": [PUBLIC_IP], "intranet.example": ["10.0.0.7"]}
BLOCKED = "That address leads to a private network, and this bot only reads public websites."


@asynccontextmanager
async def guarded_bot(
    db_url: str, api: FakeBotApi, feeds: FeedServer, **overrides: object
) -> AsyncIterator[tuple[RunningBot, LoopbackOnly]]:
    """A bot whose chat-added feeds go through the SSRF guard on a network where our public
    names lead to the feed server and nothing else is reachable; it watches `lumen`."""
    backend = LoopbackOnly()
    fetcher = Fetcher(
        FetchLimits(total_timeout=20),  # about addresses, not time: generous under load
        allow_private=False,
        resolver=make_resolver(NAMES),
        network_backend=backend,
        allowed_ports=None,  # the feed server's port is random
    )
    settings = bot_settings(db_url, api, poll_interval_seconds=3600, **overrides)
    async with running_bot(settings, fetcher=fetcher) as running:
        url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
        await running.services.catalog.add_feed(url, slug="lumen", trusted=True)
        yield running, backend


def public(feeds: FeedServer, host: str, path: str) -> str:
    port = feeds.url("/").rsplit(":", 1)[1].split("/")[0]
    return f"http://{host}:{port}{path}"


def opml(*entries: tuple[str, str]) -> bytes:
    outlines = "".join(
        f'<outline type="rss" text="{title}" title="{title}" xmlUrl="{url}"/>'
        for title, url in entries
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>Mine</title>'
        f'</head><body><outline text="Reading">{outlines}</outline></body></opml>'
    ).encode()


async def send_file(
    api: FakeBotApi,
    content: bytes,
    chat_id: int,
    tr: Translator,
    *,
    user_id: int | None = None,
    name: str = "subscriptions.opml",
) -> str:
    """Send the file; return the import's answer once it is there (its progress message, if
    one was shown, is edited into it)."""
    before = len(api.texts(chat_id))
    marker = tr.gettext(importing.HEADER).split("{", 1)[0]
    api.push_document(content, chat_id=chat_id, user_id=user_id, language=tr.language, name=name)

    def answer() -> str | None:
        return next((t for t in api.shown(chat_id)[before:] if marker in t), None)

    await api.wait_for(lambda: answer() is not None, timeout=30)
    text = str(answer())
    assert_valid_telegram_html(text)
    return text


def following(bot: RunningBot, chat_id: int) -> list[str]:
    with Session(bot.engine) as session:
        return [feed.slug for _, feed in store.chat_subscriptions(session, chat_id=chat_id)]


def watched(bot: RunningBot) -> dict[str, store.FeedView]:
    with Session(bot.engine) as session:
        return {row.feed.slug: row.feed for row in store.list_feeds(session)}


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_a_plain_users_file_subscribes_that_chat_and_refuses_private_addresses(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer, language: str
) -> None:
    tr = translator(language)
    async with guarded_bot(db_url, bot_api, feeds) as (bot, backend):
        await ask(bot_api, "/subscribe lumen", USER, language=language)
        feeds.serve("/harbor/feed/", blog.rss((blog.PUNE,), title="Harbor Notes"))
        feeds.serve("/quarry/", blog.rss((blog.CORVID,), title="Quarry Weekly"))
        secret = feeds.serve("/secret/", blog.rss((blog.LISBON,), title="Secret"))
        document = opml(
            ("Harbor Notes", public(feeds, "blog.example", "/harbor/feed/")),
            ("Lumen", feeds.url("/feed/")),  # watched: matched by its address, not fetched
            ("Intranet", "http://intranet.example/feed.xml"),
            ("Quarry Weekly", public(feeds, "news.example", "/quarry/")),
            ("Secret", secret),
        )
        answer = await send_file(bot_api, document, USER, tr)
        blocked = tr.gettext(BLOCKED)
        assert answer.split("\n") == [
            tr.gettext(importing.HEADER).format(added=2, had=1, refused=2),
            tr.gettext(importing.ADDED).format(title="Harbor Notes"),
            tr.gettext(importing.HAD).format(title="Lumen Blog"),
            tr.gettext(importing.REFUSED).format(
                name="<b>Intranet</b> (<code>http://intranet.example/feed.xml</code>)",
                reason=blocked,
            ),
            tr.gettext(importing.ADDED).format(title="Quarry Weekly"),
            tr.gettext(importing.REFUSED).format(
                name=f"<b>Secret</b> (<code>{secret}</code>)", reason=blocked
            ),
        ]
        assert sorted(following(bot, USER)) == ["harbor-notes", "lumen", "quarry-weekly"]
        added = watched(bot)
        assert set(added) == {"harbor-notes", "lumen", "quarry-weekly"}  # nothing private
        for slug in ("harbor-notes", "quarry-weekly"):
            assert added[slug].added_by == USER and not added[slug].trusted
        assert not feeds.hits("/secret/")
        assert set(backend.connected) == {PUBLIC_IP}  # the guard let nothing else through


async def test_the_per_person_limit_holds_and_watched_feeds_still_come(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    tr = translator("en")
    async with guarded_bot(db_url, bot_api, feeds, max_feeds_per_user=1) as (bot, _backend):
        feeds.serve("/harbor/feed/", blog.rss((blog.PUNE,), title="Harbor Notes"))
        feeds.serve("/quarry/", blog.rss((blog.CORVID,), title="Quarry Weekly"))
        feeds.serve("/third/", blog.rss((blog.LISBON,), title="Third"))
        document = opml(
            ("Harbor Notes", public(feeds, "blog.example", "/harbor/feed/")),
            ("Quarry Weekly", public(feeds, "news.example", "/quarry/")),
            ("Third", public(feeds, "news.example", "/third/")),
            ("Lumen", feeds.url("/feed/")),
        )
        answer = await send_file(bot_api, document, USER, tr)
        limit = "You have added as many feeds as one person may (1)."
        assert answer.split("\n") == [
            "<b>OPML import</b>: 2 subscribed, 0 already subscribed, 2 refused.",
            "✅ <b>Harbor Notes</b>: subscribed.",
            "✖ <b>Quarry Weekly</b> (<code>"
            + public(feeds, "news.example", "/quarry/")
            + f"</code>): refused. {limit}",
            "✖ <b>Third</b> (<code>"
            + public(feeds, "news.example", "/third/")
            + f"</code>): refused. {limit}",
            "✅ <b>Lumen Blog</b>: subscribed.",
        ]
        assert not feeds.hits("/third/")  # past the limit a new address is not even fetched
        assert sorted(following(bot, USER)) == ["harbor-notes", "lumen"]


async def test_in_a_group_only_admins_import(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    tr = translator("en")
    async with guarded_bot(db_url, bot_api, feeds) as (bot, _backend):
        bot_api.set_member(GROUP, ADMIN, "administrator")
        bot_api.set_member(GROUP, MEMBER, "member")
        feeds.serve("/harbor/feed/", blog.rss((blog.PUNE,), title="Harbor Notes"))
        document = opml(("Harbor Notes", public(feeds, "blog.example", "/harbor/feed/")))
        before = len(bot_api.texts(GROUP))
        bot_api.push_document(document, chat_id=GROUP, user_id=MEMBER)
        (refused,) = await bot_api.wait_replies(GROUP, before + 1)
        assert refused == texts.ADMINS_ONLY and following(bot, GROUP) == []
        bot_api.push_document(b"not xml", chat_id=GROUP, user_id=ADMIN, name="notes.xml")
        answer = await send_file(bot_api, document, GROUP, tr, user_id=ADMIN)
        assert answer == (
            "<b>OPML import</b>: 1 subscribed, 0 already subscribed, 0 refused.\n"
            "✅ <b>Harbor Notes</b>: subscribed."
        )
        assert following(bot, GROUP) == ["harbor-notes"] and following(bot, ADMIN) == []
        assert len(bot_api.texts(GROUP)) == before + 2  # notes.xml in a group: not a list


async def test_a_channel_managed_from_a_private_chat_is_subscribed(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    tr = translator("en")
    async with guarded_bot(db_url, bot_api, feeds) as (bot, _backend):
        bot_api.add_channel(CHANNEL, "Lumen News", username="lumen_news", admins=(USER,))
        await ask(bot_api, "/channel @lumen_news")
        answer = await send_file(bot_api, opml(("Lumen", feeds.url("/feed/"))), USER, tr)
        assert answer == (
            "📢 <b>Lumen News</b>\n"
            "<b>OPML import</b>: 1 subscribed, 0 already subscribed, 0 refused.\n"
            "✅ <b>Lumen Blog</b>: subscribed."
        )
        assert following(bot, CHANNEL) == ["lumen"] and following(bot, USER) == []


async def test_where_only_operators_add_feeds_others_get_watched_ones(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    tr = translator("en")
    async with guarded_bot(db_url, bot_api, feeds, feed_adding="operators") as (bot, _backend):
        feeds.serve("/harbor/feed/", blog.rss((blog.PUNE,), title="Harbor Notes"))
        harbor = public(feeds, "blog.example", "/harbor/feed/")
        document = opml(("Harbor Notes", harbor), ("Lumen", feeds.url("/feed/")))
        answer = await send_file(bot_api, document, USER, tr)
        assert answer.split("\n")[1:] == [
            f"✖ <b>Harbor Notes</b> (<code>{harbor}</code>): refused. " + texts.ADDING_CLOSED,
            "✅ <b>Lumen Blog</b>: subscribed.",
        ]
        assert not feeds.hits("/harbor/feed/")
        answer = await send_file(bot_api, document, OPERATOR_ID, tr)
        assert answer.split("\n")[1:] == [
            "✅ <b>Harbor Notes</b>: subscribed.",
            "✅ <b>Lumen Blog</b>: subscribed.",
        ]
        assert sorted(following(bot, OPERATOR_ID)) == ["harbor-notes", "lumen"]
        assert watched(bot)["harbor-notes"].added_by == OPERATOR_ID
