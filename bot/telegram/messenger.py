"""The Telegram side of delivery: an `Outgoing` message posted as a Bot API `sendMessage`, and
each of Telegram's answers mapped to an `Answer` (specific errors first: BadRequest and TimedOut
are NetworkErrors). What an answer does to the queue is `bot/services/delivery.py`'s policy.

Why not `Bot.send_message`: it builds a whole `Message` from every answer (a fifth of a
message's CPU in a fan-out), and delivery reads only its id. The call still goes through the
bot's rate limiter and PTB's request layer (`BaseRequest.post`: the same parameters, the same
errors raised for the same answers); `tests/telegram/test_messenger.py` checks that the
parameters are those `send_message` sends.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.ext import ExtBot
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.services.messenger import Answer, Outgoing, Reply
from bot.telegram.budget import NO_RETRY  # the rate limiter leaves 429s to the delivery policy
from bot.telegram.buttons import Action, Button, encode

_NO_PREVIEW: dict[str, object] = {"is_disabled": True}
_CARD: dict[str, object] = {"is_disabled": False}


class TelegramMessenger:
    def __init__(self, bot: ExtBot[Any]) -> None:
        self.bot = bot

    async def send(self, message: Outgoing) -> Answer:
        try:
            sent = await self._post(send_fields(message))
        except RetryAfter as exc:
            return Answer(Reply.WAIT, wait_seconds=_seconds(exc.retry_after), error=exc.message)
        except ChatMigrated as exc:
            return Answer(Reply.MOVED, new_chat_id=int(exc.new_chat_id), error=exc.message)
        except Forbidden as exc:
            return Answer(Reply.BLOCKED, error=exc.message)
        except BadRequest as exc:
            entities = "entit" in exc.message.lower()
            return Answer(Reply.ENTITIES if entities else Reply.REFUSED, error=exc.message)
        except TelegramError as exc:  # timeouts, 5xx, and answers not the Bot API's (a proxy's)
            return Answer(Reply.UNREACHABLE, error=exc.message)
        message_id = sent.get("message_id") if isinstance(sent, dict) else None
        return Answer(
            Reply.ACCEPTED, message_id=message_id if isinstance(message_id, int) else None
        )

    async def _post(self, fields: dict[str, object]) -> object:
        """`sendMessage` through the bot's rate limiter, as `ExtBot` posts it."""
        request = self.bot.request
        data = RequestData([RequestParameter(name, value, None) for name, value in fields.items()])

        async def post() -> Any:
            return await request.post(url=f"{self.bot.base_url}/sendMessage", request_data=data)

        limiter = self.bot.rate_limiter
        if limiter is None:
            return await post()
        return await limiter.process_request(
            callback=post,
            args=(),
            kwargs={},
            endpoint="sendMessage",
            data=fields,
            rate_limit_args=NO_RETRY,
        )

    async def answers(self) -> bool:
        try:
            await self.bot.get_me(read_timeout=5.0, connect_timeout=5.0)
        except Exception:
            return False
        return True


def send_fields(message: Outgoing) -> dict[str, object]:
    """The parameters of one `sendMessage`, as PTB's `RequestData.parameters` holds them (the
    request layer encodes them: a JSON body, or form fields beside a file)."""
    fields: dict[str, object] = {"chat_id": message.chat_id, "text": message.text}
    if message.html:
        fields["parse_mode"] = ParseMode.HTML.value
    fields["link_preview_options"] = preview_options(message)
    if message.thread_id is not None:
        fields["message_thread_id"] = message.thread_id
    if message.silent:
        fields["disable_notification"] = True
    if message.follow is not None:
        label, item_id = message.follow
        data = encode(Button(Action.FOLLOW, feed_id=item_id))
        fields["reply_markup"] = {"inline_keyboard": [[{"text": label, "callback_data": data}]]}
    if message.reply_to is not None:
        fields["reply_parameters"] = {
            "message_id": message.reply_to,
            "allow_sending_without_reply": True,
        }
    return fields


def preview_options(message: Outgoing) -> dict[str, object]:
    """The post's image, large, above the text; else Telegram's card of the post's page (its
    title link comes first) unless the chat turned previews off; else none."""
    if message.image_url:
        return {"url": message.image_url, "prefer_large_media": True, "show_above_text": True}
    return _CARD if message.preview else _NO_PREVIEW


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
