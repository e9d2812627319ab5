"""The model's hourly budget (issue 40, item 5), through the real poller and the fake model API
on SQLite and PostgreSQL: a chat-added feed gaining ten posts a poll, followed in three
languages, spends its own share and no more, so other feeds keep their summaries; operators
are told once which feed spent it; two processes on one database share one budget."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from email.utils import format_datetime
from html import escape

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.core.messages.render import to_plain
from bot.core.modes import SummaryMode
from bot.core.types import MessageKind
from bot.db import store
from bot.db.engine import make_engine, transaction
from bot.db.tables import Delivery
from bot.runtime.clock import utcnow
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
from tests.support.settings import make_settings

OPERATOR, MALLORY, ALICE = 4242, 9001, 9002
OLD = [(f"old{n}", f"Older post {n}", f"Old post number {n} says little.") for n in range(3)]


def rss(name: str, posts: list[tuple[str, str, str]]) -> bytes:
    when = format_datetime(utcnow())
    items = "".join(
        f"<item><title>{escape(t)}</title><link>https://{name}.example/{k}/</link>"
        f"<guid>{name}-{k}</guid><pubDate>{when}</pubDate>"
        f"<description><![CDATA[<p>{escape(h)}</p>]]></description></item>"
        for k, t, h in posts
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>{name}</title>'
        f"<language>en</language><link>https://{name}.example/</link>{items}</channel></rss>"
    ).encode()


def posts(name: str, start: int, count: int) -> list[tuple[str, str, str]]:
    return [
        (f"p{n}", f"{name} post {n}", f"The {name} post number {n} has news of its own.")
        for n in range(start + count - 1, start - 1, -1)
    ]


@pytest.fixture
def api() -> Iterator[FakeModelApi]:
    server = FakeModelApi().start()
    yield server
    server.stop()


def settings_for(db_url: str, api: FakeModelApi, per_hour: int) -> object:
    return make_settings(
        db_url,
        allow_private_feed_urls=True,
        model_api_url=api.base_url,
        model_api_key=KEY,
        model_name="tiny-test-model",
        model_timeout_seconds=3.0,
        model_max_calls_per_hour=per_hour,
        bot_admin_ids=str(OPERATOR),
    )


@pytest.fixture
async def poller(engine: Engine, db_url: str, api: FakeModelApi) -> AsyncIterator[Poller]:
    settings = settings_for(db_url, api, per_hour=60)  # shares: chat feeds 30, user 12, feed 6
    async with make_fetcher(settings) as fetcher:  # type: ignore[arg-type]
        made = Poller(engine, fetcher, settings)  # type: ignore[arg-type]
        yield made
        await made.enricher.stop()


async def add(
    poller: Poller, feeds: FeedServer, name: str, by: int | None, chats: dict[int, str]
) -> int:
    url = feeds.serve(f"/{name}", rss(name, OLD))
    outcome = await Catalog(poller).add_feed(url, slug=name, trusted=by is None, added_by=by)
    with transaction(poller.engine) as session:
        feed = store.get_feed(session, slug=outcome.slug)
        assert feed is not None
        for chat_id, language in chats.items():
            store.upsert_chat(
                session, chat_id=chat_id, type_="private", title="c", language=language
            )
            store.subscribe(session, chat_id=chat_id, feed_id=feed.id)
            store.set_mode(session, chat_id=chat_id, feed_id=feed.id, value=SummaryMode.MODEL)
        return feed.id


def summarised(engine: Engine, chat_id: int) -> list[bool]:
    """For each message queued for the chat: does it show the model's summary?"""
    with Session(engine) as session:
        rows = session.exec(
            select(Delivery).where(Delivery.chat_id == chat_id).order_by(col(Delivery.id))
        ).all()
    return [any(tag in to_plain(r.text) for tag in ("[en]", "[es]", "[zh]")) for r in rows]


def alerts(engine: Engine) -> list[str]:
    with Session(engine) as session:
        rows = session.exec(
            select(Delivery).where(Delivery.chat_id == OPERATOR, Delivery.kind == MessageKind.ALERT)
        ).all()
    return [to_plain(r.text) for r in rows]


async def test_one_chat_feed_cannot_starve_the_others(
    poller: Poller, feeds: FeedServer, api: FakeModelApi, engine: Engine
) -> None:
    flood = await add(poller, feeds, "flood", MALLORY, {1: "en", 2: "es", 3: "zh"})
    ours = await add(poller, feeds, "ours", None, {4: "zh"})
    theirs = await add(poller, feeds, "theirs", ALICE, {5: "es"})
    for poll in range(4):  # ten new posts a poll, wanted in three languages: 30 calls a poll
        feeds.serve("/flood", rss("flood", [*posts("flood", poll * 10, 10), *OLD]))
        await poller.poll_feed(flood)
    flood_calls = len(api.calls)
    assert flood_calls == 6  # MODEL_FEED_SHARE: a tenth of the hour's 60
    feeds.serve("/ours", rss("ours", [*posts("ours", 0, 2), *OLD]))
    feeds.serve("/theirs", rss("theirs", [*posts("theirs", 0, 2), *OLD]))
    await poller.poll_feed(ours)
    await poller.poll_feed(theirs)
    assert len(api.calls) == flood_calls + 4  # the others still get theirs
    assert summarised(engine, 4) == [True, True] and summarised(engine, 5) == [True, True]
    told = alerts(engine)
    assert len(told) == 1  # once, however many polls found the share spent
    assert "flood" in told[0] and "6 calls" in told[0]
    assert "ours" not in told[0] and "theirs" not in told[0]


async def test_an_operator_feed_keeps_the_half_chat_feeds_cannot_spend(
    poller: Poller, feeds: FeedServer, api: FakeModelApi, engine: Engine
) -> None:
    """Five people's feeds spend at most MODEL_CHAT_FEEDS_SHARE: an operator's feed comes first."""
    added = [await add(poller, feeds, f"chat{n}", 7000 + n, {10 + n: "en"}) for n in range(6)]
    ours = await add(poller, feeds, "ours", None, {4: "en"})
    for feed_id, n in zip(added, range(6), strict=True):
        feeds.serve(f"/chat{n}", rss(f"chat{n}", [*posts(f"chat{n}", 0, 8), *OLD]))
        await poller.poll_feed(feed_id)
    assert len(api.calls) == 30  # 6 a feed, until the chat feeds' 30 ran out
    feeds.serve("/ours", rss("ours", [*posts("ours", 0, 8), *OLD]))
    await poller.poll_feed(ours)
    assert len(api.calls) == 38 and summarised(engine, 4) == [True] * 8


async def test_two_processes_share_one_budget(
    engine: Engine, db_url: str, feeds: FeedServer, api: FakeModelApi
) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("one process polls a SQLite database (its budget is in memory)")
    settings = settings_for(db_url, api, per_hour=5)
    second = make_engine(db_url)
    try:
        async with make_fetcher(settings) as one, make_fetcher(settings) as two:  # type: ignore[arg-type]
            first = Poller(engine, one, settings)  # type: ignore[arg-type]
            other = Poller(second, two, settings)  # type: ignore[arg-type]
            a = await add(first, feeds, "alpha", None, {1: "en"})
            b = await add(other, feeds, "beta", None, {2: "en"})
            feeds.serve("/alpha", rss("alpha", [*posts("alpha", 0, 3), *OLD]))
            feeds.serve("/beta", rss("beta", [*posts("beta", 0, 3), *OLD]))
            await first.poll_feed(a)
            await other.poll_feed(b)
            await first.enricher.stop()
            await other.enricher.stop()
    finally:
        second.dispose()
    assert len(api.calls) == 5  # not 3 + 3: the second process found 2 left
    assert summarised(engine, 2).count(True) == 2
    assert len(alerts(engine)) == 1 and "beta" in alerts(engine)[0]
