"""The Telegram side of delivery: an `Outgoing` message sent with PTB, and each of Telegram's
answers mapped to an `Answer` (specific errors first: BadRequest and TimedOut are
NetworkErrors). What an answer does to the queue is `bot/services/delivery.py`'s policy."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from telegram import LinkPreviewOptions, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter
from telegram.ext import ExtBot

from bot.services.messenger import Answer, Outgoing, Reply

NO_RETRY = {"retries": 0}  # the rate limiter leaves 429s to the delivery policy


class TelegramMessenger:
    def __init__(self, bot: ExtBot[Any]) -> None:
        self.bot = bot

    async def send(self, message: Outgoing) -> Answer:
        reply_to = (
            ReplyParameters(message_id=message.reply_to, allow_sending_without_reply=True)
            if message.reply_to is not None
            else None
        )
        try:
            sent = await self.bot.send_message(
                chat_id=message.chat_id,
                text=message.text,
                parse_mode=ParseMode.HTML if message.html else None,
                link_preview_options=preview_options(message),
                message_thread_id=message.thread_id,
                disable_notification=message.silent,
                reply_parameters=reply_to,
                rate_limit_args=NO_RETRY,
            )
        except RetryAfter as exc:
            return Answer(Reply.WAIT, wait_seconds=_seconds(exc.retry_after), error=exc.message)
        except ChatMigrated as exc:
            return Answer(Reply.MOVED, new_chat_id=int(exc.new_chat_id), error=exc.message)
        except Forbidden as exc:
            return Answer(Reply.BLOCKED, error=exc.message)
        except BadRequest as exc:
            entities = "entit" in exc.message.lower()
            return Answer(Reply.ENTITIES if entities else Reply.REFUSED, error=exc.message)
        except NetworkError as exc:  # includes TimedOut and 5xx answers
            return Answer(Reply.UNREACHABLE, error=exc.message)
        return Answer(Reply.ACCEPTED, message_id=sent.message_id)

    async def answers(self) -> bool:
        try:
            await self.bot.get_me(read_timeout=5.0, connect_timeout=5.0)
        except Exception:
            return False
        return True


def preview_options(message: Outgoing) -> LinkPreviewOptions:
    """The post's image, large, above the text; else Telegram's card of the post's page (its
    title link comes first) unless the chat turned previews off; else none."""
    if message.image_url:
        return LinkPreviewOptions(
            url=message.image_url, prefer_large_media=True, show_above_text=True
        )
    return LinkPreviewOptions(is_disabled=not message.preview)


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
