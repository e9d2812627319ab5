"""Quiet hours 22:00-07:00 in Shanghai, by the clock (issue 29): ten posts found at 23:30 are
held; at 06:59 nothing is released; at 07:00 one digest is queued; a chat without quiet hours
gets its ten messages at once. SQLite and PostgreSQL, the real poller and outbox."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, event
from sqlmodel import Session, col, select

from bot.core.messages.digest import DigestMode, DigestSchedule
from bot.core.types import MessageKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.store import OutboxRow
from bot.db.tables import Delivery, DeliveryStatus, Item
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


# --- what each pass reads (issue 40, item 6) ----------------------------------------------------

LATE = datetime(2026, 12, 1, 23, 0, tzinfo=UTC)  # 23:00 UTC
WAITING, TWO, FIVE, GROUP = 11, 12, 13, -100_14  # in its window; three whose window is over


def hold(engine: Engine, feed_id: int, chat_id: int, count: int, text: str) -> None:
    with transaction(engine) as session:
        items = [
            Item(feed_id=feed_id, key=f"{chat_id}-{n}", title=f"Held {chat_id}/{n}", text=text,
                 fingerprint="f", link=f"https://night.example/{chat_id}/{n}")
            for n in range(count)
        ]  # fmt: skip
        session.add_all(items)
        session.flush()
        rows = [
            OutboxRow(chat_id, feed_id, item.id, MessageKind.NEW, f"<b>{item.title}</b>", held=True)
            for item in items
        ]
        store.enqueue(session, rows=rows)


def night(engine: Engine) -> int:
    """390 held posts of 30 KB for a chat still in its window (22:00-07:00 UTC); 2, 5 and 4
    for chats whose window (01:00-02:00) is over."""
    with transaction(engine) as session:
        feed = store.add_feed(
            session, slug="night", url="https://night.example/", title="Night", trusted=True
        )
        assert feed.id is not None
        for chat, window in ((WAITING, "22:00-07:00"), (TWO, "01:00-02:00"),
                             (FIVE, "01:00-02:00"), (GROUP, "01:00-02:00")):  # fmt: skip
            store.upsert_chat(session, chat_id=chat, type_="private", title="c")
            store.subscribe(session, chat_id=chat, feed_id=feed.id)
            store.set_quiet(session, chat_id=chat, window=window)
    hold(engine, feed.id, WAITING, 390, "x" * 30_000)
    hold(engine, feed.id, TWO, 2, "two")
    hold(engine, feed.id, FIVE, 5, "five")
    hold(engine, feed.id, GROUP, 4, "group")
    return feed.id


def test_a_pass_reads_no_text_but_the_digest_it_builds(engine: Engine) -> None:
    night(engine)
    statements: list[tuple[str, object]] = []

    def seen(_c: object, _cur: object, statement: str, params: object, *_a: object) -> None:
        statements.append((statement.lower(), params))

    event.listen(engine, "before_cursor_execute", seen)
    try:
        queued = release_quiet(engine, clock=lambda: LATE, page=2)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert queued == 2 + 1 + 1  # two as they were, two digests
    assert statuses(engine, WAITING) == [DeliveryStatus.HELD] * 390
    assert statuses(engine, TWO) == [DeliveryStatus.PENDING] * 2
    texts = [(s, p) for s, p in statements if "item.text" in s]
    assert len(texts) == 2, texts  # one digest each, for FIVE and GROUP
    assert all(str(FIVE) in str(p) or str(GROUP) in str(p) for _, p in texts)
    assert not [s for s, _ in statements if "delivery.text" in s]  # nor any held message's
    pages = [s for s, _ in statements if "select chat.id, chat.quiet, chat.timezone" in s]
    assert len(pages) == 3  # 4 chats, 2 a page: two full pages, then an empty one


def test_chats_are_read_in_pages_past_the_last_one(engine: Engine) -> None:
    night(engine)
    with Session(engine) as session:
        first = store.quiet_chats(session, limit=3)
        rest = store.quiet_chats(session, after=first[-1].chat_id, limit=3)
    assert [c.chat_id for c in first] == [GROUP, WAITING, TWO]
    assert [c.chat_id for c in rest] == [FIVE]
    assert first[1].quiet == "22:00-07:00" and first[1].timezone == "UTC"
    with transaction(engine) as session:
        schedule = DigestSchedule(DigestMode.HOURLY)  # a digest takes its held messages
        store.set_digest(session, chat_id=FIVE, feed_id=1, schedule=schedule, now=LATE)
    with Session(engine) as session:
        assert [c.chat_id for c in store.quiet_chats(session)] == [GROUP, WAITING, TWO]
        assert [len(ids) for ids in store.quiet_held_ids(session, chat_id=WAITING).values()] == [
            390
        ]


# --- one story, one entry (issue 46) ------------------------------------------------------------

RELEASE = "Corvid Labs joins the Lumen Foundation as a Platinum member and funds two test racks."
STORY_CHAT = 21


def hold_posts(engine: Engine, posts: list[tuple[int, str, str, str]]) -> list[int]:
    """Held new posts as (feed id, key, title, link), in this order; returns delivery ids."""
    with transaction(engine) as session:
        items = [
            Item(feed_id=feed, key=key, title=title, text=RELEASE if "corvid" in key else key,
                 fingerprint="f", link=link)
            for feed, key, title, link in posts
        ]  # fmt: skip
        session.add_all(items)
        session.flush()
        rows = [
            OutboxRow(STORY_CHAT, i.feed_id, i.id, MessageKind.NEW, f"<b>{i.title}</b>", held=True)
            for i in items
        ]
        store.enqueue(session, rows=rows)
    with Session(engine) as session:
        found = session.exec(select(Delivery.id).where(Delivery.chat_id == STORY_CHAT)).all()
    return [d for d in found if d is not None]


def shared_night(engine: Engine) -> list[int]:
    with transaction(engine) as session:
        for slug in ("lumen", "planet", "news"):
            url = f"https://{slug}.example/feed"
            feed = store.add_feed(session, slug=slug, url=url, title=slug.title(), trusted=True)
            assert feed.id is not None
            store.upsert_chat(session, chat_id=STORY_CHAT, type_="private", title="c")
            store.subscribe(session, chat_id=STORY_CHAT, feed_id=feed.id)
        store.set_quiet(session, chat_id=STORY_CHAT, window="01:00-02:00")
    return [1, 2, 3]


def test_one_story_from_three_feeds_counts_once_and_goes_as_it_was(engine: Engine) -> None:
    """Four held posts, but two stories (one carried by three feeds): under `DIGEST_AFTER`,
    so they go as they were (delivery folds the copies), not as three digests."""
    lumen, planet, news = shared_night(engine)
    link = "https://lumen.example/corvid/"
    hold_posts(engine, [
        (lumen, "corvid", "Corvid Labs joins Lumen", link),
        (planet, "corvid-p", "Lumen: Corvid Labs joins Lumen", link + "?utm_source=planet"),
        (news, "corvid-n", "Corvid Labs joins Lumen", "https://news.example/corvid"),
        (lumen, "budget", "Budget", "https://lumen.example/budget/"),
    ])  # fmt: skip
    assert release_quiet(engine, clock=lambda: LATE) == 4
    assert statuses(engine, STORY_CHAT) == [DeliveryStatus.PENDING] * 4


def test_per_feed_digests_list_a_story_once_naming_its_feeds(engine: Engine) -> None:
    lumen, planet, news = shared_night(engine)
    link = "https://lumen.example/corvid/"
    ids = hold_posts(engine, [
        (planet, "corvid-p", "Lumen: Corvid Labs joins Lumen", link + "?utm_source=planet"),
        (lumen, "corvid", "Corvid Labs joins Lumen", link),
        (news, "corvid-n", "Corvid Labs joins Lumen", "https://news.example/corvid"),
        *((lumen, f"post-{n}", f"Post {n}", f"https://lumen.example/{n}/") for n in range(3)),
        (news, "news-1", "A news post", "https://news.example/1"),
    ])  # fmt: skip
    assert release_quiet(engine, clock=lambda: LATE) == 3  # a digest for each feed
    with Session(engine) as session:
        digests = [
            d.text for d in store.pending_by_chat(session, chat_ids=[STORY_CHAT])[STORY_CHAT]
        ]
    text = "\n".join(digests)
    assert text.count("Corvid Labs joins Lumen</a>") == 1  # the planet's, held first
    assert "<i>Also in: Lumen, News</i>" in text
    assert "A news post" in text and "Post 2" in text
    with Session(engine) as session:
        left = session.exec(select(Delivery.status).where(col(Delivery.id).in_(ids))).all()
    assert DeliveryStatus.HELD not in left  # the folded copies are done too
