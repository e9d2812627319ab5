"""PTB's Bot API requests over aiohttp.

Why: in a fan-out, httpx was most of the CPU of each message (building the request, httpcore's
pool checks, h11's header validation: about 0.9 of 1.3 ms a message). Plain calls go as a JSON
body, which the Bot API documents beside form fields (files still go as multipart): the form's
`urlencode` quotes every byte of the text in a Python loop, 15% of a fan-out message's work on
the event loop, where `json` encodes in C. One pooled keep-alive connection per slot. The
getUpdates connection stays on PTB's own HTTPXRequest (`lifecycle.WatchedRequest`).
"""

from __future__ import annotations

import json

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

_JSON = {"Content-Type": "application/json"}
# UTF-8 as it is (an escaped CJK character is 6 bytes, 3 in UTF-8), no spaces: as the Bot API
# reads it; one encoder built once, C-accelerated like `json.dumps`'s own.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class AiohttpRequest(BaseRequest):
    """One aiohttp session for every Bot API call of the process (the budget in front of it,
    `budget.SharedRateLimiter`, decides when each may go)."""

    def __init__(
        self,
        *,
        connection_pool_size: int = 16,
        read_timeout: float = 5.0,
        write_timeout: float = 5.0,
        connect_timeout: float = 5.0,
        media_write_timeout: float = 20.0,
    ) -> None:
        self._pool = connection_pool_size
        self._read, self._write, self._connect = read_timeout, write_timeout, connect_timeout
        self._media_write = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool),
                headers={"User-Agent": self.USER_AGENT},
                trust_env=False,
                cookie_jar=aiohttp.DummyCookieJar(),
            )

    async def shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        read = self._read if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect if isinstance(connect_timeout, DefaultValue) else connect_timeout
        write: float | None = self._write if not files else self._media_write
        if not isinstance(write_timeout, DefaultValue):
            write = write_timeout
        # aiohttp has no write timeout of its own: the whole call is bounded by all three.
        total = sum(t for t in (read, connect, write) if t is not None) or None
        timeout = aiohttp.ClientTimeout(total=total, sock_connect=connect, sock_read=read)
        data: aiohttp.FormData | bytes | None = None
        headers = None
        if request_data is not None and files:
            form = aiohttp.FormData(quote_fields=False)
            for name, value in request_data.json_parameters.items():
                form.add_field(name, value)
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, filename=filename, content_type=mimetype)
            data = form
        elif request_data is not None and request_data.parameters:
            data, headers = _encode(request_data.parameters).encode(), _JSON
        try:
            async with self._session.request(
                method, url, data=data, headers=headers, timeout=timeout
            ) as answer:
                return answer.status, await answer.read()
        except TimeoutError as exc:
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{exc.__class__.__name__}: {exc}") from exc
