"""Decide once, then enrich (issue 41): pages and the operator's model go to exactly the new
posts the poll's plan found and some chat gets alone, through the real poller, a loopback site
and the fake model API, on SQLite and PostgreSQL. A GUID migration is not news: no page, no
model call. A chat whose filter passes 3 of 12 new posts gets those 3 with their articles and
the model's summaries, while a chat that would get all 12 gets one list (and costs nothing)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
from aiohttp import web
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.core.messages.digest import DigestSchedule
from bot.core.messages.render import to_plain
from bot.core.modes import SummaryMode
from bot.core.types import MessageKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Article, Delivery, Item
from bot.net.fetch import Fetcher, FetchLimits
from bot.runtime.clock import utcnow
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
from tests.support.fixtures.article_pages import Story, excerpt_feed, news_page, quiet_story
from tests.support.settings import make_settings

HTML = {"content_type": "text/html; charset=utf-8"}
OLD = [quiet_story(n) for n in range(3)]
FILTERED, FLOODED, QUIET = 801, 802, 803


def story(n: int, topic: str) -> Story:
    return Story(
        slug=f"{topic}-{n}",
        title=f"{topic.capitalize()} report number {n}",
        lede=f"The {topic} desk filed report {n} this morning after a long night of work.",
        paragraphs=(f"Only the full article of report {n} says where the {topic} desk went.",),
    )


@dataclass
class Site:
    poller: Poller
    feeds: FeedServer
    api: FakeModelApi
    base: str
    engine: Engine

    def serve(self, stories: list[Story]) -> None:
        for s in stories:
            self.feeds.serve(f"/{s.slug}/", news_page(s, self.base), **HTML)
        self.feeds.serve("/feed", excerpt_feed(self.base, stories))

    def pages_read(self) -> list[str]:
        with self.feeds.lock:
            return [seen.path for seen in self.feeds.requests if seen.path != "/feed"]


@pytest.fixture
def api() -> Iterator[FakeModelApi]:
    server = FakeModelApi().start()
    yield server
    server.stop()


@pytest.fixture
async def site(
    engine: Engine, db_url: str, feeds: FeedServer, api: FakeModelApi
) -> AsyncIterator[Site]:
    base = feeds.url("").rstrip("/")
    settings = make_settings(
        db_url,
        model_api_url=api.base_url,
        model_api_key=KEY,
        model_name="tiny-test-model",
        model_timeout_seconds=10.0,  # generous: these tests count calls, never time
        full_text_wait_seconds=10.0,
    )
    async with Fetcher(FetchLimits(total_timeout=8.0), allowed_ports=None) as fetcher:
        poller = Poller(engine, fetcher, settings)
        made = Site(poller, feeds, api, base, engine)
        made.serve(OLD)
        await Catalog(poller).add_feed(base + "/feed", slug="desk", trusted=True)
        with transaction(engine) as session:
            store.set_full_text(session, slug="desk", on=True)
            for chat_id in (FILTERED, FLOODED):
                store.upsert_chat(session, chat_id=chat_id, type_="private", title="c")
                store.subscribe(session, chat_id=chat_id, feed_id=1)
                store.set_mode(session, chat_id=chat_id, feed_id=1, value=SummaryMode.MODEL)
            store.set_rules(session, chat_id=FILTERED, feed_id=1, rules=["title:harbour"])
        with feeds.lock:
            feeds.requests.clear()
        yield made
        await poller.settle()
        await poller.enricher.stop()


def queued(engine: Engine, chat_id: int) -> list[tuple[str, str, str]]:
    """Each queued message's kind, post title (or "") and visible text."""
    with Session(engine) as session:
        rows = session.exec(
            select(Delivery).where(Delivery.chat_id == chat_id).order_by(col(Delivery.id))
        ).all()
        titles = {i.id: i.title for i in session.exec(select(Item)).all()}
    return [(r.kind, titles.get(r.item_id or 0, ""), to_plain(r.text)) for r in rows]


async def test_a_guid_migration_reads_no_page_and_asks_no_model(site: Site) -> None:
    migrated = excerpt_feed(site.base, OLD).replace(
        b'<guid isPermaLink="false">http://', b'<guid isPermaLink="false">https://'
    )
    assert migrated != excerpt_feed(site.base, OLD)
    site.feeds.serve("/feed", migrated)
    outcome = await site.poller.poll_feed(1)
    await site.poller.settle()
    assert outcome.changes == ()
    assert site.pages_read() == [] and site.api.calls == []
    assert queued(site.engine, FILTERED) == queued(site.engine, FLOODED) == []


async def test_a_filter_passing_3_of_12_new_posts_gets_them_with_full_text_and_model(
    site: Site,
) -> None:
    harbour = [story(n, "harbour") for n in range(3)]
    others = [story(n, "market") for n in range(9)]
    site.serve([*others[:5], *harbour, *others[5:], *OLD])
    outcome = await site.poller.poll_feed(1)
    await site.poller.settle()
    assert len([c for c in outcome.changes if c.kind == "new"]) == 12
    got = queued(site.engine, FILTERED)
    assert sorted(title for _, title, _ in got) == sorted(s.title for s in harbour)
    for s in harbour:
        (text,) = [t for _, title, t in got if title == s.title]
        assert f"[en] {s.lede}" in text  # the model's summary
    # The model read each article (only the page says where the desk went), once a post.
    assert sorted(c.title for c in site.api.calls) == sorted(s.title for s in harbour)
    for call in site.api.calls:
        assert "says where the harbour desk went" in call.body
    # The chat that gets all 12 gets one list: no page and no call for the other 9.
    assert [kind for kind, _, _ in queued(site.engine, FLOODED)] == [MessageKind.LIST]
    assert sorted(site.pages_read()) == sorted(f"/{s.slug}/" for s in harbour)
    with Session(site.engine) as session:
        assert len(session.exec(select(Article)).all()) == 3


async def test_a_digest_chat_gets_the_pages_but_no_model_call(site: Site) -> None:
    with transaction(site.engine) as session:
        store.unsubscribe(session, chat_id=FLOODED, feed_id=1)
        store.unsubscribe(session, chat_id=FILTERED, feed_id=1)
        store.upsert_chat(session, chat_id=QUIET, type_="private", title="d")
        store.subscribe(session, chat_id=QUIET, feed_id=1)
        store.set_mode(session, chat_id=QUIET, feed_id=1, value=SummaryMode.MODEL)
        store.set_digest(
            session, chat_id=QUIET, feed_id=1, schedule=DigestSchedule.stored("hourly", None),
            now=utcnow(),
        )  # fmt: skip
    posts = [story(n, "harbour") for n in range(2)]
    site.serve([*posts, *OLD])
    await site.poller.poll_feed(1)
    await site.poller.settle()
    assert sorted(site.pages_read()) == sorted(f"/{s.slug}/" for s in posts)  # digest lines
    assert site.api.calls == []  # a digest shows no model text


async def test_a_dry_run_writes_nothing_and_asks_no_model(site: Site) -> None:
    site.serve([story(0, "harbour"), *OLD])
    outcome = await site.poller.poll_feed(1, dry_run=True)
    assert [c.item.title for c in outcome.changes] == [story(0, "harbour").title]
    assert site.api.calls == []
    assert queued(site.engine, FILTERED) == []
    with Session(site.engine) as session:
        assert len(session.exec(select(Item)).all()) == len(OLD)
        assert session.exec(select(Article)).all() == []


async def test_a_feed_removed_while_its_pages_are_read_gets_nothing_written(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    """The poll reads before it writes (the lease keeps other pollers away, not a removal)."""
    news = story(0, "harbour")

    async def slowly(request: web.Request) -> web.StreamResponse:
        with transaction(site.engine) as session:
            store.remove_feed(session, slug="desk")
        return web.Response(body=news_page(news, site.base), content_type="text/html")

    site.serve([news, *OLD])
    site.feeds.behave(f"/{news.slug}/", slowly)
    outcome = await site.poller.poll_feed(1)
    assert outcome.error == "feed was removed"
    assert not [r for r in caplog.records if r.exc_info]
    with Session(site.engine) as session:
        assert session.exec(select(Item)).all() == []
        assert session.exec(select(Delivery)).all() == []
