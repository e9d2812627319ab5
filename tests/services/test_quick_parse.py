"""Issue 48 end to end: with `QUICK_PARSE` on, a changed feed's unchanged items are taken from
their rows instead of parsed again, and every poll of a history announces and stores what
reading each document whole does (the real poller, a loopback feed server, SQLite and
PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

import bot.core.feeds.changed as changed
from bot.core.feeds import parse
from bot.db.tables import Item
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.core.feeds.test_changed import WRITERS, histories
from tests.support.clock import Clock
from tests.support.fakes.feed_server import FeedServer
from tests.support.settings import make_settings

ROW = "key title text fingerprint content_hash link published_at categories full excerpt_hash"


def rows(engine: Engine, feed_id: int) -> list[tuple[Any, ...]]:
    with Session(engine) as session:
        found = session.exec(
            select(Item).where(col(Item.feed_id) == feed_id).order_by(col(Item.key))
        ).all()
        return [tuple(getattr(item, name) for name in ROW.split()) for item in found]


def raw_hashes(engine: Engine, feed_id: int) -> list[str | None]:
    with Session(engine) as session:
        return list(session.exec(select(Item.raw_hash).where(col(Item.feed_id) == feed_id)))


@pytest.mark.parametrize("writer", ["wordpress", "atom", "youtube"])
async def test_a_history_gives_the_same_events_and_rows_read_quickly_or_whole(
    engine: Engine, db_url: str, feeds: FeedServer, writer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = dict(histories())[writer]
    write: Callable[..., bytes] = WRITERS[writer]
    clock = Clock()
    read: list[int] = []  # the size of each document feedparser read on the quick path
    real = parse.run_feedparser

    def spy(data: bytes, headers: dict[str, str]) -> object:
        read.append(len(data))
        return real(data, headers)

    monkeypatch.setattr(changed, "run_feedparser", spy)
    outcomes: dict[bool, list[list[tuple[str, str]]]] = {}
    for n, quick in enumerate((True, False), start=1):
        settings = make_settings(db_url, allow_private_feed_urls=True, quick_parse=quick)
        async with make_fetcher(settings) as fetcher:
            poller = Poller(engine, fetcher, settings, clock=clock)
            url = feeds.serve(f"/{quick}", write(steps[0]))
            await Catalog(poller).add_feed(url, slug=f"f{n}", trusted=True)
            seen = []
            for posts in steps[1:]:
                clock.advance(minutes=5)
                feeds.serve(f"/{quick}", write(posts))
                outcome = await poller.poll_feed(n)
                seen.append([(c.kind.value, c.item.title) for c in outcome.changes])
            outcomes[quick] = seen
    assert outcomes[True] == outcomes[False]
    assert any(outcomes[True])  # the history has news and edits to agree on
    assert rows(engine, 1) == rows(engine, 2)
    assert all(raw_hashes(engine, 1))
    # The new post's poll read one item of ten: a fraction of the document.
    assert read and min(read) < len(write(steps[1])) / 3
