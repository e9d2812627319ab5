"""Telegraph pages of long posts, one per item, and the account's token (issue 47)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bot.db.store.statements import table
from bot.db.tables import Item, State, TelegraphPage

TOKEN_KEY = "telegraph_token"  # noqa: S105 - the state row's name, not a secret


@dataclass(frozen=True, slots=True)
class StoredPage:
    path: str
    url: str
    digest: str  # what the page shows, hashed (core/messages/telegraph.fingerprint)


def telegraph_pages(
    session: Session, *, feed_id: int, keys: Iterable[str]
) -> dict[str, StoredPage]:
    """The pages of the feed's posts under `keys`, by key."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, StoredPage] = {}
    for start in range(0, len(wanted), 500):
        rows = session.exec(
            select(Item.key, TelegraphPage.path, TelegraphPage.url, TelegraphPage.digest)
            .join(TelegraphPage, col(TelegraphPage.item_id) == col(Item.id))
            .where(Item.feed_id == feed_id, col(Item.key).in_(wanted[start : start + 500]))
        ).all()
        found.update({key: StoredPage(path, url, digest) for key, path, url, digest in rows})
    return found


def save_telegraph_pages(
    session: Session, *, feed_id: int, pages: Mapping[str, StoredPage], now: datetime
) -> None:
    """Store each post's page by item key, replacing an older one (a post gone meanwhile is
    skipped)."""
    if not pages:
        return
    ids = dict(
        session.exec(
            select(Item.key, Item.id).where(Item.feed_id == feed_id, col(Item.key).in_(list(pages)))
        ).all()
    )
    rows = [
        {"item_id": ids[key], "path": p.path, "url": p.url, "digest": p.digest, "updated_at": now}
        for key, p in pages.items()
        if ids.get(key) is not None
    ]
    if not rows:
        return
    wanted = [r["item_id"] for r in rows]
    session.exec(delete(TelegraphPage).where(col(TelegraphPage.item_id).in_(wanted)))
    session.execute(insert(table(TelegraphPage)), rows)


def telegraph_token(session: Session) -> str | None:
    """The access token of the account the bot created (None: none yet)."""
    row = session.get(State, TOKEN_KEY)
    return row.value if row is not None and row.value else None


def keep_telegraph_token(session: Session, *, token: str, now: datetime) -> str:
    """Store a token the bot just created unless another process stored one first: the token
    every process then uses (its pages stay editable by all of them)."""
    stored = telegraph_token(session)
    if stored:
        return stored
    try:
        with session.begin_nested():
            session.add(State(key=TOKEN_KEY, value=token, updated_at=now))
    except IntegrityError:
        return telegraph_token(session) or token
    return token


def forget_telegraph_token(session: Session, *, token: str) -> None:
    """Telegraph refused the stored token: the next page creates a new account."""
    session.exec(delete(State).where(col(State.key) == TOKEN_KEY, col(State.value) == token))
