"""Walking one changed feed through the poller (issue 24): the core is visited once for the
plan, storage once to read and once to write; the messages still go out. The spies only count
calls on the real functions (real fetcher, real database)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.polls.plan import make_plan
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Delivery
from bot.services import poll_result
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings


class CountingStore:
    """`bot.db.store` as poll_result sees it, noting each function it reaches for."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        real = getattr(store, name)
        if not callable(real):
            return real

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return real(*args, **kwargs)

        return counted


async def test_one_changed_feed_is_read_once_planned_once_written_once(
    engine: Engine, db_url: str, feeds: FeedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings)
        url = feeds.serve("/feed.xml", blog.rss(blog.BEFORE_POSTS))
        await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
        with transaction(engine) as session:
            store.upsert_chat(session, chat_id=7, type_="private", title="c")
            store.subscribe(session, chat_id=7, feed_id=1)
        feeds.serve("/feed.xml", blog.rss(blog.AFTER_POSTS))
        spy = CountingStore()
        plans: list[object] = []
        real_plan: Callable[..., Any] = make_plan

        def planned(*args: Any, **kwargs: Any) -> Any:
            plan = real_plan(*args, **kwargs)
            plans.append(plan)
            return plan

        monkeypatch.setattr(poll_result, "store", spy)
        monkeypatch.setattr(poll_result, "make_plan", planned)
        outcome = await poller.poll_feed(1)
    assert len(plans) == 1
    assert spy.calls == ["read_poll", "write_poll"]
    assert [c.item.title for c in outcome.changes if c.kind == "new"] == list(
        blog.NEW_TITLES_OLDEST_FIRST
    )
    with Session(engine) as session:
        queued = session.exec(select(Delivery).where(Delivery.chat_id == 7)).all()
    assert len(queued) == len(outcome.changes) > 0
    assert all(row.item_id is not None for row in queued)
