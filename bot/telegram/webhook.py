"""Webhook mode: Telegram's updates over HTTP, the secret checked before the body is read.

PTB's webhook server reads a request's whole body (tornado's default cap is 100 MB) before it
looks at the secret header: twelve requests without the secret took the bot to 1.3 GB. Here the
handler streams: `prepare` runs on the headers alone, refuses any declared body over
`MAX_UPDATE_BYTES` (tornado also stops reading a body that grows past it) and checks the secret
in constant time; without it, nothing of the body is kept and the answer is 403. Telegram's
updates are a few kilobytes.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from http import HTTPStatus
from typing import Any

import tornado.web
from telegram import Bot, Update

from bot.telegram.hookserver import BoundedHTTPServer

log = logging.getLogger(__name__)
MAX_UPDATE_BYTES = 1024 * 1024
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - a header's name


@tornado.web.stream_request_body
class UpdateHandler(tornado.web.RequestHandler):
    """POST one update: secret first, then at most `MAX_UPDATE_BYTES` of JSON."""

    SUPPORTED_METHODS = ("POST",)

    def initialize(self, bot: Bot, queue: asyncio.Queue[object], secret: str) -> None:
        self.bot, self.queue, self.secret = bot, queue, secret
        self.body = bytearray()
        self.refused = False

    def prepare(self) -> None:
        declared = self.request.headers.get("Content-Length", "0")
        if not declared.isdigit() or int(declared) > MAX_UPDATE_BYTES:
            raise tornado.web.HTTPError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        limit = getattr(self.request.connection, "set_max_body_size", None)
        if limit is not None:  # HTTP/1: tornado stops reading a body that grows past it
            limit(MAX_UPDATE_BYTES)
        given = self.request.headers.get(SECRET_HEADER, "")
        # Without the secret, a small body is drained unread (so the client gets its 403 rather
        # than a reset connection) and never kept; a large one was refused above.
        self.refused = not hmac.compare_digest(given.encode(), self.secret.encode())

    def data_received(self, chunk: bytes) -> None:
        if self.refused:
            return
        if len(self.body) + len(chunk) > MAX_UPDATE_BYTES:
            raise tornado.web.HTTPError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        self.body += chunk

    async def post(self) -> None:
        if self.refused:
            raise tornado.web.HTTPError(HTTPStatus.FORBIDDEN)
        try:
            data = json.loads(bytes(self.body))
            update = Update.de_json(data, self.bot)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("webhook: refused an update that is not one: %s", type(exc).__name__)
            raise tornado.web.HTTPError(HTTPStatus.BAD_REQUEST) from None
        await self.queue.put(update)
        self.set_status(HTTPStatus.OK)

    def log_exception(self, *args: Any) -> None:
        """Refusals are expected (scanners, a wrong secret): no traceback for them."""


class WebhookServer:
    """The HTTP server behind `run --webhook`; updates go to the application's queue. At most
    `cap` connections (`hookserver`: timeouts, the cap, accept failures)."""

    def __init__(
        self, path: str, bot: Bot, queue: asyncio.Queue[object], secret: str, cap: int = 100
    ) -> None:
        route = rf"/{path.strip('/')}/?" if path.strip("/") else r"/"
        app = tornado.web.Application(
            [(route, UpdateHandler, {"bot": bot, "queue": queue, "secret": secret})],
            log_function=lambda handler: None,
        )
        # tornado tells of every stranger's malformed request and slow body at INFO: under
        # attack, a line per connection. hookserver logs the bursts instead.
        logging.getLogger("tornado.general").setLevel(logging.WARNING)
        self._server = BoundedHTTPServer(app, max_body_size=MAX_UPDATE_BYTES, cap=cap)

    def listen(self, address: str, port: int) -> None:
        self._server.listen(port, address=address)

    async def close(self) -> None:
        self._server.stop()
        await self._server.close_all_connections()
