"""Nothing one feed does can fill the disk, and a full disk loses nothing (issue 23, item 2).

On the old main a chat-added feed that gave its posts new ids on every poll added 10.7 MB per
poll (stored silently as history); once the disk was full every poll failed and so did the
operator's `/removefeed`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from bot.core.detection.churn import CHURN_POLLS, SLOW_MIN_SECONDS
from bot.db.engine import make_engine
from bot.db.migrate import upgrade
from bot.db.reserve import RESERVE_BYTES, disk_full, reserve_path
from bot.db.tables import Delivery, Feed, Item
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.clock import Clock
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import OPERATOR_ID, ask, bot_settings, running_bot
from tests.support.settings import make_settings

CAP = 60
PER_POLL = 30


def churned(poll: int) -> bytes:
    """Thirty posts under ids never seen before, dated long ago: history, every poll."""
    base = datetime(2020, 1, 1, tzinfo=UTC) - timedelta(days=poll)
    posts = tuple(
        replace(
            blog.GUIDE,
            guid=f"urn:churn:{poll}:{n}",
            title=f"Archive page {poll}-{n}",
            slug=f"archive-{poll}-{n}",
            published=base - timedelta(hours=n),
            paragraphs=(f"Archived text number {poll} {n}. " * 40,),
        )
        for n in range(PER_POLL)
    )
    return blog.rss(posts)


def stored(engine: Engine, feed_id: int) -> int:
    with Session(engine) as session:
        return session.exec(select(func.count()).where(Item.feed_id == feed_id)).one()


async def test_a_feed_that_churns_ids_stays_under_its_cap_and_is_flagged_once(
    engine: Engine, db_url: str, feeds: FeedServer
) -> None:
    clock = Clock()
    settings = make_settings(db_url, max_items_per_feed=CAP, bot_admin_ids="4242")
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, clock=clock)
        url = feeds.serve("/churn/", churned(0))
        await Catalog(poller).add_feed(url, slug="churn", trusted=True)
        counts = []
        for poll in range(1, 51):
            clock.advance(minutes=5)
            feeds.serve("/churn/", churned(poll))
            await poller.poll_feed(1)
            counts.append(stored(engine, 1))
    assert max(counts) <= CAP, counts
    with Session(engine) as session:
        feed = session.exec(select(Feed).where(Feed.slug == "churn")).one()
        alerts = session.exec(select(Delivery).where(Delivery.kind == "alert")).all()
        sent_to = [(a.chat_id, a.text) for a in alerts]
    assert feed.churn_polls == 50
    assert len(sent_to) == 1 and sent_to[0][0] == OPERATOR_ID
    assert "new identities on every poll" in sent_to[0][1]
    pace = (feed.next_check_at.replace(tzinfo=UTC) - clock.now).total_seconds()
    assert pace >= SLOW_MIN_SECONDS
    assert CHURN_POLLS < 50


async def test_the_newest_items_are_kept_and_the_document_never_pruned(
    engine: Engine, db_url: str, feeds: FeedServer
) -> None:
    """A document longer than the cap keeps every item it carries (else they would come back
    as new on the next poll), and the ones pruned are the longest absent."""
    clock = Clock()
    settings = make_settings(db_url, max_items_per_feed=20)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, clock=clock)
        url = feeds.serve("/long/", churned(0))  # 30 items, more than the cap
        await Catalog(poller).add_feed(url, slug="long", trusted=True)
        assert stored(engine, 1) == PER_POLL
        clock.advance(minutes=5)
        feeds.serve("/long/", churned(1))
        await poller.poll_feed(1)
        with Session(engine) as session:
            keys = set(session.exec(select(Item.key).where(Item.feed_id == 1)).all())
    assert keys == {f"urn:churn:1:{n}" for n in range(PER_POLL)}


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 6 MB filesystem of our own (tmpfs; needs root, as in CI)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, name: str = "filler") -> Path:
    """Write zeros until the filesystem has no byte left."""
    filler = disk / name
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


async def test_on_a_full_disk_removal_works_and_polling_resumes_when_space_returns(
    small_disk: Path, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{small_disk / 'feedwatch.db'}"
    upgrade(url)
    settings = bot_settings(url, bot_api, allow_private_feed_urls=True)
    first = feeds.serve("/a/", blog.rss(blog.BEFORE_POSTS, title="Alpha"))
    second = feeds.serve("/b/", blog.rss(blog.BEFORE_POSTS, title="Beta"))
    async with running_bot(settings) as bot:
        catalog = bot.services.catalog
        await catalog.add_feed(first, slug="alpha", trusted=True)
        await catalog.add_feed(second, slug="beta", trusted=True)
        assert (await ask(bot_api, "/subscribe beta")).startswith("Subscribed to <b>Beta</b>")
        engine = make_engine(url)
        reserve = reserve_path(engine)
        engine.dispose()
        assert reserve is not None and reserve.stat().st_size == RESERVE_BYTES
        caplog.set_level(logging.INFO)
        filler = fill(small_disk)
        reply = await ask(bot_api, "/removefeed alpha", chat_id=OPERATOR_ID)
        assert reply == "Stopped watching <code>alpha</code>."
        assert not reserve.exists()  # given back so that the removal could be written
        more = fill(small_disk, "filler-2")  # the reserve's room too
        feeds.serve("/b/", blog.rss(blog.AFTER_POSTS, title="Beta"))  # new posts while full

        def polls_refused() -> bool:
            return any(
                "poll" in r.getMessage() and "disk is full" in r.getMessage()
                for r in caplog.records
            )

        await bot_api.wait_for(polls_refused, timeout=15)
        assert not any(blog.LISBON.title in text for text in bot_api.texts(111))
        filler.unlink()  # space returns
        more.unlink()
        await bot_api.wait_for(
            lambda: any(blog.LISBON.title in text for text in bot_api.texts(111)), timeout=20
        )
        await bot_api.wait_for(reserve.exists, timeout=10)  # kept again for the next time
    full_lines = [r for r in caplog.records if "disk is full" in r.getMessage()]
    assert all(r.exc_info is None for r in full_lines)  # clear lines, no traceback
    assert len(full_lines) <= 4, [r.getMessage() for r in full_lines]


def test_a_full_disk_is_recognised_on_both_databases() -> None:
    class Orig(Exception):
        sqlstate = "53100"

    class Wrapped(Exception):
        orig = Orig()

    assert disk_full(Exception("(sqlite3.OperationalError) database or disk is full"))
    assert disk_full(Wrapped("could not write"))
    assert not disk_full(Exception("database is locked"))
