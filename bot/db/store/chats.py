"""Chats: who the bot talks to, and each chat's own settings (pause, zone, language)."""

from __future__ import annotations

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from bot.db.store.outbox import cancel_queued
from bot.db.tables import Chat, Delivery, DeliveryStatus, Follow, Story, Subscription, Tuning


def upsert_chat(
    session: Session,
    *,
    chat_id: int,
    type_: str,
    title: str,
    language: str | None = None,
    chosen: bool = False,
) -> None:
    """Create or refresh a chat. A client's `language` fills an unset one; a `chosen` one wins."""
    chat = session.get(Chat, chat_id)
    if chat is None:
        chat = Chat(id=chat_id, type=type_, title=title[:256], language=language)
    else:
        chat.type, chat.title, chat.active = type_, title[:256], True
        chat.language = language if chosen else (chat.language or language)
    session.add(chat)
    session.flush()


def ensure_private_chat(session: Session, *, chat_id: int) -> str | None:
    """A user's private chat, created if the bot never heard from them (an operator who only
    set BOT_ADMIN_IDS); returns its language."""
    chat = session.get(Chat, chat_id)
    if chat is None:
        chat = Chat(id=chat_id, type="private", title="")
        session.add(chat)
        session.flush()
    return chat.language


def chat_language(session: Session, *, chat_id: int) -> tuple[bool, str | None]:
    """(the chat is known, its language): a known chat without one has not chosen yet."""
    chat = session.get(Chat, chat_id)
    return (chat is not None, chat.language if chat is not None else None)


def set_chat_active(session: Session, *, chat_id: int, active: bool) -> None:
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.active = active
        session.add(chat)
    if not active:
        session.exec(
            update(Delivery)
            .where(col(Delivery.chat_id) == chat_id, col(Delivery.status) == DeliveryStatus.PENDING)
            .values(status=DeliveryStatus.CANCELLED, last_error="chat is no longer reachable")
        )


def migrate_chat(session: Session, *, old_id: int, new_id: int) -> None:
    """A group became a supergroup: everything moves to the new id, pending messages included,
    and so does every chat setting (a paused group stays paused, its zone and language stay)."""
    old = session.get(Chat, old_id)
    new = session.get(Chat, new_id)
    if new is None:
        new = Chat(id=new_id, type="supergroup", title=old.title if old else "", active=True)
    if old is not None:  # the old chat's settings win over a row made for the new id meanwhile
        new.paused, new.timezone, new.language = old.paused, old.timezone, old.language
        new.duplicates = old.duplicates
        new.title = new.title or old.title
    session.add(new)
    session.flush()
    # A feed the new id follows keeps its row; one it only left (a row kept for its settings)
    # gives way to the old chat's row, which moves.
    taken = {
        sub.feed_id: sub
        for sub in session.exec(select(Subscription).where(Subscription.chat_id == new_id))
    }
    for sub in session.exec(select(Subscription).where(Subscription.chat_id == old_id)).all():
        kept = taken.get(sub.feed_id)
        if kept is not None and (kept.left_at is None or sub.left_at is not None):
            session.delete(sub)
            continue
        if kept is not None:
            session.delete(kept)
            session.flush()
        sub.chat_id = new_id
        session.add(sub)
    session.exec(update(Delivery).where(col(Delivery.chat_id) == old_id).values(chat_id=new_id))
    followed = select(Follow.item_id).where(Follow.chat_id == new_id)
    session.exec(
        delete(Follow).where(col(Follow.chat_id) == old_id, col(Follow.item_id).in_(followed))
    )
    session.exec(update(Follow).where(col(Follow.chat_id) == old_id).values(chat_id=new_id))
    # What its messages told (the duplicate check) and what its reactions taught move too.
    session.exec(update(Story).where(col(Story.chat_id) == old_id).values(chat_id=new_id))
    session.exec(delete(Tuning).where(col(Tuning.chat_id) == new_id))
    session.exec(update(Tuning).where(col(Tuning.chat_id) == old_id).values(chat_id=new_id))
    if old is not None:
        old.active = False
        session.add(old)


def is_paused(session: Session, *, chat_id: int) -> bool:
    chat = session.get(Chat, chat_id)
    return chat is not None and chat.paused


def set_paused(session: Session, *, chat_id: int, paused: bool) -> None:
    """Pausing also cancels what is queued: a paused chat gets nothing until it resumes."""
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.paused = paused
        session.add(chat)
    if paused:
        cancel_queued(session, chat_id=chat_id)


def set_timezone(session: Session, *, chat_id: int, zone: str) -> None:
    session.exec(update(Chat).where(col(Chat.id) == chat_id).values(timezone=zone))


def chat_timezone(session: Session, *, chat_id: int) -> str:
    chat = session.get(Chat, chat_id)
    return chat.timezone if chat is not None else "UTC"


def managed_chat(session: Session, *, chat_id: int) -> tuple[int, str] | None:
    """The channel (id, title) this private chat manages with /channel, if any."""
    chat = session.get(Chat, chat_id)
    if chat is None or chat.managing is None:
        return None
    channel = session.get(Chat, chat.managing)
    return (chat.managing, channel.title if channel is not None else "")


def set_managing(session: Session, *, chat_id: int, channel_id: int | None) -> None:
    """Point a private chat's commands at a channel (None: back at the chat itself)."""
    chat = session.get(Chat, chat_id)
    if chat is None:
        chat = Chat(id=chat_id, type="private", title="")
    chat.managing = channel_id
    session.add(chat)


def set_quiet(session: Session, *, chat_id: int, window: str | None) -> None:
    """/quiet HH:MM-HH:MM (or None: off); the chat row exists (commands remember it first)."""
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.quiet = window
        session.add(chat)


def chat_quiet(session: Session, *, chat_id: int) -> str | None:
    chat = session.get(Chat, chat_id)
    return chat.quiet if chat is not None else None


def set_chat_rules(session: Session, *, chat_id: int, rules: list[str] | None) -> None:
    """/filter all …: field rules for every feed of the chat (None: off)."""
    chat = session.get(Chat, chat_id)
    if chat is not None:
        chat.rules = rules
        session.add(chat)


def chat_rules(session: Session, *, chat_id: int) -> tuple[str, ...]:
    chat = session.get(Chat, chat_id)
    return tuple(chat.rules or ()) if chat is not None else ()
