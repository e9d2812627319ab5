"""A fake Telegram Bot API server speaking the real wire format.

`POST /bot<token>/<method>` with form or JSON parameters (PTB sends form fields whose non-string
values are JSON), answering `{"ok": true, "result": …}` or
`{"ok": false, "error_code": …, "description": …, "parameters": {…}}`. It records every call,
queues updates for `getUpdates` (long polling), answers `getChatMember` from a table, and injects
scripted faults (429 with retry_after, 403, 400, 5xx, migrate_to_chat_id).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.fakes.bot_api_chats import ADMIN_RIGHTS, BOT_ID, ChannelDirectory
from tests.support.fakes.bot_api_media import MediaMethods
from tests.support.fakes.telegram_entities import entity_problem
from tests.support.fakes.threaded import ThreadedApp

TOKEN = "123456789:AAFakeTokenForTestsOnly_xyzXYZ0123456"
BOT_USER = {
    "id": BOT_ID,
    "is_bot": True,
    "first_name": "Feedwatch",
    "username": "feedwatch_test_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}
_RAW_STRING_PARAMS = {
    "text",
    "parse_mode",
    "caption",
    "url",
    "secret_token",
    "callback_query_id",
    "file_id",
    "audio",
    "video",
    "title",
    "performer",
}


TEXT_LIMIT = 4096  # UTF-16 code units after entity parsing
CAPTION_LIMIT = 1024
CALLBACK_DATA_BYTES = 64
BUTTONS_LIMIT = 100  # inline keyboard buttons in one message
GROUP_PER_MINUTE = 20
_SENDS = {
    "sendmessage",
    "senddocument",
    "sendphoto",
    "sendmediagroup",
    "sendaudio",
    "sendvideo",
    "copymessage",
    "forwardmessage",
}
_TAG = re.compile(r"<[^>]+>")
_NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup of "
    "the specified message are exactly the same as a current content and reply markup of the "
    "message"
)


def visible_length(text: str, parse_mode: str | None) -> int:
    """What Telegram counts: the text after entity parsing, in UTF-16 code units."""
    if (parse_mode or "").upper() == "HTML":
        text = html.unescape(_TAG.sub("", text))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    at: float
    content_type: str = ""  # how the body came: JSON, a form, or multipart


@dataclass
class Fault:
    method: str
    chat_id: int | None
    remaining: int
    code: int
    description: str
    parameters: dict[str, Any] | None = None
    body: bytes | None = None  # an answer that is not the Bot API's (a proxy's page, garbage)


@dataclass
class Sent:
    chat_id: int
    text: str
    parse_mode: str | None
    params: dict[str, Any]
    message_id: int = 0
    at: float = field(default_factory=time.monotonic)


@dataclass
class FakeBotApi(ChannelDirectory, MediaMethods):
    token: str = TOKEN
    calls: list[Call] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    documents: list[tuple[int, Any]] = field(default_factory=list)
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    deleted: set[tuple[int, int]] = field(default_factory=set)  # (chat id, message id)
    markups: dict[tuple[int, int], Any] = field(default_factory=dict)  # buttons after an edit
    files: dict[str, bytes] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    members: dict[tuple[int, int], str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    latency: float = 0.0
    method_latency: dict[str, float] = field(default_factory=dict)  # e.g. a slow getChatMember
    chat_latency: dict[int, float] = field(default_factory=dict)  # one chat's slow answers
    # Done, then answered this late (a crash can fall between Telegram's send and its answer).
    answer_latency: dict[str, float] = field(default_factory=dict)
    rate_limit: float | None = None  # sendMessage calls allowed per second, like Telegram's
    down: bool = False  # an outage: every method answers 502, as Telegram's front does
    too_many: int = 0
    server: ThreadedApp | None = None
    _recent_sends: list[float] = field(default_factory=list)
    _group_sends: dict[int, list[float]] = field(default_factory=dict)
    _updates: list[dict[str, Any]] = field(default_factory=list)
    _update_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _new_update: asyncio.Event | None = None

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeBotApi:
        app = web.Application(client_max_size=1024**2 * 60)
        app.router.add_post("/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.*}", self._download)
        self.server = ThreadedApp(app, port).start()
        self.server.call(self._make_event())
        return self

    async def _make_event(self) -> None:
        self._new_update = asyncio.Event()

    def stop(self) -> None:
        if self.server:
            self.server.stop()

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return f"{self.server.base}/bot"

    # --- scripting ---------------------------------------------------------------------------

    def push_update(self, update: dict[str, Any]) -> int:
        with self.lock:
            update_id = next(self._update_ids)
            self._updates.append({"update_id": update_id, **update})
        assert self.server is not None and self._new_update is not None
        self.server.soon(self._new_update.set)
        return update_id

    def push_command(
        self,
        text: str,
        *,
        chat_id: int,
        user_id: int = 1001,
        chat_type: str | None = None,
        title: str = "Test group",
        sender_chat: dict[str, Any] | None = None,
        language: str = "en",
    ) -> int:
        chat_type = chat_type or ("private" if chat_id > 0 else "supergroup")
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = "Ada"
        else:
            chat["title"] = title
        command = text.split()[0]
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": {
                "id": user_id,
                "is_bot": False,
                "first_name": "Ada",
                "language_code": language,
            },
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}]
            if text.startswith("/")
            else [],
        }
        if sender_chat is not None:
            message["sender_chat"] = sender_chat
        return self.push_update({"message": message})

    def push_bot_added(
        self, chat_id: int, *, by: int, language: str = "en", title: str = "Test group"
    ) -> int:
        """Telegram's `my_chat_member` update when someone adds the bot to a group."""
        bot = {"id": 1, "is_bot": True, "first_name": "B"}
        return self.push_update(
            {
                "my_chat_member": {
                    "chat": {"id": chat_id, "type": "supergroup", "title": title},
                    "from": {
                        "id": by,
                        "is_bot": False,
                        "first_name": "Ana",
                        "language_code": language,
                    },
                    "date": 0,
                    "old_chat_member": {"status": "left", "user": bot},
                    "new_chat_member": {"status": "member", "user": bot},
                }
            }
        )

    def push_document(
        self,
        content: bytes,
        *,
        chat_id: int,
        name: str = "subs.opml",
        user_id: int | None = None,
        language: str = "en",
    ) -> int:
        """A file sent in a chat, by `user_id` (a private chat's own user by default); its
        bytes are served by getFile and the file URL."""
        file_id = f"file{len(self.files) + 1}"
        with self.lock:
            self.files[file_id] = content
        chat: dict[str, Any] = {"id": chat_id, "type": "private", "first_name": "Ada"}
        if chat_id < 0:
            chat = {"id": chat_id, "type": "supergroup", "title": "Test group"}
        sender = {"id": user_id or chat_id, "is_bot": False, "first_name": "Ada"}
        message = {
            "message_id": next(self._message_ids),
            "date": 0,
            "chat": chat,
            "from": {**sender, "language_code": language},
            "document": {
                "file_id": file_id,
                "file_unique_id": file_id,
                "file_name": name,
                "file_size": len(content),
            },
        }
        return self.push_update({"message": message})

    def push_reaction(
        self,
        chat_id: int,
        message_id: int,
        *,
        user_id: int,
        old: tuple[str, ...] = (),
        new: tuple[str, ...] = (),
    ) -> int | None:
        """Telegram's `message_reaction` update: one person's reactions on a message changed
        from `old` to `new` (emoji). As Telegram: in a group only while the bot is one of its
        administrators (None: not sent); `getUpdates` hands it over only when its
        `allowed_updates` lists it."""
        if chat_id < 0:
            with self.lock:
                status = self.members.get((chat_id, BOT_ID), "member")
            if status not in ("administrator", "creator"):
                return None
        chat: dict[str, Any] = {"id": chat_id, "type": "private", "first_name": "Ada"}
        if chat_id < 0:
            chat = {"id": chat_id, "type": "supergroup", "title": "Test group"}
        return self.push_update(
            {
                "message_reaction": {
                    "chat": chat,
                    "message_id": message_id,
                    "user": {"id": user_id, "is_bot": False, "first_name": "Ada"},
                    "date": int(time.time()),
                    "old_reaction": [{"type": "emoji", "emoji": e} for e in old],
                    "new_reaction": [{"type": "emoji", "emoji": e} for e in new],
                }
            }
        )

    def push_migration(self, old_id: int, new_id: int, *, user_id: int) -> int:
        """The service message Telegram sends when a group becomes a supergroup."""
        message = {
            "message_id": next(self._message_ids),
            "date": 0,
            "chat": {"id": old_id, "type": "group", "title": "Test group"},
            "from": {"id": user_id, "is_bot": False, "first_name": "Ada"},
            "migrate_to_chat_id": new_id,
        }
        return self.push_update({"message": message})

    def set_member(self, chat_id: int, user_id: int, status: str) -> None:
        with self.lock:
            self.members[(chat_id, user_id)] = status

    def fail(
        self,
        method: str,
        *,
        code: int,
        description: str,
        chat_id: int | None = None,
        times: int = 1,
        retry_after: int | None = None,
        migrate_to: int | None = None,
        body: bytes | None = None,
    ) -> None:
        parameters: dict[str, Any] = {}
        if retry_after is not None:
            parameters["retry_after"] = retry_after
        if migrate_to is not None:
            parameters["migrate_to_chat_id"] = migrate_to
        with self.lock:
            self.faults.append(
                Fault(method, chat_id, times, code, description, parameters or None, body)
            )

    # --- reading -----------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def texts(self, chat_id: int) -> list[str]:
        with self.lock:
            return [s.text for s in self.sent if s.chat_id == chat_id]

    def replies(self, chat_id: int) -> list[str]:
        return self.texts(chat_id)

    async def wait_for(self, condition: Any, timeout: float = 10.0) -> None:
        """Poll `condition()` until true (async, so the bot in this loop keeps running)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"condition not met within {timeout} s")
            await asyncio.sleep(0.01)

    async def wait_replies(self, chat_id: int, count: int, timeout: float = 10.0) -> list[str]:
        await self.wait_for(lambda: len(self.texts(chat_id)) >= count, timeout)
        return self.texts(chat_id)

    # --- the server --------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        params = await _params(request)
        with self.lock:
            self.calls.append(Call(method, params, time.monotonic(), request.content_type))
            fault = self._take_fault(method, params)
        delay = self.latency + self.method_latency.get(method, 0.0)
        delay += self.chat_latency.get(_int(params.get("chat_id")) or 0, 0.0)
        if delay:
            await asyncio.sleep(delay)
        if self.down:
            return _error(502, "Bad Gateway")
        if fault is not None and fault.body is not None:
            return web.Response(status=fault.code, body=fault.body, content_type="text/html")
        if fault is not None:
            return _error(fault.code, fault.description, fault.parameters)
        refused = self._refuse(method.lower(), params)
        if refused is not None:
            return refused
        if method.lower() == "sendmessage" and self._over_rate():
            return _error(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        handler = getattr(self, f"_api_{method.lower()}", None)
        if handler is None:
            return _ok(True)
        result = await handler(params)
        if self.answer_latency.get(method):
            await asyncio.sleep(self.answer_latency[method])
        return result if isinstance(result, web.Response) else _ok(result)

    def _refuse(self, method: str, params: dict[str, Any]) -> web.Response | None:
        """What real Telegram refuses: long texts and captions, bad button data, group floods."""
        mode = params.get("parse_mode")
        if method in ("sendmessage", "editmessagetext"):
            text = str(params.get("text", ""))
            if not text.strip():
                return _error(400, "Bad Request: message text is empty")
            if visible_length(text, mode) > TEXT_LIMIT:
                return _error(400, "Bad Request: message is too long")
            problem = entity_problem(text) if (mode or "").upper() == "HTML" else None
            if problem is not None:
                return _error(400, f"Bad Request: can't parse entities: {problem}")
        caption = params.get("caption")
        if caption is not None and visible_length(str(caption), mode) > CAPTION_LIMIT:
            return _error(400, "Bad Request: message caption is too long")
        markup = params.get("reply_markup")
        if isinstance(markup, dict):
            rows = markup.get("inline_keyboard") or []
            if sum(len(row) for row in rows) > BUTTONS_LIMIT:
                return _error(400, "Bad Request: reply markup is too long")
            for row in rows:
                for button in row:
                    data = button.get("callback_data")
                    if data is not None and not 1 <= len(str(data).encode()) <= CALLBACK_DATA_BYTES:
                        return _error(400, "Bad Request: BUTTON_DATA_INVALID")
        chat_id = _int(params.get("chat_id"))
        reply = params.get("reply_parameters")
        if method in _SENDS and isinstance(reply, dict) and chat_id is not None:
            target = (_int(reply.get("chat_id")) or chat_id, _int(reply.get("message_id")) or 0)
            if not self._exists(*target) and not reply.get("allow_sending_without_reply"):
                return _error(400, "Bad Request: message to be replied not found")
        refusal = self.channel_send_refusal(chat_id) if chat_id is not None else None
        if method in _SENDS and refusal is not None:
            return _error(*refusal)
        if method in _SENDS and chat_id is not None and chat_id < 0:
            wait = self._group_wait(chat_id)
            if wait:
                return _error(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        return None

    def _exists(self, chat_id: int, message_id: int) -> bool:
        with self.lock:
            if (chat_id, message_id) in self.deleted:
                return False
            return any(s.chat_id == chat_id and s.message_id == message_id for s in self.sent)

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """A user (or an admin) deleted a message: replies to it now need
        `allow_sending_without_reply`, as in Telegram."""
        with self.lock:
            self.deleted.add((chat_id, message_id))

    def _group_wait(self, chat_id: int) -> int:
        """20 messages in any 60 s into one group; the 21st waits for the oldest to age out."""
        now = time.monotonic()
        with self.lock:
            recent = [t for t in self._group_sends.get(chat_id, []) if now - t < 60.0]
            if len(recent) >= GROUP_PER_MINUTE:
                self.too_many += 1
                self._group_sends[chat_id] = recent
                return max(1, int(60.0 - (now - recent[0])) + 1)
            recent.append(now)
            self._group_sends[chat_id] = recent
            return 0

    def _over_rate(self) -> bool:
        """A sliding one-second window, as a stand-in for Telegram's flood control."""
        if self.rate_limit is None:
            return False
        now = time.monotonic()
        with self.lock:
            self._recent_sends = [t for t in self._recent_sends if now - t < 1.0]
            if len(self._recent_sends) >= self.rate_limit:
                self.too_many += 1
                return True
            self._recent_sends.append(now)
            return False

    def _take_fault(self, method: str, params: dict[str, Any]) -> Fault | None:
        for fault in self.faults:
            if fault.method.lower() != method.lower() or fault.remaining <= 0:
                continue
            if fault.chat_id is not None and _int(params.get("chat_id")) != fault.chat_id:
                continue
            fault.remaining -= 1
            return fault
        return None

    async def _api_getme(self, params: dict[str, Any]) -> Any:
        return BOT_USER

    async def _api_getupdates(self, params: dict[str, Any]) -> Any:
        offset = _int(params.get("offset")) or 0
        timeout = float(params.get("timeout") or 0)
        deadline = time.monotonic() + min(timeout, 5.0)
        assert self._new_update is not None
        while True:
            with self.lock:
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
                ready = [u for u in self._updates if _allowed(u, params.get("allowed_updates"))]
            if ready or time.monotonic() >= deadline:
                return ready
            self._new_update.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new_update.wait(), deadline - time.monotonic())

    async def _api_sendmessage(self, params: dict[str, Any]) -> Any:
        chat_id = _int(params.get("chat_id"))
        assert chat_id is not None
        text = str(params.get("text", ""))
        message_id = next(self._message_ids)
        with self.lock:
            self.sent.append(Sent(chat_id, text, params.get("parse_mode"), params, message_id))
        chat = self.chat_json(chat_id) or {
            "id": chat_id,
            "type": "private" if chat_id > 0 else "supergroup",
        }
        if chat_id < 0:
            chat.setdefault("title", "Test group")
        else:
            chat["first_name"] = "Ada"
        return {"message_id": message_id, "date": int(time.time()), "chat": chat, "text": text}

    async def _api_getchat(self, params: dict[str, Any]) -> Any:
        found = self.get_chat(params.get("chat_id"))
        if found is None:
            return _error(400, "Bad Request: chat not found")
        return {
            **found,
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    async def _api_editmessagetext(self, params: dict[str, Any]) -> Any:
        """Edits are recorded apart from `sent`; `shown()` gives a message's latest text.
        As Telegram: a deleted message is "not found", and the same text and buttons again
        are "not modified" (both 400)."""
        return self._edit(params, str(params.get("text", "")))

    async def _api_editmessagecaption(self, params: dict[str, Any]) -> Any:
        """A photo's caption, edited like a text (the same refusals)."""
        return self._edit(params, str(params.get("caption", "")))

    def _edit(self, params: dict[str, Any], text: str) -> Any:
        chat_id, message_id = _int(params.get("chat_id")), _int(params.get("message_id"))
        markup = params.get("reply_markup")
        with self.lock:
            if chat_id is not None and message_id is not None:
                key = (chat_id, message_id)
                if key in self.deleted:
                    return _error(400, "Bad Request: message to edit not found")
                current = self._current(key)
                if current is not None and current == (text, markup):
                    return _error(400, _NOT_MODIFIED)
                self.markups[key] = markup
            self.edits.append((chat_id or 0, message_id or 0, text))
        if chat_id is None or message_id is None:  # an inline message
            return True
        chat = {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"}
        return {"message_id": message_id, "date": int(time.time()), "chat": chat, "text": text}

    def _current(self, key: tuple[int, int]) -> tuple[str, Any] | None:
        """A sent message's text and buttons now (with its latest edit); None: not one sent."""
        for chat_id, message_id, text in reversed(self.edits):
            if (chat_id, message_id) == key:
                return text, self.markups.get(key)
        for sent in self.sent:
            if (sent.chat_id, sent.message_id) == key:
                return sent.text, sent.params.get("reply_markup")
        return None

    def shown(self, chat_id: int) -> list[str]:
        """The chat's messages as a person sees them now: each with its latest edit applied."""
        with self.lock:
            latest = {(c, m): text for c, m, text in self.edits}
            return [
                latest.get((s.chat_id, s.message_id), s.text)
                for s in self.sent
                if s.chat_id == chat_id
            ]

    async def _api_getfile(self, params: dict[str, Any]) -> Any:
        file_id = str(params.get("file_id"))
        with self.lock:
            content = self.files.get(file_id)
        if content is None:
            return _error(400, "Bad Request: invalid file_id")
        return {
            "file_id": file_id,
            "file_unique_id": file_id,
            "file_size": len(content),
            "file_path": f"documents/{file_id}",
        }

    async def _download(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        file_id = request.match_info["path"].rpartition("/")[2]
        with self.lock:
            content = self.files.get(file_id)
        return web.Response(body=content) if content is not None else web.Response(status=404)

    async def _api_senddocument(self, params: dict[str, Any]) -> Any:
        chat_id = _int(params.get("chat_id"))
        assert chat_id is not None
        with self.lock:
            self.documents.append((chat_id, params.get("document")))
        return {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private", "first_name": "Ada"},
            "document": {"file_id": "doc", "file_unique_id": "doc1"},
        }

    async def _api_sendphoto(self, params: dict[str, Any]) -> Any:
        """Recorded with the messages (its caption as the text), as Telegram answers it."""
        chat_id = _int(params.get("chat_id"))
        assert chat_id is not None
        caption = str(params.get("caption", ""))
        message_id = next(self._message_ids)
        with self.lock:
            self.sent.append(Sent(chat_id, caption, params.get("parse_mode"), params, message_id))
        return {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private", "first_name": "Ada"},
            "photo": [{"file_id": "photo", "file_unique_id": "photo1", "width": 1, "height": 1}],
            "caption": caption,
        }

    async def _api_getchatmember(self, params: dict[str, Any]) -> Any:
        chat_id, user_id = _int(params.get("chat_id")), _int(params.get("user_id"))
        in_channel = self.channel_member(chat_id or 0, user_id or 0)
        if in_channel is not None:
            return in_channel
        with self.lock:
            status = self.members.get((chat_id or 0, user_id or 0), "member")
        user = {"id": user_id, "is_bot": False, "first_name": "Ada"}
        if status == "administrator":
            return {"status": status, "user": user, **ADMIN_RIGHTS}
        if status == "creator":
            return {"status": status, "user": user, "is_anonymous": False}
        return {"status": status, "user": user}


_NOT_BY_DEFAULT = {"chat_member", "message_reaction", "message_reaction_count"}


def _allowed(update: dict[str, Any], allowed: Any) -> bool:
    """Telegram sends `chat_member` and the reaction updates only to a bot that lists them in
    `allowed_updates`; every other kind unless the list leaves it out."""
    kind = next((k for k in update if k != "update_id"), "")
    if isinstance(allowed, str):
        allowed = json.loads(allowed)
    if not allowed:
        return kind not in _NOT_BY_DEFAULT
    return kind in allowed


def _ok(result: Any) -> web.Response:
    return web.json_response({"ok": True, "result": result})


def _error(code: int, description: str, parameters: dict[str, Any] | None = None) -> web.Response:
    body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return web.json_response(body, status=code)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


async def _params(request: web.Request) -> dict[str, Any]:
    """The call's parameters, as the Bot API server reads them: a JSON body's values as they
    are, except that a string is read like a form field (`"{\"is_disabled\":true}"` is an
    object); form fields decoded as JSON unless the parameter is a plain string."""
    if request.content_type == "application/json":
        data = await request.json()
        if not isinstance(data, dict):
            return {}
        return {
            key: _form_value(key, value) if isinstance(value, str) else value
            for key, value in data.items()
        }
    form = await request.post()
    params: dict[str, Any] = {}
    for key, value in form.items():
        if isinstance(value, web.FileField):  # an uploaded file: keep its name and bytes
            params[key] = {"filename": value.filename, "content": value.file.read()}
            continue
        params[key] = _form_value(key, value)
    return params


def _form_value(key: str, value: str | bytes | bytearray) -> Any:
    if key in _RAW_STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value
