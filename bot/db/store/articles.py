"""Articles: what full-text feeds' post pages gave, one row per item (issue 27)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from sqlalchemy import delete, insert
from sqlmodel import Session, col, select

from bot.core.messages.article import Article as ArticleValue
from bot.db.store.statements import run, table
from bot.db.tables import Article, Feed, Item


def known_keys(session: Session, *, feed_id: int, keys: Iterable[str]) -> set[str]:
    """Which of `keys` storage already holds for the feed (their posts are not new)."""
    wanted = list(dict.fromkeys(keys))
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found.update(
            session.exec(
                select(Item.key).where(Item.feed_id == feed_id, col(Item.key).in_(chunk))
            ).all()
        )
    return found


def save_articles(
    session: Session, *, feed_id: int, articles: Mapping[str, ArticleValue], now: datetime
) -> None:
    """Store each post's article (or why there is none) by item key, replacing an older one."""
    if not articles:
        return
    ids = dict(
        session.exec(
            select(Item.key, Item.id).where(
                Item.feed_id == feed_id, col(Item.key).in_(list(articles))
            )
        ).all()
    )
    rows = [
        {
            "item_id": ids[key],
            "html": article.html or None,
            "image": article.image,
            "error": article.error,
            "fetched_at": now,
        }
        for key, article in articles.items()
        if ids.get(key) is not None
    ]
    if not rows:
        return
    session.exec(delete(Article).where(col(Article.item_id).in_([r["item_id"] for r in rows])))
    run(session, insert(table(Article)), rows)


def articles_of(session: Session, *, item_ids: Iterable[int]) -> dict[int, ArticleValue]:
    """The stored articles of these items (only those with text), by item id."""
    wanted = list(item_ids)
    if not wanted:
        return {}
    rows = session.exec(
        select(Article).where(col(Article.item_id).in_(wanted), col(Article.html).is_not(None))
    ).all()
    return {row.item_id: ArticleValue(html=row.html or "", image=row.image) for row in rows}


def set_full_text(session: Session, *, slug: str, on: bool) -> bool:
    """Turn full text on or off for a feed; False when there is no such feed."""
    feed = session.exec(select(Feed).where(Feed.slug == slug)).first()
    if feed is None:
        return False
    feed.full_text = on
    session.add(feed)
    return True


def toggle_full_text(session: Session, *, feed_id: int) -> bool | None:
    """Flip a feed's full text; its new value, or None when there is no such feed."""
    feed = session.get(Feed, feed_id)
    if feed is None:
        return None
    feed.full_text = not feed.full_text
    session.add(feed)
    return feed.full_text
