"""Telegraph edge: `createAccount`, `createPage` and `editPage` over aiohttp.

The endpoint is the operator's (`TELEGRAPH_API_URL`, Telegraph itself by default), not a
chat's, so it does not go through the SSRF guard; it is read with a timeout on the whole call,
no redirects, no environment proxies and at most `MAX_ANSWER_BYTES`. The access token is sent
in the request's form body, never in its address, and no error names it. Every failure is a
`TelegraphError` with a one-line reason; a FLOOD_WAIT_N carries its N seconds.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.runtime.config import Settings

MAX_ANSWER_BYTES = 1024 * 1024
SHORT_NAME = "Feedwatch"
_ERROR = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_FLOOD = re.compile(r"FLOOD_WAIT_(\d{1,6})")


class TelegraphError(Exception):
    """Telegraph made no page; `reason` is one line fit for logs."""

    def __init__(self, reason: str, *, wait: int | None = None, error: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait  # FLOOD_WAIT_N: seconds before Telegraph takes another page
        self.error = error  # Telegraph's own error name, e.g. ACCESS_TOKEN_INVALID


@dataclass(frozen=True, slots=True)
class Published:
    path: str
    url: str


class TelegraphApi:
    def __init__(self, settings: Settings) -> None:
        self.base = settings.telegraph_api_url.rstrip("/")
        self.timeout = settings.telegraph_timeout_seconds
        self._session: aiohttp.ClientSession | None = None

    async def create_account(self, author_name: str) -> str:
        """A new account's access token."""
        result = await self._call(
            "createAccount", {"short_name": SHORT_NAME, "author_name": author_name[:128]}
        )
        token = result.get("access_token")
        if not isinstance(token, str) or not token:
            raise TelegraphError("Telegraph's new account has no access token")
        return token

    async def create_page(self, token: str, page: dict[str, str]) -> Published:
        """`page`: title, author_name, author_url and content (its Nodes as JSON)."""
        return _published(await self._call("createPage", {"access_token": token, **page}))

    async def edit_page(self, token: str, path: str, page: dict[str, str]) -> Published:
        return _published(await self._call("editPage", {"access_token": token, **page}, path))

    async def _call(self, method: str, form: dict[str, str], path: str = "") -> dict[str, Any]:
        session = self._session
        if session is None or session.closed:
            session = self._session = aiohttp.ClientSession(trust_env=False)
        address = f"{self.base}/{method}" + (f"/{path}" if path else "")
        try:
            async with asyncio.timeout(self.timeout):
                async with session.post(address, data=form, allow_redirects=False) as response:
                    body = await response.content.read(MAX_ANSWER_BYTES + 1)
                    status = response.status
        except TimeoutError:
            raise TelegraphError("Telegraph did not answer in time") from None
        except aiohttp.ClientError as exc:
            raise TelegraphError(f"cannot reach Telegraph ({type(exc).__name__})") from None
        if status != 200:
            raise TelegraphError(f"Telegraph answered HTTP {status}")
        if len(body) > MAX_ANSWER_BYTES:
            raise TelegraphError("Telegraph's answer is over 1 MB")
        try:
            answer = json.loads(body)
        except ValueError:
            raise TelegraphError("unreadable answer from Telegraph (not JSON)") from None
        if not isinstance(answer, dict):
            raise TelegraphError("unreadable answer from Telegraph")
        if answer.get("ok") is not True:
            raise _refusal(answer.get("error"))
        result = answer.get("result")
        if not isinstance(result, dict):
            raise TelegraphError("Telegraph's answer has no result")
        return result

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


def _refusal(error: object) -> TelegraphError:
    """Telegraph's own error name (only an upper-case word is repeated: never its text)."""
    name = error if isinstance(error, str) and _ERROR.fullmatch(error) else "an unnamed error"
    flood = _FLOOD.fullmatch(name)
    wait = int(flood.group(1)) if flood else None
    return TelegraphError(f"Telegraph refused: {name}", wait=wait, error=name)


def _published(result: dict[str, Any]) -> Published:
    path, url = result.get("path"), result.get("url")
    if not isinstance(path, str) or not isinstance(url, str) or not path:
        raise TelegraphError("Telegraph's page has no path or address")
    if not url.startswith(("https://", "http://")) or len(url) > 512 or len(path) > 256:
        raise TelegraphError("Telegraph's page address is not a web address")
    return Published(path, url)
