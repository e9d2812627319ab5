"""Summaries and translations by the operator's language model (issue 28), through the real
poller and the real `openai` client against a loopback fake of the chat-completions API, on
SQLite and PostgreSQL: one call per post and language, however many chats; a cache that
survives a restart; every chat served on time when the endpoint fails; the breaker and the
hourly cap; a translating Chinese chat's keyword finding the English post; the model's markup
and links unable to break or spoof a message."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from html import escape

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.messages.render import to_plain
from bot.core.modes import SummaryMode
from bot.core.types import KeywordFilter
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Item
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
from tests.support.settings import make_settings
from tests.support.telegram_html import assert_valid_telegram_html

DAY = datetime(2026, 9, 8, 9, 0, tzinfo=UTC)
CAMBRICON = (
    "cambricon",
    "Cambricon joins the PyTorch Foundation as a general member",
    "<p>Cambricon joins the PyTorch Foundation to support open AI hardware. The company "
    "builds accelerators for training and inference.</p><p>It will contribute backend work.</p>",
)
MEETUP = (
    "meetup",
    "PyTorch community meetup in Bengaluru",
    "<p>The Bengaluru meetup gathered two hundred developers. Talks covered compilers.</p>",
)
OLD = [(f"old{n}", f"Older post {n}", f"<p>Old post number {n} text.</p>") for n in range(3)]


def rss(posts: list[tuple[str, str, str]]) -> bytes:
    items = "".join(
        f"<item><title>{escape(t)}</title><link>https://blog.example/{k}/</link>"
        f"<guid>{k}</guid><pubDate>{format_datetime(DAY)}</pubDate>"
        f"<description><![CDATA[{h}]]></description></item>"
        for k, t, h in posts
    )
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>PyTorch Blog</title>'
        f"<language>en-US</language><link>https://blog.example/</link>{items}</channel></rss>"
    ).encode()


@pytest.fixture
def model_api() -> Iterator[FakeModelApi]:
    api = FakeModelApi().start()
    yield api
    api.stop()


@dataclass
class Setup:
    poller: Poller
    feeds: FeedServer
    engine: Engine


async def make(
    engine: Engine, db_url: str, feeds: FeedServer, api: FakeModelApi, **overrides: object
) -> AsyncIterator[Setup]:
    values: dict[str, object] = {
        "allow_private_feed_urls": True,
        "model_api_url": api.base_url,
        "model_api_key": KEY,
        "model_name": "tiny-test-model",
        "model_timeout_seconds": 1.5,
        **overrides,
    }
    settings = make_settings(db_url, **values)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings)
        yield Setup(poller, feeds, engine)
        await poller.enricher.stop()


@pytest.fixture
async def setup(
    engine: Engine, db_url: str, feeds: FeedServer, model_api: FakeModelApi
) -> AsyncIterator[Setup]:
    async for made in make(engine, db_url, feeds, model_api):
        yield made


async def add_feed(s: Setup, slug: str = "pytorch", path: str = "/feed") -> int:
    url = s.feeds.serve(path, rss(OLD))
    outcome = await Catalog(s.poller).add_feed(url, slug=slug, trusted=True)
    with Session(s.engine) as session:
        feed = store.get_feed(session, slug=outcome.slug)
        assert feed is not None
        return feed.id


def chats(
    engine: Engine,
    feed_id: int,
    ids: range,
    *,
    language: str | None,
    model: bool = False,
    translate: bool = False,
    keywords: tuple[str, ...] = (),
) -> None:
    with transaction(engine) as session:
        for chat_id in ids:
            store.upsert_chat(
                session, chat_id=chat_id, type_="private", title="c", language=language
            )
            store.subscribe(session, chat_id=chat_id, feed_id=feed_id)
            if model:
                store.set_mode(session, chat_id=chat_id, feed_id=feed_id, value=SummaryMode.MODEL)
            store.set_translate(session, chat_id=chat_id, on=translate)
            if keywords:
                store.set_keywords(
                    session, chat_id=chat_id, feed_id=feed_id, words=KeywordFilter(include=keywords)
                )


def messages(engine: Engine, chat_id: int) -> dict[str, str]:
    with Session(engine) as session:
        queued = store.pending_by_chat(session, chat_ids=[chat_id]).get(chat_id, [])
        keys = {i.id: i.key for i in session.exec(select(Item)).all()}
    for d in queued:
        assert_valid_telegram_html(d.text)
    return {keys[d.item_id or 0]: d.text for d in queued}


async def test_one_call_per_post_and_language_for_fifty_chats(
    setup: Setup, model_api: FakeModelApi
) -> None:
    feed_id = await add_feed(setup)
    chats(setup.engine, feed_id, range(1, 26), language="en", model=True)
    chats(setup.engine, feed_id, range(26, 51), language="zh", model=True)
    setup.feeds.serve("/feed", rss([CAMBRICON, *OLD]))
    outcome = await setup.poller.poll_feed(feed_id)
    assert len(outcome.changes) == 1
    assert sorted(c.target for c in model_api.calls) == ["English", "Simplified Chinese"]
    english, chinese = to_plain(messages(setup.engine, 1)["cambricon"]), messages(setup.engine, 50)
    assert "[en] Cambricon joins the PyTorch Foundation" in english
    assert "[zh] 寒武纪 加入 the PyTorch 基金会" in to_plain(chinese["cambricon"])
    assert all(len(messages(setup.engine, c)) == 1 for c in range(1, 51))


async def test_the_cache_survives_a_restart(
    engine: Engine, db_url: str, feeds: FeedServer, model_api: FakeModelApi
) -> None:
    async for first in make(engine, db_url, feeds, model_api):
        feed_id = await add_feed(first)
        chats(engine, feed_id, range(1, 3), language="zh", model=True)
        feeds.serve("/feed", rss([CAMBRICON, *OLD]))
        await first.poller.poll_feed(feed_id)
    assert len(model_api.calls) == 1
    async for again in make(engine, db_url, feeds, model_api):  # a new process, the same DB
        mirror = await add_feed(again, slug="mirror", path="/mirror")
        chats(engine, mirror, range(3, 5), language="zh", model=True)
        feeds.serve("/mirror", rss([CAMBRICON, *OLD]))
        await again.poller.poll_feed(mirror)
        assert "寒武纪" in to_plain(messages(engine, 3)["cambricon"])
    assert len(model_api.calls) == 1  # the same post, language, model and prompt: stored


@pytest.mark.parametrize("mode", ["500", "429", "garbage", "slow"])
async def test_a_failing_endpoint_still_serves_every_chat_on_time(
    setup: Setup, model_api: FakeModelApi, mode: str
) -> None:
    model_api.mode, model_api.delay = mode, (5.0 if mode == "slow" else 0.0)
    feed_id = await add_feed(setup)
    chats(setup.engine, feed_id, range(1, 11), language="zh", model=True)
    setup.feeds.serve("/feed", rss([CAMBRICON, *OLD]))
    started = time.monotonic()
    await setup.poller.poll_feed(feed_id)
    assert time.monotonic() - started < 1.5 + 1.0  # MODEL_TIMEOUT_SECONDS and the poll itself
    for chat_id in range(1, 11):
        text = to_plain(messages(setup.engine, chat_id)["cambricon"])
        assert "Cambricon joins the PyTorch Foundation to support open AI hardware." in text
        assert "[zh]" not in text


async def test_the_breaker_stops_calling_after_three_failures(
    setup: Setup, model_api: FakeModelApi
) -> None:
    model_api.mode = "500"
    feed_id = await add_feed(setup)
    chats(setup.engine, feed_id, range(1, 3), language="zh", model=True)
    posts = [(f"p{n}", f"Post {n}", f"<p>Post {n} says something new.</p>") for n in range(5)]
    for n in range(5):
        setup.feeds.serve("/feed", rss([*reversed(posts[: n + 1]), *OLD]))
        await setup.poller.poll_feed(feed_id)
    assert len(model_api.calls) == 3
    assert len(messages(setup.engine, 1)) == 5  # every post still arrived


async def test_the_hourly_cap_holds(
    engine: Engine, db_url: str, feeds: FeedServer, model_api: FakeModelApi
) -> None:
    async for s in make(engine, db_url, feeds, model_api, model_max_calls_per_hour=1):
        feed_id = await add_feed(s)
        chats(engine, feed_id, range(1, 2), language="en", model=True)
        chats(engine, feed_id, range(2, 3), language="es", model=True)
        feeds.serve("/feed", rss([MEETUP, CAMBRICON, *OLD]))
        await s.poller.poll_feed(feed_id)
    assert len(model_api.calls) == 1
    texts = [to_plain(t) for c in (1, 2) for t in messages(engine, c).values()]
    assert sum(1 for t in texts if "[en]" in t or "[es]" in t) == 1 and len(texts) == 4


async def test_a_translating_chinese_chat_finds_the_english_post_by_its_chinese_name(
    setup: Setup, model_api: FakeModelApi
) -> None:
    feed_id = await add_feed(setup)
    chats(setup.engine, feed_id, range(1, 2), language="zh", translate=True, keywords=("寒武纪",))
    chats(setup.engine, feed_id, range(2, 3), language="zh", keywords=("寒武纪",))  # no translation
    chats(setup.engine, feed_id, range(3, 4), language="en", translate=True)
    setup.feeds.serve("/feed", rss([MEETUP, CAMBRICON, *OLD]))
    await setup.poller.poll_feed(feed_id)
    got = messages(setup.engine, 1)
    assert list(got) == ["cambricon"]  # the meetup does not say 寒武纪 in any language
    shown = got["cambricon"]
    assert shown.startswith("<b>[zh] 寒武纪 加入 the PyTorch 基金会 as a general member</b>\n")
    assert '">Cambricon joins the PyTorch Foundation as a general member</a>' in shown
    assert messages(setup.engine, 2) == {}  # without translation the keyword finds nothing
    assert len(messages(setup.engine, 3)) == 2  # an English chat: nothing to translate
    assert {c.kind for c in model_api.calls} == {"translation"}
    assert {c.target for c in model_api.calls} == {"Simplified Chinese"}


async def test_markup_and_links_from_the_model_cannot_break_or_spoof_a_message(
    setup: Setup, model_api: FakeModelApi
) -> None:
    model_api.mode = "hostile"
    feed_id = await add_feed(setup)
    chats(setup.engine, feed_id, range(1, 2), language="zh", model=True, translate=True)
    setup.feeds.serve("/feed", rss([CAMBRICON, *OLD]))
    await setup.poller.poll_feed(feed_id)
    shown = messages(setup.engine, 1)["cambricon"]
    assert "evil.example" not in shown and "<script" not in shown and "<i>Really" not in shown
    assert shown.count("<a ") == 1 and 'href="https://blog.example/cambricon/"' in shown
    assert "Fine." in to_plain(shown)


async def test_a_huge_answer_is_cut_to_three_sentences(
    setup: Setup, model_api: FakeModelApi
) -> None:
    model_api.mode = "huge"
    feed_id = await add_feed(setup)
    chats(setup.engine, feed_id, range(1, 2), language="en", model=True)
    setup.feeds.serve("/feed", rss([CAMBRICON, *OLD]))
    await setup.poller.poll_feed(feed_id)
    shown = to_plain(messages(setup.engine, 1)["cambricon"])
    assert shown.count("Word and more words.") == 3 and len(shown) < 800
