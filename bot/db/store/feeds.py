"""Feeds: the catalog of watched feeds and each feed's poll state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, func, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.polls.alerts import AlertStep
from bot.core.polls.decide import FeedIntent, FeedState, FeedStatus
from bot.db.store.statements import columns, run, table
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


# --- poll state ------------------------------------------------------------------------------

_FEED = table(Feed)
STATE_COLUMNS = columns(
    Feed,
    "id slug url title etag last_modified trusted body_hash baseline_done error_count"
    " interval_seconds ttl_seconds failing_since alert alerted_at churn_polls full_text"
    " next_check_at added_by edits",
)

_ONE_STATE = sa_select(*STATE_COLUMNS).where(_FEED.c.id == bindparam("b_id"))
_UPDATE_FEED = update(_FEED).where(_FEED.c.id == bindparam("b_id"))  # SET from the parameters
_UPDATE_QUIET = _UPDATE_FEED.values(
    status=bindparam("status"),
    last_error=bindparam("last_error"),
    error_count=bindparam("error_count"),
    last_checked_at=bindparam("last_checked_at"),
    next_check_at=bindparam("next_check_at"),
    lease_until=bindparam("lease_until"),
    lease_owner=bindparam("lease_owner"),
)
_UPDATE_VALIDATORS = _UPDATE_FEED.values(
    etag=bindparam("etag"), last_modified=bindparam("last_modified")
)


def feed_states(
    session: Session, *, now: datetime | None = None, feed_id: int | None = None
) -> list[FeedState]:
    """Feeds without claiming them: due ones (`now`), one (`feed_id`), or all."""
    if feed_id is not None:  # each changed feed's poll: a statement built once
        rows = run(session, _ONE_STATE, {"b_id": feed_id})
        return [FeedState(*tuple(row)) for row in rows]
    query = sa_select(*STATE_COLUMNS).where(col(Feed.status) != FeedStatus.GONE)
    if now is not None:
        query = query.where(col(Feed.next_check_at) <= now)
    return [FeedState(*row) for row in session.execute(query).all()]


def mark_feeds_checked(
    session: Session,
    *,
    feed_ids: list[int],
    now: datetime,
    next_check_at: dict[int, datetime],
    validators: dict[int, tuple[str | None, str | None]],
) -> None:
    """Feeds that answered 304 or an identical body: healthy, checked now, lease released,
    each at its own next check. One prebuilt statement run with every feed's parameters
    (executemany): hundreds of quiet polls a second cost one round trip per batch, not one
    ORM statement per feed (each poll's next check is its own time)."""
    if not feed_ids:
        return
    rows = [
        {
            "b_id": feed_id,
            "status": FeedStatus.OK,
            "last_error": None,
            "error_count": 0,
            "last_checked_at": now,
            "next_check_at": next_check_at[feed_id],
            "lease_until": None,
            "lease_owner": None,
        }
        for feed_id in feed_ids
    ]
    run(session, _UPDATE_QUIET, rows)
    changed = [
        {"b_id": feed_id, "etag": etag, "last_modified": modified}
        for feed_id, (etag, modified) in validators.items()
    ]
    if changed:
        run(session, _UPDATE_VALIDATORS, changed)


def apply_intent(
    session: Session,
    *,
    feed_id: int,
    intent: FeedIntent,
    title: str | None = None,
    alert: AlertStep | None = None,
    churn_polls: int | None = None,
    excerpt_only: bool | None = None,
) -> bool:
    """Write what the decision says about the feed row; the lease is released with it.
    False: the feed is gone (removed while it was polled)."""
    values: dict[str, object] = {
        "status": intent.status,
        "last_error": intent.error,
        "error_count": intent.error_count,
        "last_checked_at": intent.checked_at,
        "next_check_at": intent.next_check_at,
        "etag": intent.etag,
        "last_modified": intent.last_modified,
        "lease_until": None,
        "lease_owner": None,
    }
    if intent.parse and intent.body_hash is not None:
        values.update(
            body_hash=intent.body_hash, baseline_done=True, ttl_seconds=intent.ttl_seconds
        )
    if intent.new_url and get_feed_by_url(session, url=intent.new_url) is None:
        values["url"] = intent.new_url
    if title:
        values["title"] = title
    if alert is not None:
        values.update(alert=alert.state, failing_since=alert.failing_since)
        if alert.send is not None:
            values["alerted_at"] = intent.checked_at
    if churn_polls is not None:
        values["churn_polls"] = churn_polls
    if excerpt_only is not None:
        values["excerpt_only"] = excerpt_only
    return bool(run(session, _UPDATE_FEED, {**values, "b_id": feed_id}).rowcount)
