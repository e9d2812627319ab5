"""Walking one changed feed through the poller (issues 24 and 41): the core is visited once for
the plan, storage once to read and once to write, with full text and the operator's model on;
the messages still go out, with the articles and the model's summaries. The spies only count
calls on the real functions (real fetcher, real database, the fake model API on loopback), in
every module of the poll that reaches storage."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

import bot.services as services
from bot.core.modes import SummaryMode
from bot.core.polls.plan import make_plan
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Article, Delivery, ModelText
from bot.services import poll_result
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
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


# Every service module that reaches storage (the poll's ones among them): each is spied on.
MODULES = [
    module
    for info in pkgutil.iter_modules(services.__path__)
    if hasattr(module := importlib.import_module(f"bot.services.{info.name}"), "store")
]


@pytest.mark.parametrize("quick", [True, False], ids=["quick-parse", "whole-parse"])
async def test_one_changed_feed_is_read_once_planned_once_written_once(
    engine: Engine,
    db_url: str,
    feeds: FeedServer,
    monkeypatch: pytest.MonkeyPatch,
    quick: bool,
) -> None:
    """With full text and the model on: the pages and the model's answers are fetched between
    the one read and the one write, and stored by that write. With `QUICK_PARSE` (the
    default) the parse first looks up the rows of the last document's unchanged bytes
    (`shown_items`, core/feeds/changed.py): an input to reading the body, which decides
    nothing; whether a post is new is still decided from the one `read_poll`."""
    api = FakeModelApi().start()
    settings = make_settings(
        db_url,
        allow_private_feed_urls=True,
        model_api_url=api.base_url,
        model_api_key=KEY,
        model_name="tiny-test-model",
        # The wait is at most: pages are read one at a time per feed in a page worker whose
        # cold start (trafilatura's imports) takes seconds on a loaded machine.
        full_text_wait_seconds=20.0,
        quick_parse=quick,
    )
    base = feeds.url("").rstrip("/")

    def on_loopback(posts: tuple[blog.Post, ...]) -> bytes:
        return blog.rss(posts).replace(b"https://blog.lumen.example", base.encode())

    for post in (*blog.BEFORE_POSTS, *blog.AFTER_POSTS):
        page = f"<html><body><article><h1>{post.title}</h1>{post.content_html()}</article>"
        feeds.serve(f"/{post.slug}/", f"{page}</body></html>".encode(), content_type="text/html")
    try:
        async with make_fetcher(settings) as fetcher:
            poller = Poller(engine, fetcher, settings)
            url = feeds.serve("/feed.xml", on_loopback(blog.BEFORE_POSTS))
            await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
            with transaction(engine) as session:
                store.upsert_chat(session, chat_id=7, type_="private", title="c", language="es")
                store.subscribe(session, chat_id=7, feed_id=1)
                store.set_full_text(session, slug="lumen", on=True)
                store.set_mode(session, chat_id=7, feed_id=1, value=SummaryMode.MODEL)
            feeds.serve("/feed.xml", on_loopback(blog.AFTER_POSTS))
            (claimed,) = poller.claim(limit=None, due_only=False)  # as the cycle does, first
            spy = CountingStore()
            plans: list[object] = []
            real_plan: Callable[..., Any] = make_plan

            def planned(*args: Any, **kwargs: Any) -> Any:
                plan = real_plan(*args, **kwargs)
                plans.append(plan)
                return plan

            for module in MODULES:
                monkeypatch.setattr(module, "store", spy)
            monkeypatch.setattr(poll_result, "make_plan", planned)
            outcome = await poller.poll_one(claimed, [])
            await poller.settle()
            await poller.enricher.stop()
    finally:
        api.stop()
    assert {m.__name__.rsplit(".", 1)[1] for m in MODULES} >= {
        "poll_result", "polling", "articles", "enrich", "model_budget"
    }  # fmt: skip
    assert len(plans) == 1
    # SQLite's one process keeps the model's budget in memory; on PostgreSQL every process
    # shares it, and the poll's calls are taken from it in one statement before they are made.
    budget = ["spend_model_calls"] if engine.dialect.name == "postgresql" else []
    parse_input = ["shown_items"] if quick else []
    assert spy.calls == [*parse_input, "read_poll", *budget, "write_poll"]
    new = [c for c in outcome.changes if c.kind == "new"]
    assert [c.item.title for c in new] == list(blog.NEW_TITLES_OLDEST_FIRST)
    assert len(api.calls) == len(new) and {c.target for c in api.calls} == {"Spanish"}
    with Session(engine) as session:
        queued = session.exec(select(Delivery).where(Delivery.chat_id == 7)).all()
        pages = session.exec(select(Article)).all()
        answers = session.exec(select(ModelText)).all()
    assert len(queued) == len(outcome.changes) > 0
    assert all(row.item_id is not None for row in queued)
    assert sum("[es]" in row.text for row in queued) == len(new)
    assert len(pages) >= len(new) and len(answers) == len(new)
