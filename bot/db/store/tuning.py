"""What a chat's reactions taught: weights per feed and category, a feed muted for a day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, delete, select

from bot.core.polls.tuning import bounded
from bot.core.types import KeywordFilter, MessageKind
from bot.db.tables import Delivery, Feed, Item, Subscription, Tuning

FEED = "feed"
CATEGORY = "category"


@dataclass(frozen=True, slots=True)
class Reacted:
    """The post a reaction was about, as a 👎's offers name it."""

    chat_id: int
    delivery_id: int
    feed_id: int
    feed_title: str
    title: str
    categories: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Weight:
    kind: str  # FEED or CATEGORY
    shown: str
    weight: int


def reacted_post(session: Session, *, chat_id: int, message_id: int) -> Reacted | None:
    """The new post the chat's message `message_id` is about (None: not one of ours)."""
    found = session.exec(
        select(Delivery, Item, Feed)
        .join(Item, col(Item.id) == col(Delivery.item_id))
        .join(Feed, col(Feed.id) == col(Delivery.feed_id))
        .where(
            col(Delivery.chat_id) == chat_id,
            col(Delivery.message_id) == message_id,
            col(Delivery.kind) == MessageKind.NEW,
        )
        .order_by(col(Delivery.id))
        .limit(1)
    ).first()
    if found is None:
        return None
    delivery, item, feed = found
    assert delivery.id is not None and feed.id is not None
    return Reacted(
        chat_id,
        delivery.id,
        feed.id,
        feed.title or feed.slug,
        item.title,
        tuple(item.categories or ()),
    )


def delivery_post(session: Session, *, delivery_id: int) -> Reacted | None:
    """The post of a 👎's offer (its chat may be a group whose admin got the offer)."""
    delivery = session.get(Delivery, delivery_id)
    if delivery is None or delivery.message_id is None:
        return None
    return reacted_post(session, chat_id=delivery.chat_id, message_id=delivery.message_id)


def tune(session: Session, *, chat_id: int, post: Reacted, delta: int, now: datetime) -> None:
    """Move the feed's and each category's weight by `delta` (bounded)."""
    names = [(FEED, str(post.feed_id), post.feed_title)]
    names += [(CATEGORY, c.casefold()[:100], c[:100]) for c in dict.fromkeys(post.categories)]
    for kind, name, shown in names:
        move(session, chat_id=chat_id, kind=kind, name=name, shown=shown, delta=delta, now=now)


def move(
    session: Session, *, chat_id: int, kind: str, name: str, shown: str, delta: int, now: datetime
) -> None:
    row = session.get(Tuning, (chat_id, kind, name))
    if row is None:
        row = Tuning(chat_id=chat_id, kind=kind, name=name, shown=shown[:100])
    row.weight = bounded(row.weight + delta)
    row.updated_at = now
    session.add(row)


def weights(session: Session, *, chat_id: int) -> list[Weight]:
    """The chat's learned weights (not zero), feeds first, strongest first."""
    rows = session.exec(
        select(Tuning).where(col(Tuning.chat_id) == chat_id, col(Tuning.weight) != 0)
    ).all()
    ordered = sorted(rows, key=lambda r: (r.kind != FEED, -abs(r.weight), r.shown))
    return [Weight(r.kind, r.shown, r.weight) for r in ordered]


def feed_weights(session: Session, *, chat_id: int) -> dict[str, dict[str, int]]:
    """{kind: {name: weight}}: what the ranked digest reads."""
    found: dict[str, dict[str, int]] = {FEED: {}, CATEGORY: {}}
    for row in session.exec(select(Tuning).where(col(Tuning.chat_id) == chat_id)).all():
        found.setdefault(row.kind, {})[row.name] = row.weight
    return found


def reset_tuning(session: Session, *, chat_id: int) -> int:
    """/tuning reset: every weight of the chat, and its mutes; how many weights there were."""
    count = len(weights(session, chat_id=chat_id))
    session.exec(delete(Tuning).where(col(Tuning.chat_id) == chat_id))
    subs = session.exec(
        select(Subscription).where(
            col(Subscription.chat_id) == chat_id, col(Subscription.muted_until).is_not(None)
        )
    ).all()
    for sub in subs:
        sub.muted_until = None
        session.add(sub)
    return count


def subscription_keywords(session: Session, *, chat_id: int, feed_id: int) -> KeywordFilter | None:
    """The chat's keywords for the feed (None: not subscribed), as a 👎's "Exclude" adds one."""
    sub = session.exec(
        select(Subscription).where(
            col(Subscription.chat_id) == chat_id,
            col(Subscription.feed_id) == feed_id,
            col(Subscription.left_at).is_(None),
        )
    ).first()
    if sub is None:
        return None
    return KeywordFilter(tuple(sub.keywords or ()), tuple(sub.without_keywords or ()))


def mute(session: Session, *, chat_id: int, feed_id: int, until: datetime) -> bool:
    sub = session.exec(
        select(Subscription).where(
            col(Subscription.chat_id) == chat_id, col(Subscription.feed_id) == feed_id
        )
    ).first()
    if sub is None:
        return False
    sub.muted_until = until
    session.add(sub)
    return True


def muted(session: Session, *, chat_id: int, now: datetime) -> list[tuple[str, datetime]]:
    """The chat's feeds muted now, with when each mute ends."""
    rows = session.exec(
        select(Feed, Subscription)
        .join(Subscription, col(Subscription.feed_id) == col(Feed.id))
        .where(col(Subscription.chat_id) == chat_id, col(Subscription.muted_until) > now)
    ).all()
    return [(feed.title or feed.slug, sub.muted_until) for feed, sub in rows if sub.muted_until]
