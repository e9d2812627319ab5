"""What delivery needs from a chat service, as plain values: one message out, one answer back.

The Telegram edge (`bot/telegram/messenger.py`) implements `Messenger` over PTB and maps each of
Telegram's errors to an `Answer`; the delivery service (`delivery.py`) decides what each answer
does to the queue. So the policy is tested through the real edge, and PTB stays in
`bot/telegram/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.core.messages.media import Media


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message as the chat will get it."""

    chat_id: int
    text: str
    html: bool = True  # False: plain text (Telegram refused the HTML's entities)
    preview: bool = False  # the page's card when there is no image
    image_url: str | None = None  # shown large, above the text
    thread_id: int | None = None  # a forum topic
    silent: bool = False
    reply_to: int | None = None  # the chat's message this one answers (sent anyway if gone)
    follow: tuple[str, int] | None = None  # a "Follow changes" button: its label, the post's id
    media: Media | None = None  # sent as an album or a playable file, the text as its caption


class Reply(StrEnum):
    """How the chat service answered one message."""

    ACCEPTED = "accepted"
    WAIT = "wait"  # 429: this chat waits `wait_seconds`
    MOVED = "moved"  # the group became a supergroup: `new_chat_id`
    BLOCKED = "blocked"  # the bot was blocked or removed from the chat
    ENTITIES = "entities"  # the HTML was refused; plain text may pass
    REFUSED = "refused"  # refused for good
    UNREACHABLE = "unreachable"  # timeout, network error, 5xx: try again later


@dataclass(frozen=True, slots=True)
class Answer:
    reply: Reply
    message_id: int | None = None
    wait_seconds: float = 0.0
    new_chat_id: int | None = None
    error: str = ""


class Messenger(Protocol):
    async def send(self, message: Outgoing) -> Answer:
        """One attempt; never raises for an answer the service can give."""
        ...

    async def edit(self, message: Outgoing, message_id: int) -> Answer:
        """Replace the text of a message sent before (its image, preview and button kept);
        an unchanged text is ACCEPTED, a message no longer there REFUSED."""
        ...

    async def answers(self) -> bool:
        """Does the service answer at all? (one cheap call, no message)"""
        ...
