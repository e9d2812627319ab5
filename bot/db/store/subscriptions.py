"""Subscriptions: which chat follows which feed, with what filters and switches.

One typed function per setting (not a bag of column names), and value objects out: handlers see
`Reader` and `FeedView`, never ORM rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, bindparam, delete, func, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.messages.digest import DigestSchedule
from bot.core.modes import (
    AnyMode,
    Edits,
    Format,
    Mode,
    Preview,
    Sound,
    SummaryMode,
    mode_of,
)
from bot.core.types import CategoryFilter, KeywordFilter, Reader
from bot.db.store.feeds import FeedView, _view
from bot.db.store.outbox import cancel_queued
from bot.db.store.statements import run, table
from bot.db.tables import Chat, Feed, Subscription
from bot.runtime.clock import utcnow


def subscribe(
    session: Session, *, chat_id: int, feed_id: int, thread_id: int | None = None
) -> bool:
    """Subscribe (into a forum topic when `thread_id` is given); False when it already was.
    A left row not restored (`store.rejoin`) is replaced: its settings start afresh."""
    if _row(session, chat_id, feed_id) is not None:
        return False
    session.exec(
        delete(Subscription).where(
            col(Subscription.chat_id) == chat_id,
            col(Subscription.feed_id) == feed_id,
            col(Subscription.left_at).is_not(None),
        )
    )
    session.add(Subscription(chat_id=chat_id, feed_id=feed_id, thread_id=thread_id))
    session.flush()
    return True


def unsubscribe(
    session: Session, *, chat_id: int, feed_id: int | None, now: datetime | None = None
) -> int:
    """Leave one subscription, or all of a chat's when `feed_id` is None; return how many.
    The rows are marked left at `now`, settings kept (core/rules/leaving.py); whatever was
    queued for them is cancelled."""
    query = update(Subscription).where(_active(), col(Subscription.chat_id) == chat_id)
    if feed_id is not None:
        query = query.where(col(Subscription.feed_id) == feed_id)
    left = session.exec(query.values(left_at=now or utcnow())).rowcount
    cancel_queued(session, chat_id=chat_id, feed_id=feed_id)
    return int(left or 0)


def count_subscriptions(session: Session, *, chat_id: int) -> int:
    query = (
        select(func.count())
        .select_from(Subscription)
        .where(Subscription.chat_id == chat_id, _active())
    )
    return int(session.exec(query).one())


def chat_subscriptions(session: Session, *, chat_id: int) -> list[tuple[Reader, FeedView]]:
    """The chat's subscriptions with their feeds, by feed name."""
    rows = session.exec(
        select(Subscription, Feed)
        .join(Feed, col(Feed.id) == col(Subscription.feed_id))
        .where(Subscription.chat_id == chat_id, _active())
        .order_by(Feed.slug)
    ).all()
    return [(audience(sub), _view(feed)) for sub, feed in rows]


@dataclass(frozen=True, slots=True)
class FeedName:
    """A followed feed as `/search` names it: three columns, not the whole rows."""

    id: int
    slug: str
    title: str


def chat_feed_names(session: Session, *, chat_id: int) -> list[FeedName]:
    """The chat's feeds by name. `/search` runs on every query and needs only these: loading
    the subscriptions' and feeds' whole rows cost more than the search itself at 50 feeds."""
    sub, feed = table(Subscription), table(Feed)
    statement = (
        sa_select(feed.c.id, feed.c.slug, feed.c.title)
        .join(sub, sub.c.feed_id == feed.c.id)
        .where(sub.c.chat_id == chat_id, sub.c.left_at.is_(None))
        .order_by(feed.c.slug)
    )
    rows: list[Any] = list(run(session, statement))
    return [FeedName(id_, slug, title) for id_, slug, title in rows]


def chat_digests(session: Session, *, chat_id: int) -> dict[int, DigestSchedule]:
    """The chat's digest schedules by feed id (/list shows each with its time)."""
    rows = session.exec(
        select(Subscription.feed_id, Subscription.digest, Subscription.digest_at).where(
            Subscription.chat_id == chat_id, col(Subscription.digest).is_not(None)
        )
    ).all()
    found = {feed_id: DigestSchedule.stored(mode, at) for feed_id, mode, at in rows}
    return {feed_id: schedule for feed_id, schedule in found.items() if schedule is not None}


def get_subscription(session: Session, *, chat_id: int, feed_id: int) -> Reader | None:
    sub = _row(session, chat_id, feed_id)
    return audience(sub) if sub is not None else None


# --- one setter per setting: each returns False when the chat is not subscribed --------------


def set_filter(session: Session, *, chat_id: int, feed_id: int, flt: CategoryFilter) -> bool:
    values = {"categories": list(flt.include), "without_categories": list(flt.exclude)}
    return _set(session, chat_id, feed_id, values)


def set_keywords(session: Session, *, chat_id: int, feed_id: int, words: KeywordFilter) -> bool:
    values = {"keywords": list(words.include), "without_keywords": list(words.exclude)}
    return _set(session, chat_id, feed_id, values)


def set_rules(session: Session, *, chat_id: int, feed_id: int, rules: list[str] | None) -> bool:
    """/filter FEED title:… (None: off)."""
    return _set(session, chat_id, feed_id, {"rules": rules})


def set_mode(session: Session, *, chat_id: int, feed_id: int, value: AnyMode) -> bool:
    """Any mode's value (`/format FEED full`, `/edits FEED off`…), in its one column."""
    stored: object = value is Sound.SILENT if isinstance(value, Sound) else value.value
    return _set(session, chat_id, feed_id, {mode_of(value).column: stored})


def toggle_mode(session: Session, *, chat_id: int, feed_id: int, mode: Mode) -> bool:
    """A switch under /list: the mode's next value in its cycle (previews image → link →
    off; edits on ↔ off)."""
    sub = _row(session, chat_id, feed_id)
    if sub is None:
        return False
    value = mode.toggled(audience(sub).value_of(mode))
    return set_mode(session, chat_id=chat_id, feed_id=feed_id, value=value)


def set_digest(
    session: Session,
    *,
    chat_id: int,
    feed_id: int,
    schedule: DigestSchedule | None,
    now: datetime,
) -> bool:
    """A digest schedule (None: every post at once); its period starts now."""
    values = {
        "digest": schedule.mode.value if schedule else None,
        "digest_at": schedule.at_text if schedule else None,
        "last_digest_at": now,
    }
    return _set(session, chat_id, feed_id, values)


def _active() -> ColumnElement[bool]:
    """Subscribed, not left (a left row only keeps settings: core/rules/leaving.py)."""
    return col(Subscription.left_at).is_(None)


def _row(session: Session, chat_id: int, feed_id: int) -> Subscription | None:
    return session.exec(
        select(Subscription).where(
            Subscription.chat_id == chat_id, Subscription.feed_id == feed_id, _active()
        )
    ).first()


def _set(session: Session, chat_id: int, feed_id: int, values: Mapping[str, object]) -> bool:
    result = session.exec(
        update(Subscription)
        .where(
            col(Subscription.chat_id) == chat_id, col(Subscription.feed_id) == feed_id, _active()
        )
        .values(**values)
    )
    return bool(result.rowcount)


# --- the fan-out's and the digests' view --------------------------------------------------------


_SUB = table(Subscription)
_CHAT = table(Chat)
# Each changed feed's poll asks for its audience: a statement built once (see statements.py).
_AUDIENCE = (
    sa_select(
        _SUB,
        _CHAT.c.language,
        _CHAT.c.timezone,
        _CHAT.c.translate,
        _CHAT.c.quiet,
        _CHAT.c.rules.label("chat_rules"),
    )
    .join(_CHAT, _CHAT.c.id == _SUB.c.chat_id)
    .where(
        _SUB.c.feed_id == bindparam("b_feed"),
        _SUB.c.left_at.is_(None),
        _CHAT.c.active.is_(True),
        _CHAT.c.paused.is_(False),
        # 👎 → "Mute FEED for a day" (core/polls/tuning.py): it ends by itself.
        or_(_SUB.c.muted_until.is_(None), _SUB.c.muted_until <= bindparam("b_now")),
    )
    .order_by(_SUB.c.chat_id)
)


def feed_audience(session: Session, *, feed_id: int, now: datetime | None = None) -> list[Reader]:
    """Active, unpaused chats subscribed to a feed and not muting it, with their filters and
    settings."""
    at = now or utcnow()
    rows = run(session, _AUDIENCE, {"b_feed": feed_id, "b_now": at}).mappings()
    return [
        audience_of(
            row,
            row["language"],
            row["timezone"],
            translate=row["translate"],
            quiet=row["quiet"],
            chat_rules=tuple(row["chat_rules"] or ()),
        )
        for row in rows
    ]


def audience(sub: Subscription, language: str | None = None) -> Reader:
    return audience_of(sub.model_dump(), language)


def audience_of(
    sub: Mapping[Any, Any],
    language: str | None,
    timezone: str | None = None,
    *,
    translate: bool = False,
    quiet: str | None = None,
    chat_rules: tuple[str, ...] = (),
) -> Reader:
    """A subscription's columns (an ORM row's or a Core row's) as the fan-out's audience."""
    return Reader(
        chat_id=sub["chat_id"],
        feed_id=sub["feed_id"],
        categories=CategoryFilter(
            include=tuple(sub["categories"] or ()), exclude=tuple(sub["without_categories"] or ())
        ),
        keywords=KeywordFilter(
            include=tuple(sub["keywords"] or ()), exclude=tuple(sub["without_keywords"] or ())
        ),
        edits=Edits(sub["edit_mode"]),
        preview=Preview(sub["preview_mode"]),
        silent=sub["silent"],
        thread_id=sub["thread_id"],
        digest=sub["digest"] is not None,
        language=language,
        timezone=timezone or "UTC",
        message_format=Format(sub["message_format"]),
        summary_mode=SummaryMode(sub["summary_mode"]),
        translate=bool(translate),
        quiet=quiet,
        rules=tuple(sub.get("rules") or ()),
        chat_rules=chat_rules,
    )


@dataclass(frozen=True, slots=True)
class DigestSubscription:
    """A subscription with a digest, and what deciding whether it is due needs."""

    audience: Reader
    feed_title: str
    schedule: DigestSchedule
    last: datetime
    timezone: str
    top: int | None = None  # the chat's ranked digest across feeds (/digest all … top N)


def digest_subscriptions(session: Session) -> list[DigestSubscription]:
    """Digest subscriptions of active, unpaused chats (a paused chat gets no digest)."""
    rows = session.exec(
        select(Subscription, Chat, Feed)
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
        .join(Feed, col(Feed.id) == col(Subscription.feed_id))
        .where(
            col(Subscription.digest).is_not(None),
            _active(),
            col(Chat.active).is_(True),
            col(Chat.paused).is_(False),
        )
    ).all()
    found = []
    for sub, chat, feed in rows:
        schedule = DigestSchedule.stored(sub.digest, sub.digest_at)
        assert schedule is not None
        last = sub.last_digest_at or sub.created_at
        found.append(
            DigestSubscription(
                audience_of(
                    sub.model_dump(),
                    chat.language,
                    chat.timezone,
                    quiet=chat.quiet,
                    chat_rules=tuple(chat.rules or ()),
                ),
                feed.title,
                schedule,
                last,
                chat.timezone,
                chat.digest_top,
            )
        )
    return found


def set_digest_all(
    session: Session,
    *,
    chat_id: int,
    schedule: DigestSchedule | None,
    top: int | None,
    now: datetime,
) -> tuple[int, str]:
    """/digest all: every feed of the chat on one schedule (None: every post at once), and
    the chat's ranked digest of `top` posts (None: one digest per feed); how many feeds, and
    the chat's time zone (a daily time is in it)."""
    subs = session.exec(
        select(Subscription).where(col(Subscription.chat_id) == chat_id, _active())
    ).all()
    for sub in subs:
        sub.digest = schedule.mode.value if schedule else None
        sub.digest_at = schedule.at_text if schedule else None
        sub.last_digest_at = now
        session.add(sub)
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.digest_top = top if schedule is not None else None
        session.add(chat)
    return len(subs), chat.timezone if chat is not None else "UTC"


def digest_sent(session: Session, *, chat_id: int, feed_id: int, at: datetime) -> None:
    _set(session, chat_id, feed_id, {"last_digest_at": at})
