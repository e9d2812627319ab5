"""The duplicate check's storage (`store/stories.py`): a chat's stories only, of other feeds,
in the window, in the same topic; and read through the indexes, never a scan of the table."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session

from bot.core.polls.duplicates import story_of
from bot.db import direct, store
from bot.db.engine import transaction
from bot.db.tables import Delivery, DeliveryStatus, Item
from tests.support.storage import NOW

LINK = "https://blog.example/post/"


def _post(engine: Engine, feed_id: int, chat_id: int, message_id: int, **extra: Any) -> int:
    """A sent new-post message (its item and delivery); returns the item's id."""
    with transaction(engine) as session:
        item = Item(feed_id=feed_id, key=f"k{message_id}", link=LINK, title="T", fingerprint="f")
        session.add(item)
        session.flush()
        delivery = Delivery(
            chat_id=chat_id,
            feed_id=feed_id,
            item_id=item.id,
            kind="new",
            text="x",
            status=DeliveryStatus.SENT,
            message_id=message_id,
            thread_id=extra.get("thread_id"),
        )
        session.add(delivery)
        session.flush()
        assert item.id is not None and delivery.id is not None
        item_id, delivery_id = item.id, delivery.id
    new = store.NewStory(chat_id, feed_id, story_of(LINK, "T", ""))
    with direct.begin(engine) as tx:
        store.add_stories(tx, [(delivery_id, new)], extra.get("at", NOW))
    return item_id


def _repeat(engine: Engine, chat_id: int, item_id: int, thread_id: int | None = None) -> Any:
    with Session(engine) as session:
        return store.find_repeat(
            session,
            chat_id=chat_id,
            item_id=item_id,
            thread_id=thread_id,
            since=NOW - timedelta(days=3),
        )


def test_only_this_chats_other_feeds_in_the_window_and_topic(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    _post(engine, feed_ids[0], 1, 10)
    _post(engine, feed_ids[0], 2, 20, thread_id=5)
    _post(engine, feed_ids[2], 1, 30, at=NOW - timedelta(days=4))  # before the window
    later = _post(engine, feed_ids[1], 3, 40)  # the same link from another feed, in chat 3
    assert isinstance(_repeat(engine, 3, later), store.NewStory)  # chat 3 was told nothing
    found = _repeat(engine, 1, later)
    assert isinstance(found, store.Repeat) and found.told.message_id == 10
    assert found.mode == store.FOLD and found.feed_title == "F1"
    assert isinstance(_repeat(engine, 2, later), store.NewStory)  # chat 2's is in topic 5
    assert _repeat(engine, 2, later, thread_id=5).told.message_id == 20
    same_feed = _post(engine, feed_ids[0], 4, 50)
    assert isinstance(_repeat(engine, 1, same_feed), store.NewStory)  # its own feed: not one
    with Session(engine) as session:
        assert (
            store.find_repeat(session, chat_id=1, item_id=99_999, thread_id=None, since=NOW) is None
        )


def test_the_check_reads_stories_through_an_index(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    if engine.dialect.name != "sqlite":
        return  # the plan is read with SQLite's EXPLAIN QUERY PLAN
    later = _post(engine, feed_ids[1], 1, 40)
    statements: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        if "FROM story" in statement:
            statements.append((statement, params))

    event.listen(engine, "before_cursor_execute", seen)
    try:
        _repeat(engine, 1, later)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert statements
    with engine.connect() as connection:
        for statement, params in statements:
            plan = connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, params).all()
            story_steps = [row[-1] for row in plan if " story" in row[-1]]
            assert story_steps and all("USING INDEX ix_story_" in s for s in story_steps), plan


def test_a_group_upgrade_moves_its_stories_weights_and_choice(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    with transaction(engine) as session:
        store.upsert_chat(session, chat_id=-5, type_="group", title="G")
        store.set_duplicates(session, chat_id=-5, mode=store.SHOW)
        store.subscribe(session, chat_id=-5, feed_id=feed_ids[0])
        store.move(session, chat_id=-5, kind=store.CATEGORY, name="x", shown="X", delta=2, now=NOW)
        store.move(  # a weight the new id had meanwhile gives way to the group's own
            session, chat_id=-100, kind=store.CATEGORY, name="y", shown="Y", delta=1, now=NOW
        )
    _post(engine, feed_ids[0], -5, 10)
    later = _post(engine, feed_ids[1], -100, 20)
    with transaction(engine) as session:
        store.migrate_chat(session, old_id=-5, new_id=-100)
    with Session(engine) as session:
        assert store.chat_duplicates(session, chat_id=-100) == store.SHOW
        assert [(w.shown, w.weight) for w in store.weights(session, chat_id=-100)] == [("X", 2)]
        assert store.weights(session, chat_id=-5) == []
    found = _repeat(engine, -100, later)
    assert isinstance(found, store.Repeat) and found.told.message_id == 10


def _edit(
    engine: Engine, feed_id: int, chat_id: int, item_id: int, text: str, **extra: Any
) -> None:
    with transaction(engine) as session:
        session.add(
            Delivery(
                chat_id=chat_id,
                feed_id=feed_id,
                item_id=item_id,
                kind="edited",
                text=text,
                status=extra.get("status", DeliveryStatus.SENT),
                sent_at=extra.get("at", NOW),
            )
        )


def test_edits_replying_are_other_copies_sent_edits_to_that_message(
    engine: Engine, feed_ids: list[int], chats: list[int]
) -> None:
    first = _post(engine, feed_ids[0], 1, 10)
    folded = _post(engine, feed_ids[1], 1, 10)  # a copy folded into message 10
    elsewhere = _post(engine, feed_ids[2], 1, 30)
    other_chat = _post(engine, feed_ids[2], 2, 10)  # chat 2's own message 10
    _edit(engine, feed_ids[1], 1, folded, "the copy's edit")
    _edit(engine, feed_ids[1], 1, folded, "old", at=NOW - timedelta(days=4))
    _edit(engine, feed_ids[1], 1, folded, "waiting", status=DeliveryStatus.PENDING)
    _edit(engine, feed_ids[2], 1, elsewhere, "another message's edit")
    _edit(engine, feed_ids[2], 2, other_chat, "another chat's edit")
    _edit(engine, feed_ids[0], 1, first, "this post's own earlier edit")

    def replying(item_id: int) -> list[str]:
        with Session(engine) as session:
            return store.edits_replying(
                session, chat_id=1, item_id=item_id, message_id=10, since=NOW - timedelta(days=3)
            )

    assert replying(first) == ["the copy's edit"]
    assert replying(folded) == ["this post's own earlier edit"]
