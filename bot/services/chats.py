"""A chat's own settings, as use cases: who the chat is, its language, pause, time zone, quiet
hours, translation, rules for every feed, and the channel a private chat manages. Handlers
parse and render; these decide what is stored (`bot/db/store/chats.py` keeps it)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from bot.db import store
from bot.services import run


@dataclass(frozen=True, slots=True)
class ChatCard:
    """Who a chat is, as Telegram says (its language: the sender's client language)."""

    chat_id: int
    type_: str
    title: str
    language: str | None = None


class Chats:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def remember(self, card: ChatCard, *, chosen: bool = False) -> None:
        """Record the chat; its language fills an unset one, or wins when `chosen`."""
        await run.write(
            self.engine,
            lambda s: store.upsert_chat(
                s,
                chat_id=card.chat_id,
                type_=card.type_,
                title=card.title,
                language=card.language,
                chosen=chosen,
            ),
        )

    async def language_of(self, card: ChatCard) -> str | None:
        """The chat's language (None: a chat the bot does not know yet). A chat stored before
        languages existed (migration 0006 left it without one) takes the card's client
        language now, so it keeps the language it was first answered in."""

        known, language = await run.read(
            self.engine, lambda s: store.chat_language(s, chat_id=card.chat_id)
        )
        if not known or language is not None or card.language is None:
            return language  # the usual case: one read, no write lock
        await self.remember(card)  # fills the unset language
        return card.language

    async def left(self, chat_id: int) -> None:
        """The bot was removed, blocked, or may not post: nothing more is sent there."""
        await run.write(
            self.engine, lambda s: store.set_chat_active(s, chat_id=chat_id, active=False)
        )

    async def migrated(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its subscriptions move to the new id."""
        await run.write(self.engine, lambda s: store.migrate_chat(s, old_id=old_id, new_id=new_id))

    async def pause(self, chat_id: int, *, paused: bool) -> None:
        await run.write(self.engine, lambda s: store.set_paused(s, chat_id=chat_id, paused=paused))

    async def set_timezone(self, chat_id: int, zone: str) -> None:
        await run.write(self.engine, lambda s: store.set_timezone(s, chat_id=chat_id, zone=zone))

    async def set_quiet(self, chat_id: int, window: str | None) -> str:
        """Quiet hours (None: off); returns the chat's time zone, which the window is in."""

        def work(session: Session) -> str:
            store.set_quiet(session, chat_id=chat_id, window=window)
            return store.chat_timezone(session, chat_id=chat_id)

        return await run.write(self.engine, work)

    async def duplicates(self, chat_id: int) -> str:
        """/duplicates: fold (the first message names the other feeds) or show (quiet reply)."""
        return await run.read(self.engine, lambda s: store.chat_duplicates(s, chat_id=chat_id))

    async def set_duplicates(self, chat_id: int, mode: str) -> None:
        await run.write(self.engine, lambda s: store.set_duplicates(s, chat_id=chat_id, mode=mode))

    async def set_translate(self, chat_id: int, *, on: bool) -> None:
        await run.write(self.engine, lambda s: store.set_translate(s, chat_id=chat_id, on=on))

    async def set_rules(self, chat_id: int, rules: list[str] | None) -> None:
        """Field rules for every feed the chat follows (None: none)."""
        await run.write(
            self.engine, lambda s: store.set_chat_rules(s, chat_id=chat_id, rules=rules)
        )

    async def manage(self, chat_id: int, channel: ChatCard | None) -> None:
        """From now on this private chat's commands apply to `channel` (None: to itself)."""

        def work(session: Session) -> None:
            if channel is not None:
                store.upsert_chat(
                    session,
                    chat_id=channel.chat_id,
                    type_=channel.type_,
                    title=channel.title,
                    language=channel.language,
                )
            managed = channel.chat_id if channel is not None else None
            store.set_managing(session, chat_id=chat_id, channel_id=managed)

        await run.write(self.engine, work)
