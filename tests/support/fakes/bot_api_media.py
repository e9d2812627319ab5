"""The fake Bot API's media: `sendMediaGroup`, `sendAudio` and `sendVideo` by URL, refusing what
Telegram refuses (its error texts, as the Bot API server words them).

Telegram fetches a file sent by URL itself: this fake does too (a GET; the declared
`Content-Length` decides, as the real server stops reading past its limit), so a test cannot
pass on a URL Telegram could not fetch. Limits: an album holds 2-10 items, photos and videos
may mix but audio only with audio; each caption is at most 1,024 characters after entity
parsing; files by URL are at most 5 MB for photos and 20 MB for anything else.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from tests.support.fakes.telegram_entities import entity_problem

PHOTO_BYTES = 5 * 1024 * 1024
FILE_BYTES = 20 * 1024 * 1024
_FETCH_FAILED = "Bad Request: failed to get HTTP URL content"
_WRONG_TYPE = "Bad Request: wrong type of the web page content"
_WRONG_URL = "Bad Request: wrong file identifier/HTTP URL specified"
_TYPES = {"photo": ("image/",), "video": ("video/",), "audio": ("audio/",)}


@dataclass
class MediaSent:
    """One media call Telegram accepted: what it showed, and its messages' ids."""

    method: str
    chat_id: int
    urls: list[str]
    caption: str
    params: dict[str, Any]
    message_ids: list[int]
    at: float = field(default_factory=time.monotonic)


class Refused(Exception):
    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


@dataclass
class MediaMethods:
    """Mixed into `FakeBotApi` (which owns `sent`, `lock`, the message ids and `_answer_chat`)."""

    media_sent: list[MediaSent] = field(default_factory=list)
    fetched: list[str] = field(default_factory=list)  # every URL this fake fetched, in order

    def media_to(self, chat_id: int) -> list[MediaSent]:
        with self._media_lock():
            return [m for m in self.media_sent if m.chat_id == chat_id]

    def _media_lock(self) -> threading.Lock:
        lock: threading.Lock = self.lock  # type: ignore[attr-defined]
        return lock

    async def _api_sendmediagroup(self, params: dict[str, Any]) -> Any:
        items = params.get("media")
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            return self._refusal("Bad Request: can't parse media JSON object")
        if len(items) < 2:
            return self._refusal("Bad Request: media group must include 2-10 items")
        if len(items) > 10:
            return self._refusal("Bad Request: too many messages to send as an album")
        kinds = {str(i.get("type")) for i in items}
        if not kinds <= {"photo", "video"} and len(kinds) > 1:
            return self._refusal(f"Bad Request: {sorted(kinds)[0]} can't be mixed with other media")
        try:
            for item in items:
                self._check_caption(item.get("caption"), item.get("parse_mode"))
            await asyncio.gather(*(self._fetch(str(i.get("type")), i.get("media")) for i in items))
        except Refused as refused:
            return self._refusal(refused.description)
        chat_id = int(params["chat_id"])
        ids = [self._next_message_id() for _ in items]
        caption = str(items[0].get("caption") or "")
        self._record(
            "sendMediaGroup", chat_id, [str(i["media"]) for i in items], caption, params, ids
        )
        chat = self._chat_of(chat_id)
        return [
            {"message_id": mid, "date": int(time.time()), "chat": chat, "media_group_id": "1"}
            | ({"caption": caption} if index == 0 and caption else {})
            for index, mid in enumerate(ids)
        ]

    async def _api_sendaudio(self, params: dict[str, Any]) -> Any:
        return await self._send_file("sendAudio", "audio", params)

    async def _api_sendvideo(self, params: dict[str, Any]) -> Any:
        return await self._send_file("sendVideo", "video", params)

    async def _send_file(self, method: str, kind: str, params: dict[str, Any]) -> Any:
        try:
            self._check_caption(params.get("caption"), params.get("parse_mode"))
            await self._fetch(kind, params.get(kind))
        except Refused as refused:
            return self._refusal(refused.description)
        chat_id = int(params["chat_id"])
        message_id = self._next_message_id()
        caption = str(params.get("caption") or "")
        self._record(method, chat_id, [str(params[kind])], caption, params, [message_id])
        shown: dict[str, Any] = {"file_id": kind, "file_unique_id": f"{kind}1"}
        if params.get("duration") is not None:
            shown["duration"] = int(params["duration"])
        for name in ("title", "performer"):
            if params.get(name):
                shown[name] = params[name]
        return {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": self._chat_of(chat_id),
            kind: shown,
        } | ({"caption": caption} if caption else {})

    def _check_caption(self, caption: object, mode: object) -> None:
        from tests.support.fakes.bot_api import CAPTION_LIMIT, visible_length

        if caption is None:
            return
        text = str(caption)
        html = str(mode or "").upper() == "HTML"
        if html:
            problem = entity_problem(text)
            if problem is not None:
                raise Refused(f"Bad Request: can't parse entities: {problem}")
        if visible_length(text, "HTML" if html else None) > CAPTION_LIMIT:
            raise Refused("Bad Request: message caption is too long")

    async def _fetch(self, kind: str, url: object) -> None:
        """What Telegram does with a file sent by URL: fetch it, check its type and size."""
        if kind not in _TYPES:
            raise Refused(f"Bad Request: unsupported media type {kind}")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise Refused(_WRONG_URL)
        with self._media_lock():
            self.fetched.append(url)
        limit = PHOTO_BYTES if kind == "photo" else FILE_BYTES
        timeout = aiohttp.ClientTimeout(total=10)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.get(url) as response,
            ):
                if response.status != 200:
                    raise Refused(_FETCH_FAILED)
                if not response.content_type.startswith(_TYPES[kind]):
                    raise Refused(_WRONG_TYPE)
                declared = response.content_length
                if declared is not None and declared > limit:
                    raise Refused(_FETCH_FAILED)
                body = await response.content.read(limit + 1)
                if len(body) > limit or not body:
                    raise Refused(_FETCH_FAILED)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise Refused(_FETCH_FAILED) from exc

    def _refusal(self, description: str) -> Any:
        from tests.support.fakes.bot_api import _error

        return _error(400, description)

    def _next_message_id(self) -> int:
        return next(self._message_ids)  # type: ignore[attr-defined,no-any-return]

    def _chat_of(self, chat_id: int) -> dict[str, Any]:
        chat: dict[str, Any] = self.chat_json(chat_id) or {  # type: ignore[attr-defined]
            "id": chat_id,
            "type": "private" if chat_id > 0 else "supergroup",
        }
        return chat

    def _record(
        self,
        method: str,
        chat_id: int,
        urls: list[str],
        caption: str,
        params: dict[str, Any],
        ids: list[int],
    ) -> None:
        from tests.support.fakes.bot_api import Sent

        mode = params.get("parse_mode")
        if method == "sendMediaGroup":
            media = params.get("media") or [{}]
            mode = media[0].get("parse_mode")
        with self._media_lock():
            self.media_sent.append(MediaSent(method, chat_id, urls, caption, params, ids))
            self.sent.append(Sent(chat_id, caption, mode, params, ids[0]))  # type: ignore[attr-defined]
