"""A fingerprint version change (an html2text upgrade, a renderer fix) under a stored feed: the
next poll re-baselines silently, reports only real edits, and logs it once."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.db.engine import transaction
from bot.db.tables import Feed, Item
from bot.services.catalog import Catalog
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.settings import make_settings

OLD_VERSION = "1/html2text-2024.2.26"


def rendered_by_an_older_version(text: str) -> str:
    """What an older renderer might have made of the same words: a Markdown marker left in,
    other quotes and spacing."""
    return "* " + text.replace("\n\n", "\n").replace("’", "'").replace(", ", " , ")


def age_the_stored_fingerprints(engine: Engine) -> int:
    with transaction(engine) as session:
        rows = session.exec(select(Item)).all()
        for row in rows:
            old_text = rendered_by_an_older_version(row.text)
            session.exec(
                update(Item)
                .where(col(Item.id) == row.id)
                .values(
                    text=old_text,
                    fingerprint=fingerprint(row.title, old_text),
                    fingerprint_version=OLD_VERSION,
                )
            )
        return len(rows)


async def test_a_new_fingerprint_version_rebaselines_silently_but_reports_a_real_edit(
    feeds: FeedServer, engine: Engine, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    now = datetime(2026, 9, 9, tzinfo=UTC)
    settings = make_settings(db_url)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, clock=lambda: now)
        url = feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
        await Catalog(poller).add_feed(url, slug="lumen", trusted=True)
        aged = age_the_stored_fingerprints(engine)
        assert aged == len(blog.AFTER_POSTS)
        feeds.serve("/feed/", blog.rss(blog.edited_posts()))
        feed_id = _feed_id(engine)
        with caplog.at_level(logging.INFO, logger="bot"):
            outcome = await poller.poll_feed(feed_id)
        events = [(c.kind.value, c.item.title) for c in outcome.changes]
        assert len(events) == 1 and events[0][0] == "edited"
        assert blog.EDITED_SENTENCE in outcome.changes[0].diff.added  # type: ignore[union-attr]
        rebaselined = [r for r in caplog.records if "re-baselined" in r.getMessage()]
        assert len(rebaselined) == 1
        assert f"{aged - 1} items" in rebaselined[0].getMessage()
        with Session(engine) as session:
            versions = set(session.exec(select(Item.fingerprint_version)).all())
        assert versions == {FINGERPRINT_VERSION}
        caplog.clear()
        now += timedelta(hours=1)
        again = await poller.poll_feed(feed_id)
        assert again.changes == ()
        assert not [r for r in caplog.records if "re-baselined" in r.getMessage()]


def _feed_id(engine: Engine) -> int:
    with Session(engine) as session:
        feed_id = session.exec(select(Feed.id).where(Feed.slug == "lumen")).one()
    assert feed_id is not None
    return feed_id
