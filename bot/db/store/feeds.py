"""Feeds: the catalog of watched feeds (each feed's poll state: `feedstate.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from bot.core.polls.decide import FeedStatus
from bot.db.tables import Delivery, Feed, FeedCategory, Item, Subscription


@dataclass(frozen=True, slots=True)
class FeedView:
    """A feed as the rest of the program sees it (never the ORM row)."""

    id: int
    slug: str
    url: str
    title: str
    status: str
    last_error: str | None
    last_checked_at: datetime | None
    trusted: bool
    interval_seconds: int | None = None  # its own pace; None: the setting
    added_by: int | None = None  # the user who added it from a chat
    full_text: bool = False  # its posts' pages are read for the article (`--full-text`)
    excerpt_only: bool = False  # its last parse found only excerpts
    edits: bool = True  # its edits are reported (`feed set --edits off`: new posts only)


@dataclass(frozen=True, slots=True)
class FeedListing:
    """A feed with its item count, for listings."""

    feed: FeedView
    items: int


def _view(feed: Feed) -> FeedView:
    return FeedView(
        id=feed.id or 0,
        slug=feed.slug,
        url=feed.url,
        title=feed.title,
        status=feed.status,
        last_error=feed.last_error,
        last_checked_at=feed.last_checked_at,
        trusted=feed.trusted,
        interval_seconds=feed.interval_seconds,
        added_by=feed.added_by,
        full_text=feed.full_text,
        excerpt_only=bool(feed.excerpt_only),
        edits=feed.edits,
    )


def add_feed(
    session: Session,
    *,
    slug: str,
    url: str,
    title: str,
    trusted: bool,
    added_by: int | None = None,
) -> FeedView:
    feed = Feed(slug=slug, url=url, title=title, trusted=trusted, added_by=added_by)
    session.add(feed)
    session.flush()
    return _view(feed)


def count_feeds(session: Session, *, added_by: int | None = None) -> int:
    """Every watched feed, or those one user added (the MAX_FEEDS limits)."""
    query = select(func.count(col(Feed.id)))
    if added_by is not None:
        query = query.where(col(Feed.added_by) == added_by)
    return int(session.exec(query).one())


def get_feed(session: Session, *, slug: str) -> FeedView | None:
    feed = session.exec(select(Feed).where(Feed.slug == slug)).first()
    return _view(feed) if feed is not None else None


def feed_by_id(session: Session, *, feed_id: int) -> FeedView | None:
    feed = session.get(Feed, feed_id)
    return _view(feed) if feed is not None else None


def get_feed_by_url(session: Session, *, url: str) -> FeedView | None:
    feed = session.exec(select(Feed).where(Feed.url == url)).first()
    return _view(feed) if feed is not None else None


def all_feeds(session: Session) -> list[FeedView]:
    """Every watched feed by name, without `list_feeds`' item counts (a scan of every item)."""
    return [_view(f) for f in session.exec(select(Feed).order_by(Feed.slug)).all()]


def list_feeds(session: Session) -> list[FeedListing]:
    counts = dict(
        session.exec(
            select(Item.feed_id, func.count(col(Item.id))).group_by(col(Item.feed_id))
        ).all()
    )
    feeds = session.exec(select(Feed).order_by(Feed.slug)).all()
    return [FeedListing(feed=_view(f), items=counts.get(f.id or 0, 0)) for f in feeds]


def remove_feed(session: Session, *, slug: str) -> bool:
    feed = session.exec(select(Feed).where(Feed.slug == slug)).first()
    if feed is None:
        return False
    for model in (Delivery, Subscription, Item, FeedCategory):
        session.exec(delete(model).where(col(model.feed_id) == feed.id))
    session.delete(feed)
    return True


def set_interval(session: Session, *, slug: str, seconds: int | None, now: datetime) -> bool:
    """The feed's own pace (None: back to the setting); it takes effect from now."""
    result = session.exec(
        update(Feed)
        .where(col(Feed.slug) == slug)
        .values(interval_seconds=seconds, next_check_at=now)
    )
    return bool(result.rowcount)


def set_feed_edits(session: Session, *, slug: str, on: bool) -> bool:
    """Report the feed's edits, or only its new posts (off: a planet re-issuing its entries)."""
    result = session.exec(update(Feed).where(col(Feed.slug) == slug).values(edits=on))
    return bool(result.rowcount)


def rename_feed(session: Session, *, slug: str, new_slug: str) -> bool:
    """Another name; subscriptions follow (they hold the feed's id)."""
    result = session.exec(update(Feed).where(col(Feed.slug) == slug).values(slug=new_slug))
    return bool(result.rowcount)


def move_feed(session: Session, *, slug: str, url: str, now: datetime) -> bool:
    """A new address: items, subscriptions and filters stay; validators and errors reset."""
    result = session.exec(
        update(Feed)
        .where(col(Feed.slug) == slug)
        .values(
            url=url,
            etag=None,
            last_modified=None,
            body_hash=None,
            status=FeedStatus.OK,
            last_error=None,
            error_count=0,
            next_check_at=now,
        )
    )
    return bool(result.rowcount)
