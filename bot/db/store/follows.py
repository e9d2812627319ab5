"""Followed posts (`follow`) and what their pages said (`post_check`'s page columns)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import bindparam, delete, func
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot.core.types import ParsedItem
from bot.db.store.statements import columns, run, table
from bot.db.tables import Chat, Feed, Follow, Item, PostCheck, Subscription


@dataclass(frozen=True, slots=True)
class Post:
    """A stored post as following needs it: its feed, and what a message about it shows."""

    item_id: int
    feed_id: int
    feed_slug: str
    feed_title: str
    feed_url: str
    trusted: bool
    item: ParsedItem
    changed_at: datetime
    seen_at: datetime


class Followed(StrEnum):
    NEW = "new"
    MOVED = "moved"  # already followed: its end moved
    LIMIT = "limit"  # the chat follows the most posts allowed


@dataclass(frozen=True, slots=True)
class Following:
    """One of a chat's follows, as /following lists it."""

    item_id: int
    title: str
    link: str | None
    until: datetime


@dataclass(frozen=True, slots=True)
class Follower:
    """A chat following a post of a feed being written (by the post's key)."""

    chat_id: int
    key: str
    thread_id: int | None
    language: str | None
    timezone: str


@dataclass(frozen=True, slots=True)
class Page:
    """A followed post's page as last read (None: never read)."""

    post: Post
    in_feed: bool
    etag: str | None
    last_modified: str | None
    text: str | None
    page_at: datetime | None


_POST_COLUMNS = (
    *columns(Item, "id feed_id"),
    *columns(Feed, "slug title url trusted"),
    *columns(
        Item,
        "key title link author published_at categories text fingerprint image last_changed_at "
        "last_seen_at",
    ),
)


def _post(row: tuple[object, ...]) -> Post:
    (item_id, feed_id, slug, feed_title, url, trusted, key, title, link, author, published,
     categories, text, fingerprint, image, changed, seen) = row  # fmt: skip
    item = ParsedItem(
        key=str(key),
        title=str(title),
        link=link if isinstance(link, str) else None,
        author=author if isinstance(author, str) else None,
        published=published if isinstance(published, datetime) else None,
        categories=tuple(categories) if isinstance(categories, list) else (),
        text=str(text),
        fingerprint=str(fingerprint),
        position=0,
        image=image if isinstance(image, str) else None,
    )
    assert isinstance(changed, datetime) and isinstance(seen, datetime)
    return Post(
        int(str(item_id)), int(str(feed_id)), str(slug), str(feed_title), str(url),
        bool(trusted), item, changed, seen,
    )  # fmt: skip


def post_by_id(session: Session, *, item_id: int) -> Post | None:
    row = session.execute(
        sa_select(*_POST_COLUMNS)
        .join(Feed, col(Feed.id) == Item.feed_id)
        .where(col(Item.id) == item_id)
    ).first()
    return _post(tuple(row)) if row is not None else None


def post_by_link(session: Session, *, links: list[str], chat_id: int) -> Post | None:
    """The stored post at one of `links` (its spellings), from a feed the chat reads if any."""
    subscribed = (
        select(func.count())
        .where(
            Subscription.chat_id == chat_id,
            Subscription.feed_id == Item.feed_id,
            col(Subscription.left_at).is_(None),
        )
        .scalar_subquery()
    )
    row = session.execute(
        sa_select(*_POST_COLUMNS)
        .join(Feed, col(Feed.id) == Item.feed_id)
        .where(col(Item.link).in_(links))
        .order_by(subscribed.desc(), col(Item.last_seen_at).desc())
        .limit(1)
    ).first()
    return _post(tuple(row)) if row is not None else None


def follow(
    session: Session,
    *,
    chat_id: int,
    item_id: int,
    until: datetime,
    thread_id: int | None,
    most: int,
    now: datetime,
) -> Followed:
    """Follow a post until `until` (again: the end moves), within `most` follows a chat."""
    had = session.exec(
        select(Follow).where(Follow.chat_id == chat_id, Follow.item_id == item_id)
    ).first()
    if had is not None and had.until > now:
        had.until = until
        session.add(had)
        return Followed.MOVED
    if had is not None:  # ended, not yet cleared by housekeeping
        session.delete(had)
        session.flush()
    count = session.exec(
        select(func.count()).where(Follow.chat_id == chat_id, col(Follow.until) > now)
    ).one()
    if int(count) >= most:
        return Followed.LIMIT
    session.add(Follow(chat_id=chat_id, item_id=item_id, until=until, thread_id=thread_id))
    return Followed.NEW


def unfollow(session: Session, *, chat_id: int, item_id: int) -> bool:
    result = session.exec(
        delete(Follow).where(col(Follow.chat_id) == chat_id, col(Follow.item_id) == item_id)
    )
    return bool(result.rowcount)


def chat_follows(session: Session, *, chat_id: int, now: datetime) -> list[Following]:
    rows = session.exec(
        select(Follow.item_id, Item.title, Item.link, Follow.until)
        .join(Item, col(Item.id) == Follow.item_id)
        .where(Follow.chat_id == chat_id, col(Follow.until) > now)
        .order_by(col(Follow.until), col(Follow.id))
    ).all()
    return [Following(i, t, link, u) for i, t, link, u in rows]


def expire_follows(session: Session, *, now: datetime) -> int:
    """Follows past their end are forgotten (housekeeping); returns how many."""
    result = session.exec(delete(Follow).where(col(Follow.until) <= now))
    return int(result.rowcount or 0)


# Every poll with an edit asks (`followers`): built once (statements.py).
_FOLLOW, _ITEM, _CHAT = table(Follow), table(Item), table(Chat)
_FOLLOWERS = (
    sa_select(
        _FOLLOW.c.chat_id, _ITEM.c.key, _FOLLOW.c.thread_id, _CHAT.c.language, _CHAT.c.timezone
    )
    .select_from(
        _FOLLOW.join(_ITEM, _ITEM.c.id == _FOLLOW.c.item_id).join(
            _CHAT, _CHAT.c.id == _FOLLOW.c.chat_id, isouter=True
        )
    )
    .where(
        _ITEM.c.feed_id == bindparam("b_feed"),
        _ITEM.c.key.in_(bindparam("b_keys", expanding=True)),
        _FOLLOW.c.until > bindparam("b_now"),
        _CHAT.c.active.is_not(False),
        _CHAT.c.paused.is_not(True),
    )
    .order_by(_FOLLOW.c.id)
)


def followers(session: Session, *, feed_id: int, keys: list[str], now: datetime) -> list[Follower]:
    """Active chats following these posts of the feed (by key)."""
    if not keys:
        return []
    params = {"b_feed": feed_id, "b_keys": keys, "b_now": now}
    rows: list[Any] = list(run(session, _FOLLOWERS, params))
    return [Follower(r[0], r[1], r[2], r[3], r[4] or "UTC") for r in rows]


def followed_pages(session: Session, *, now: datetime) -> list[Page]:
    """Each post some chat follows now, with its page as last read and whether it is still in
    its feed (seen at the feed's last change)."""
    latest = (
        select(func.max(Item.last_seen_at))
        .where(Item.feed_id == col(Feed.id))
        .correlate(Feed)
        .scalar_subquery()
    )
    followed = select(Follow.item_id).where(col(Follow.until) > now).distinct()
    rows = session.execute(
        sa_select(*_POST_COLUMNS, latest, *columns(PostCheck, "etag last_modified text page_at"))
        .join(Feed, col(Feed.id) == Item.feed_id)
        .join(PostCheck, col(PostCheck.item_id) == Item.id, isouter=True)
        .where(col(Item.id).in_(followed))
        .order_by(col(Item.id))
    ).all()
    pages = []
    for row in rows:
        values = tuple(row)
        post = _post(values[: len(_POST_COLUMNS)])
        latest_seen, etag, modified, text, page_at = values[len(_POST_COLUMNS) :]
        in_feed = latest_seen is None or post.seen_at >= latest_seen
        pages.append(Page(post, in_feed, etag, modified, text, page_at))
    return pages


def save_page(
    session: Session,
    *,
    item_id: int,
    now: datetime,
    text: str | None = None,
    etag: str | None = None,
    last_modified: str | None = None,
) -> None:
    """The page was read now: its text (None: unchanged, a 304) and validators."""
    check = session.get(PostCheck, item_id) or PostCheck(item_id=item_id)
    check.page_at = now
    if text is not None:
        check.text = text
        check.etag, check.last_modified = etag, last_modified
    session.add(check)
