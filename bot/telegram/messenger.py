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

import asyncio
import logging
from dataclasses import replace
from datetime import timedelta
from typing import Any

from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.ext import ExtBot
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.core.messages.media import Media, caption_fits
from bot.core.types import MediaKind
from bot.services.messenger import Answer, Outgoing, Reply
from bot.telegram.budget import NO_RETRY  # the rate limiter leaves 429s to the delivery policy
from bot.telegram.buttons import Action, Button, encode

log = logging.getLogger(__name__)
TEXT_AFTER_MEDIA_TRIES = 3
TEXT_AFTER_MEDIA_WAIT = 60.0  # seconds: a longer 429 goes back to the delivery policy
_NO_PREVIEW: dict[str, object] = {"is_disabled": True}
_CARD: dict[str, object] = {"is_disabled": False}


class TelegramMessenger:
    def __init__(self, bot: ExtBot[Any]) -> None:
        self.bot = bot

    async def send(self, message: Outgoing) -> Answer:
        if message.media is not None:
            answer = await self._send_media(message, message.media)
            if answer.reply is not Reply.REFUSED:
                return answer
            log.warning(
                "chat %s: Telegram refused the %s (%s); sending the message instead",
                message.chat_id,
                message.media.kind.value,
                answer.error,
            )
            message = replace(message, media=None)
        return await self._call("sendMessage", send_fields(message))

    async def _send_media(self, message: Outgoing, media: Media) -> Answer:
        """The album or file with the text as its caption when it fits; else the media, then
        the text as a reply to it (one delivery: marked once both are accepted)."""
        fits = caption_fits(message.text) if message.html else _units(message.text) <= 1024
        caption = message.text if fits else None
        if media.kind is MediaKind.ALBUM:
            answer = await self._call("sendMediaGroup", album_fields(message, media, caption))
        else:
            method = "sendAudio" if media.kind is MediaKind.AUDIO else "sendVideo"
            answer = await self._call(method, file_fields(message, media, caption))
        if answer.reply is not Reply.ACCEPTED or caption is not None:
            return answer
        text = replace(
            message, media=None, image_url=None, preview=False, reply_to=answer.message_id
        )
        after = await self._text_after_media(send_fields(text))
        if after.reply is Reply.ACCEPTED:  # edits reply to the media, the post's first message
            return replace(after, message_id=answer.message_id)
        return after

    async def _text_after_media(self, fields: dict[str, object]) -> Answer:
        """The text after its media, waiting here through a 429 or a failed attempt: a retry
        of the whole delivery would show the media again (a busy group's 20 a minute)."""
        answer = await self._call("sendMessage", fields)
        for _ in range(TEXT_AFTER_MEDIA_TRIES - 1):
            if answer.reply is Reply.WAIT and answer.wait_seconds <= TEXT_AFTER_MEDIA_WAIT:
                await asyncio.sleep(answer.wait_seconds)
            elif answer.reply is Reply.UNREACHABLE:
                await asyncio.sleep(1.0)
            else:
                return answer
            answer = await self._call("sendMessage", fields)
        return answer

    async def edit(self, message: Outgoing, message_id: int) -> Answer:
        """`editMessageText` of a post's message (its "Also in" line): the same preview and
        button, or Telegram drops them. "message is not modified" means it already says so."""
        fields = send_fields(message)
        for sending_only in ("reply_parameters", "disable_notification", "message_thread_id"):
            fields.pop(sending_only, None)
        fields["message_id"] = message_id
        answer = await self._call("editMessageText", fields)
        if answer.reply is Reply.REFUSED and "not modified" in answer.error:
            return Answer(Reply.ACCEPTED, message_id=message_id)
        return answer

    async def _call(self, method: str, fields: dict[str, object]) -> Answer:
        try:
            sent = await self._post(method, fields)
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
        if isinstance(sent, list) and sent:  # an album: its messages, the first is the post's
            sent = sent[0]
        message_id = sent.get("message_id") if isinstance(sent, dict) else None
        return Answer(
            Reply.ACCEPTED, message_id=message_id if isinstance(message_id, int) else None
        )

    async def _post(self, method: str, fields: dict[str, object]) -> object:
        """`method` through the bot's rate limiter, as `ExtBot` posts it."""
        request = self.bot.request
        data = RequestData([RequestParameter(name, value, None) for name, value in fields.items()])

        async def post() -> Any:
            return await request.post(url=f"{self.bot.base_url}/{method}", request_data=data)

        limiter = self.bot.rate_limiter
        if limiter is None:
            return await post()
        return await limiter.process_request(
            callback=post,
            args=(),
            kwargs={},
            endpoint=method,
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
        fields["reply_markup"] = _follow_markup(message.follow)
    if message.reply_to is not None:
        fields["reply_parameters"] = {
            "message_id": message.reply_to,
            "allow_sending_without_reply": True,
        }
    return fields


def _common(message: Outgoing) -> dict[str, object]:
    fields: dict[str, object] = {"chat_id": message.chat_id}
    if message.thread_id is not None:
        fields["message_thread_id"] = message.thread_id
    if message.silent:
        fields["disable_notification"] = True
    if message.reply_to is not None:
        fields["reply_parameters"] = {
            "message_id": message.reply_to,
            "allow_sending_without_reply": True,
        }
    return fields


def _caption(message: Outgoing, caption: str | None) -> dict[str, object]:
    if caption is None:
        return {}
    fields: dict[str, object] = {"caption": caption}
    if message.html:
        fields["parse_mode"] = ParseMode.HTML.value
    return fields


def album_fields(message: Outgoing, media: Media, caption: str | None) -> dict[str, object]:
    """One `sendMediaGroup`: the pictures by URL, the caption on the first (an album takes no
    buttons: the "Follow changes" button comes with the text when it is sent apart)."""
    items: list[dict[str, object]] = [{"type": "photo", "media": url} for url in media.urls]
    items[0].update(_caption(message, caption))
    return {**_common(message), "media": items}


def file_fields(message: Outgoing, media: Media, caption: str | None) -> dict[str, object]:
    """One `sendAudio` or `sendVideo` by URL (Telegram fetches the file), with what is known of
    it; the caption carries the "Follow changes" button when the text is the caption."""
    audio = media.kind is MediaKind.AUDIO
    fields = {**_common(message), ("audio" if audio else "video"): media.urls[0]}
    fields.update(_caption(message, caption))
    if media.duration:
        fields["duration"] = media.duration
    if audio and media.title:
        fields["title"] = media.title[:256]
    if audio and media.performer:
        fields["performer"] = media.performer[:256]
    if not audio:
        fields["supports_streaming"] = True
    if caption is not None and message.follow is not None:
        fields["reply_markup"] = _follow_markup(message.follow)
    return fields


def _follow_markup(follow: tuple[str, int]) -> dict[str, object]:
    label, item_id = follow
    data = encode(Button(Action.FOLLOW, feed_id=item_id))
    return {"inline_keyboard": [[{"text": label, "callback_data": data}]]}


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def preview_options(message: Outgoing) -> dict[str, object]:
    """The post's image, large, above the text; else Telegram's card of the post's page (its
    title link comes first) unless the chat turned previews off; else none."""
    if message.image_url:
        return {"url": message.image_url, "prefer_large_media": True, "show_above_text": True}
    return _CARD if message.preview else _NO_PREVIEW


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)
