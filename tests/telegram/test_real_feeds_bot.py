"""Detection on real feeds, end to end on SQLite and PostgreSQL: feed server → poll → outbox →
PTB → fake Bot API. Re-keyed posts keep their history (an edit still replies to the first
message), history and templates are stored silently, and a flood of new posts is one list."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlmodel import Session, col, select

from bot.core.detection.identity import identity_of
from bot.db.tables import Delivery, Item
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import generators as g
from tests.support.fixtures.generators import NOW, window
from tests.support.harness import RunningBot, bot_settings, command, cycle, running_bot
from tests.support.telegram_html import assert_valid_telegram_html

ALL, WILDLIFE = 111, 222
W = window(10)


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        yield running


async def watch(bot: RunningBot, api: FakeBotApi, feeds: FeedServer, body: bytes) -> None:
    url = feeds.serve("/tide.xml", body)
    await bot.services.catalog.add_feed(url, slug="tide", trusted=True)
    await command(api, "/subscribe tide", ALL)
    await command(api, "/subscribe tide", WILDLIFE)
    await command(api, "/filter tide Wildlife", WILDLIFE)


def notes(api: FakeBotApi, chat_id: int) -> list[str]:
    return [t for t in api.texts(chat_id) if t.startswith("<b>")]


def items(bot: RunningBot) -> dict[str, int]:
    with Session(bot.engine) as session:
        return {key: id_ for key, id_ in session.exec(select(Item.key, Item.id)).all() if id_}


async def test_a_guid_migration_keeps_each_post_and_its_thread(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    await watch(bot, bot_api, feeds, g.wordpress(W[1:]))
    feeds.serve("/tide.xml", g.wordpress(W))  # one new post: its message is the thread's start
    await cycle(bot, bot_api)
    assert len(notes(bot_api, ALL)) == 1
    before = items(bot)

    caplog.set_level(logging.INFO, logger="bot.services.polling")
    feeds.serve("/tide.xml", g.wordpress(W, guid_scheme="https", guid_suffix="&v=2"))
    await cycle(bot, bot_api)
    assert len(notes(bot_api, ALL)) == 1
    after = items(bot)
    assert sorted(after.values()) == sorted(before.values())  # the same rows, re-keyed
    assert all(key.startswith("https://") and key.endswith("&v=2") for key in after)
    with Session(bot.engine) as session:  # and each row is findable by its new key's identity
        rows = session.exec(select(Item.key, Item.link, Item.title, Item.published_at)).all()
        canon = dict(session.exec(select(Item.key, Item.canon_key)).all())
    for key, link, title, published in rows:
        assert canon[key] == identity_of(key, link, title, published).canon_key
    logged = [r.getMessage() for r in caplog.records if "re-keyed" in r.getMessage()]
    assert logged == ["feed tide: re-keyed 10 items: GUID migration (10 by link)"]

    edited = (replace(W[0], extra=("The pier reopens on Friday.",)), *W[1:])
    feeds.serve("/tide.xml", g.wordpress(edited, guid_scheme="https", guid_suffix="&v=2"))
    await cycle(bot, bot_api)
    update = notes(bot_api, ALL)[-1]
    assert update.startswith("<b>Updated:") and "The pier reopens on Friday." in update
    first, last = (s for s in bot_api.sent if s.chat_id == ALL and s.text.startswith("<b>"))
    assert last.params["reply_parameters"]["message_id"] == first.message_id


async def test_history_and_templates_are_stored_silently(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.services.polling")
    await watch(bot, bot_api, feeds, g.wordpress(W))
    feeds.serve("/tide.xml", g.wordpress(window(30)))
    await cycle(bot, bot_api)
    assert len(items(bot)) == 30 and notes(bot_api, ALL) == []

    feeds.serve("/tide.xml", g.wordpress(window(30), footer=True))
    await cycle(bot, bot_api)
    assert notes(bot_api, ALL) == []
    with Session(bot.engine) as session:
        texts = session.exec(select(Item.text)).all()
        assert all("appeared first on Tidepool Notes." in text for text in texts)
        assert session.exec(select(Delivery)).all() == []
    messages = [r.getMessage() for r in caplog.records if r.getMessage().startswith("feed tide:")]
    assert "feed tide: stored 20 older items silently" in messages
    assert "feed tide: ignored a template change on 30 items" in messages


async def test_a_flood_of_new_posts_is_one_list_per_chat(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.services.polling")
    await watch(bot, bot_api, feeds, g.wordpress(W[:2]))
    fresh = tuple(
        replace(p, published=NOW + timedelta(hours=20 - n))
        for n, p in enumerate(window(14, start=12))
    )
    feeds.serve("/tide.xml", g.wordpress((*fresh, *W[:2])))
    await cycle(bot, bot_api)
    (listing,) = notes(bot_api, ALL)
    assert_valid_telegram_html(listing)
    assert listing.startswith("<b>Tidepool Notes</b> — 14 new posts at once")
    for post in fresh:
        assert f'<a href="{post.link}">' in listing
    wildlife = notes(bot_api, WILDLIFE)  # 7 posts pass its filter: under the limit, one each
    assert len(wildlife) == 7 and all(t.startswith("<b><a href") for t in wildlife)
    assert any("over MAX_NEW_PER_POLL=10" in r.getMessage() for r in caplog.records)
    with Session(bot.engine) as session:
        kinds = session.exec(select(Delivery.kind).where(col(Delivery.chat_id) == ALL)).all()
    assert kinds == ["list"]
