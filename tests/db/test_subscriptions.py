"""The typed setters of `store/subscriptions.py`, and value objects out (never ORM rows)."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.messages.digest import DigestSchedule, parse_schedule
from bot.core.modes import PREVIEW, Edits, Preview
from bot.core.types import CategoryFilter, KeywordFilter, Reader
from bot.db import store
from bot.db.engine import transaction
from bot.db.store import FeedView
from tests.support.storage import NOW


def test_typed_setters_and_value_objects(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    feed = feed_ids[0]
    with transaction(engine) as session:
        assert store.set_filter(
            session, chat_id=1, feed_id=feed, flt=CategoryFilter(("Blog",), ("Press",))
        )
        assert store.set_keywords(session, chat_id=1, feed_id=feed, words=KeywordFilter(("gpu",)))
        assert store.set_mode(session, chat_id=1, feed_id=feed, value=Edits.OFF)
        assert store.toggle_mode(session, chat_id=1, feed_id=feed, mode=PREVIEW)
        assert store.set_digest(
            session, chat_id=1, feed_id=feed, schedule=parse_schedule(["daily", "08:30"]), now=NOW
        )
        assert not store.set_mode(
            session, chat_id=1, feed_id=feed_ids[1], value=Edits.ALL
        )  # not subscribed
    with Session(engine) as session:
        ((reader, shown),) = store.chat_subscriptions(session, chat_id=1)
        (due,) = store.digest_subscriptions(session)
    assert isinstance(reader, Reader) and isinstance(shown, FeedView)
    assert reader.categories == CategoryFilter(("Blog",), ("Press",))
    assert reader.keywords.include == ("gpu",)
    assert (reader.edits, reader.preview, reader.digest) == (Edits.OFF, Preview.LINK, True)
    assert due.schedule == DigestSchedule(
        parse_schedule(["daily", "08:30"]).mode, parse_schedule(["daily", "08:30"]).at
    )
    assert (shown.slug, shown.title) == ("f0", "F0")
