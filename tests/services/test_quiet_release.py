"""Quiet hours 22:00-07:00 in Shanghai, by the clock (issue 29): ten posts found at 23:30 are
held; at 06:59 nothing is released; at 07:00 one digest is queued; a chat without quiet hours
gets its ten messages at once. SQLite and PostgreSQL, the real poller and outbox."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Delivery, DeliveryStatus
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.quiet import release_quiet
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures.night import rss
from tests.support.settings import make_settings

NIGHT = datetime(2026, 12, 1, 15, 30, tzinfo=UTC)  # 23:30 in Shanghai
SIX_59 = datetime(2026, 12, 1, 22, 59, tzinfo=UTC)
SEVEN = datetime(2026, 12, 1, 23, 0, tzinfo=UTC)  # 07:00 the next morning there


def statuses(engine: Engine, chat_id: int) -> list[str]:
    with Session(engine) as session:
        rows = session.exec(select(Delivery).where(Delivery.chat_id == chat_id)).all()
    return [row.status for row in rows]


async def test_held_at_night_and_one_digest_at_seven(
    engine: Engine, db_url: str, feeds: FeedServer
) -> None:
    settings = make_settings(db_url, allow_private_feed_urls=True)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, clock=lambda: NIGHT)
        url = feeds.serve("/night.xml", rss(0))
        await Catalog(poller).add_feed(url, slug="night", trusted=True)
        with transaction(engine) as session:
            for chat in (1, 2):
                store.upsert_chat(session, chat_id=chat, type_="private", title="c")
                store.subscribe(session, chat_id=chat, feed_id=1)
            store.set_timezone(session, chat_id=1, zone="Asia/Shanghai")
            store.set_quiet(session, chat_id=1, window="22:00-07:00")
        feeds.serve("/night.xml", rss(10))
        await poller.poll_feed(1)
    assert statuses(engine, 1) == [DeliveryStatus.HELD] * 10
    assert statuses(engine, 2) == [DeliveryStatus.PENDING] * 10
    assert release_quiet(engine, clock=lambda: SIX_59) == 0
    assert release_quiet(engine, clock=lambda: SEVEN) == 1
    assert sorted(statuses(engine, 1)) == sorted(
        [DeliveryStatus.DIGESTED] * 10 + [DeliveryStatus.PENDING]
    )
    with Session(engine) as session:
        (digest,) = store.pending_by_chat(session, chat_ids=[1])[1]
    assert digest.kind == "digest" and all(f"Night post {n}<" in digest.text for n in range(10))
