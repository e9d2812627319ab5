"""Left subscriptions (issue 43, item 3) on both databases: leaving keeps the row and its
settings but takes it out of routing, counts, /list and the digests; subscribing again within
the keeping time restores it, an Undo restores what was left together, housekeeping forgets
the rest, and a subscription left too long ago starts afresh."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.core.messages.digest import parse_schedule
from bot.core.modes import EDITS, Edits, Format, Preview, Sound, SummaryMode
from bot.core.rules.leaving import Keeping, stamp, stamped
from bot.core.types import CategoryFilter, KeywordFilter
from bot.db import store
from bot.db.engine import transaction
from bot.db.tables import Subscription
from tests.support.storage import NOW

KEEP = Keeping(undo_minutes=10, keep_days=30)


def settings_of(engine: Engine, chat_id: int, feed_id: int) -> dict[str, object]:
    with Session(engine) as session:
        row = session.exec(
            select(Subscription).where(
                Subscription.chat_id == chat_id, Subscription.feed_id == feed_id
            )
        ).one()
        return row.model_dump(exclude={"left_at"})


def customise(engine: Engine, chat_id: int, feed_id: int) -> None:
    with transaction(engine) as session:
        assert store.set_filter(
            session, chat_id=chat_id, feed_id=feed_id, flt=CategoryFilter(("Blog",), ("Ads",))
        )
        words = KeywordFilter(("gpu",), ("rumour",))
        assert store.set_keywords(session, chat_id=chat_id, feed_id=feed_id, words=words)
        assert store.set_rules(session, chat_id=chat_id, feed_id=feed_id, rules=["title:v2"])
        for value in (Edits.SUBSTANTIVE, Format.TITLE, Sound.SILENT, Preview.LINK):
            assert store.set_mode(session, chat_id=chat_id, feed_id=feed_id, value=value)
        schedule = parse_schedule(["daily", "08:30"])
        assert store.set_digest(
            session, chat_id=chat_id, feed_id=feed_id, schedule=schedule, now=NOW
        )


def test_a_left_subscription_keeps_its_settings_and_counts_for_nothing(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    feed = feed_ids[0]
    customise(engine, 1, feed)
    before = settings_of(engine, 1, feed)
    with transaction(engine) as session:
        assert store.unsubscribe(session, chat_id=1, feed_id=feed, now=NOW) == 1
        assert store.unsubscribe(session, chat_id=1, feed_id=feed, now=NOW) == 0  # left already
    with Session(engine) as session:
        assert store.count_subscriptions(session, chat_id=1) == 0
        assert store.chat_subscriptions(session, chat_id=1) == []
        assert store.get_subscription(session, chat_id=1, feed_id=feed) is None
        assert [r.chat_id for r in store.feed_audience(session, feed_id=feed)] == [2, 3]
        assert not any(d.audience.chat_id == 1 for d in store.digest_subscriptions(session))
    with transaction(engine) as session:  # a setting cannot be changed while it is left
        assert not store.set_mode(session, chat_id=1, feed_id=feed, value=Sound.LOUD)
        assert not store.set_mode(session, chat_id=1, feed_id=feed, value=SummaryMode.MODEL)
        assert not store.toggle_mode(session, chat_id=1, feed_id=feed, mode=EDITS)
    assert settings_of(engine, 1, feed) == before
    with transaction(engine) as session:  # subscribing again within the keeping time
        since = KEEP.kept_since(NOW + timedelta(days=29))
        assert store.rejoin(session, chat_id=1, feed_id=feed, thread_id=None, since=since)
        assert not store.rejoin(session, chat_id=1, feed_id=feed, thread_id=None, since=since)
    assert settings_of(engine, 1, feed) == before
    with Session(engine) as session:
        assert store.count_subscriptions(session, chat_id=1) == 1
        (reader,) = [r for r in store.feed_audience(session, feed_id=feed) if r.chat_id == 1]
        assert reader.rules == ("title:v2",) and reader.message_format == "title"


def test_undo_restores_what_was_left_together_while_it_works(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    first, second = feed_ids[0], feed_ids[1]
    with transaction(engine) as session:
        store.subscribe(session, chat_id=1, feed_id=second, thread_id=7)
        assert store.unsubscribe(session, chat_id=1, feed_id=None, now=NOW) == 2
        assert store.unsubscribe(session, chat_id=2, feed_id=first, now=NOW) == 1
    start, until = stamped(stamp(NOW))
    since = KEEP.undo_since(NOW + timedelta(minutes=5))
    with transaction(engine) as session:
        found = store.left_since(session, chat_id=1, feed_id=None, since=start, until=until)
        assert sorted(found) == [first, second]
        late = KEEP.undo_since(NOW + timedelta(minutes=11))
        assert store.left_since(session, chat_id=1, feed_id=None, since=late) == []
        assert store.restore(session, chat_id=1, feed_id=None, since=since, until=until) == 2
    with Session(engine) as session:
        subs = store.chat_subscriptions(session, chat_id=1)
        assert [(feed.id, reader.thread_id) for reader, feed in subs] == [
            (first, None),
            (second, 7),
        ]
        assert store.get_subscription(session, chat_id=2, feed_id=first) is None  # not chat 2's


def test_housekeeping_forgets_old_ones_and_a_forgotten_one_starts_afresh(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    feed = feed_ids[0]
    customise(engine, 1, feed)
    with transaction(engine) as session:
        store.unsubscribe(session, chat_id=1, feed_id=feed, now=NOW - timedelta(days=31))
        store.unsubscribe(session, chat_id=2, feed_id=feed, now=NOW - timedelta(days=29))
    with transaction(engine) as session:  # too old to restore, not yet forgotten
        since = KEEP.kept_since(NOW)
        assert not store.rejoin(session, chat_id=1, feed_id=feed, thread_id=None, since=since)
        assert store.subscribe(session, chat_id=1, feed_id=feed)  # replaces the left row
    with Session(engine) as session:
        reader = store.get_subscription(session, chat_id=1, feed_id=feed)
        assert reader is not None and reader.rules == () and not reader.silent
    with transaction(engine) as session:
        assert store.forget_left(session, before=KEEP.kept_since(NOW)) == 0  # 29 days: kept
        later = NOW + timedelta(days=2)
        assert store.forget_left(session, before=KEEP.kept_since(later)) == 1
    with Session(engine) as session:
        rows = session.exec(select(Subscription).where(Subscription.feed_id == feed)).all()
        assert sorted(row.chat_id for row in rows) == [1, 3]
        assert all(row.left_at is None for row in rows)


def test_a_group_upgrade_keeps_what_it_follows_over_what_the_new_id_left(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    first, second = feed_ids[0], feed_ids[1]
    with transaction(engine) as session:  # chat 1 follows both; the new id left the first
        store.subscribe(session, chat_id=1, feed_id=second)
        store.upsert_chat(session, chat_id=-100, type_="supergroup", title="")
        store.subscribe(session, chat_id=-100, feed_id=first)
        store.subscribe(session, chat_id=-100, feed_id=second)
        store.unsubscribe(session, chat_id=-100, feed_id=first, now=NOW)
        store.unsubscribe(session, chat_id=1, feed_id=second, now=NOW)
    customise(engine, 1, first)
    before = settings_of(engine, 1, first)
    with transaction(engine) as session:
        store.migrate_chat(session, old_id=1, new_id=-100)
    with Session(engine) as session:
        subs = store.chat_subscriptions(session, chat_id=-100)
        assert sorted(feed.id for _, feed in subs) == [first, second]
        rows = session.exec(select(Subscription).where(Subscription.chat_id == 1)).all()
        assert rows == []
    moved = settings_of(engine, -100, first)
    assert {k: v for k, v in moved.items() if k not in ("chat_id", "id")} == {
        k: v for k, v in before.items() if k not in ("chat_id", "id")
    }
