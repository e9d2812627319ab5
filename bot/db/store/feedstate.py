"""Each feed's poll state: read for polling, written by quiet polls and by each decision.

On the SQLAlchemy Core table (`db/core_tables.py`), never the models: a quiet `poll --once
--dry-run` reads its feeds here and loads neither SQLModel nor the ORM (issue 48). `session`
is an ORM session (its transaction: `statements.run`) or, for a read alone, a connection.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, select, update

from bot.core.polls.decide import FeedIntent, FeedState, FeedStatus
from bot.db.core_tables import feed
from bot.db.store.statements import columns, run

if TYPE_CHECKING:
    from sqlmodel import Session

    from bot.core.polls.alerts import AlertStep
    from bot.db.store.statements import Runner

# The columns of `FeedState`, in its order (`leases.claim_feeds` returns the same).
STATE_NAMES = (
    "id slug url title etag last_modified trusted body_hash baseline_done error_count"
    " interval_seconds ttl_seconds failing_since alert alerted_at churn_polls full_text"
    " next_check_at added_by edits"
)
STATE_COLUMNS = columns(feed, STATE_NAMES)

_ONE_STATE = select(*STATE_COLUMNS).where(feed.c.id == bindparam("b_id"))
_UPDATEfeed = update(feed).where(feed.c.id == bindparam("b_id"))  # SET from the parameters
_UPDATE_QUIET = _UPDATEfeed.values(
    status=bindparam("status"),
    last_error=bindparam("last_error"),
    error_count=bindparam("error_count"),
    last_checked_at=bindparam("last_checked_at"),
    next_check_at=bindparam("next_check_at"),
    lease_until=bindparam("lease_until"),
    lease_owner=bindparam("lease_owner"),
)
_URL_TAKEN = select(feed.c.id).where(feed.c.url == bindparam("url"))
_UPDATE_VALIDATORS = _UPDATEfeed.values(
    etag=bindparam("etag"), last_modified=bindparam("last_modified")
)


def feed_states(
    session: Runner, *, now: datetime | None = None, feed_id: int | None = None
) -> list[FeedState]:
    """Feeds without claiming them: due ones (`now`), one (`feed_id`), or all."""
    if feed_id is not None:  # each changed feed's poll: a statement built once
        rows = run(session, _ONE_STATE, {"b_id": feed_id})
        return [FeedState(*tuple(row)) for row in rows]
    query = select(*STATE_COLUMNS).where(feed.c.status != FeedStatus.GONE)
    if now is not None:
        query = query.where(feed.c.next_check_at <= now)
    return [FeedState(*tuple(row)) for row in run(session, query)]


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
    if intent.new_url and run(session, _URL_TAKEN, {"url": intent.new_url}).first() is None:
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
    return bool(run(session, _UPDATEfeed, {**values, "b_id": feed_id}).rowcount)
