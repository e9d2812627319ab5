"""What the operator's language model wrote, and the chat settings that ask for it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from sqlalchemy import delete, insert
from sqlmodel import Session, col, select, update

from bot.core.messages.modeltext import ModelText as Text
from bot.db.store.statements import run, table
from bot.db.tables import Chat, ModelText


def model_texts(session: Session, *, keys: Iterable[str]) -> dict[str, Text]:
    """The stored answers under these cache keys."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, Text] = {}
    for start in range(0, len(wanted), 500):
        rows = session.exec(
            select(ModelText).where(col(ModelText.key).in_(wanted[start : start + 500]))
        ).all()
        found.update({row.key: Text(title=row.title, summary=row.summary) for row in rows})
    return found


def save_model_texts(
    session: Session, *, feed_id: int, texts: Mapping[str, Text], now: datetime
) -> None:
    """Keep the model's answers (another process may have stored the same key meanwhile)."""
    if not texts:
        return
    session.exec(delete(ModelText).where(col(ModelText.key).in_(list(texts))))
    rows = [
        {"key": k, "feed_id": feed_id, "title": t.title, "summary": t.summary, "created_at": now}
        for k, t in texts.items()
    ]
    run(session, insert(table(ModelText)), rows)


def prune_model_texts(session: Session, *, feed_id: int, before: datetime) -> None:
    session.exec(
        delete(ModelText).where(
            col(ModelText.feed_id) == feed_id, col(ModelText.created_at) < before
        )
    )


def set_translate(session: Session, *, chat_id: int, on: bool) -> None:
    """/translate on|off (the chat row exists: commands remember their chat first)."""
    session.exec(update(Chat).where(col(Chat.id) == chat_id).values(translate=on))


def chat_translates(session: Session, *, chat_id: int) -> bool:
    chat = session.get(Chat, chat_id)
    return bool(chat and chat.translate)
