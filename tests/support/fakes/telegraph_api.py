"""A loopback fake of the Telegraph API (https://telegra.ph/api), in its wire format, for the
bot's real client: `createAccount`, `createPage`, `editPage/{path}` and `getPage/{path}`.

As Telegraph does, it takes its parameters from the query string, a form or a JSON body
(`content` as a JSON string or an array), always answers HTTP 200 with
`{"ok": true, "result": …}` or `{"ok": false, "error": "…"}`, and refuses what Telegraph
refuses: an unknown or missing access token (ACCESS_TOKEN_INVALID), a missing or long title
(TITLE_REQUIRED, TITLE_TOO_LONG), content that is not an array of Nodes
(CONTENT_FORMAT_INVALID), empty (CONTENT_REQUIRED) or over 64 KB (CONTENT_TOO_BIG), a
page of another account (PAGE_ACCESS_DENIED) or none (PAGE_NOT_FOUND). Telegraph does not
document the error for a tag outside its list; this fake answers TAG_NOT_ALLOWED. It can
misbehave on demand: `FLOOD_WAIT_7`, PAGE_SAVE_FAILED, HTTP 500, a body that is not JSON, or
an answer that never comes in time.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.fakes.threaded import ThreadedApp

TOKEN = "d3b25feccb89e508a9114afb82aa421fe2a9712b963b387cc5ad71e58722"
TAGS = {
    "a", "aside", "b", "blockquote", "br", "code", "em", "figcaption", "figure", "h3", "h4",
    "hr", "i", "iframe", "img", "li", "ol", "p", "pre", "s", "strong", "u", "ul", "video",
}  # fmt: skip
MAX_CONTENT = 64 * 1024


@dataclass
class FakePage:
    path: str
    title: str
    content: list[Any]
    token: str
    author_name: str = ""
    author_url: str = ""
    edits: int = 0

    @property
    def url(self) -> str:
        return f"https://telegra.ph/{self.path}"

    def result(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "url": self.url,
            "title": self.title,
            "description": "",
            "author_name": self.author_name,
            "author_url": self.author_url,
            "views": 0,
            "can_edit": True,
        }


@dataclass
class TelegraphCall:
    method: str
    params: dict[str, Any]
    path: str | None = None


@dataclass
class FakeTelegraph:
    mode: str = "ok"  # ok | flood | save_failed | 500 | garbage | slow
    tokens: set[str] = field(default_factory=lambda: {TOKEN})
    pages: dict[str, FakePage] = field(default_factory=dict)
    calls: list[TelegraphCall] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadedApp | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def start(self) -> FakeTelegraph:
        app = web.Application(client_max_size=2 * 1024 * 1024)
        app.router.add_route("*", "/{method}", self._handle)
        app.router.add_route("*", "/{method}/{path}", self._handle)
        self.server = ThreadedApp(app).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.stop()
            self.server = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base

    def calls_to(self, method: str) -> list[TelegraphCall]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def page(self, url: str) -> FakePage:
        with self.lock:
            return self.pages[url.rsplit("/", 1)[-1]]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method, path = request.match_info["method"], request.match_info.get("path")
        params: dict[str, Any] = dict(request.query)
        if request.method == "POST":
            if request.content_type == "application/json":
                try:
                    params.update(await request.json())
                except ValueError:
                    return _error("CONTENT_FORMAT_INVALID")
            else:
                params.update(dict(await request.post()))
        with self.lock:
            self.calls.append(TelegraphCall(method, params, path))
        if self.mode == "slow":
            await asyncio.sleep(30)
        if self.mode == "500":
            return web.Response(status=500, text="<html>502 Bad Gateway</html>")
        if self.mode == "garbage":
            return web.Response(text="<html>upstream error</html>", content_type="text/html")
        if self.mode == "flood" and method in ("createPage", "editPage"):
            return _error("FLOOD_WAIT_7")
        with self.lock:
            if method == "createAccount":
                return self._create_account(params)
            if method == "createPage":
                return self._save(params, None)
            if method == "editPage":
                return self._save(params, path)
            if method == "getPage" and path in self.pages:
                return _ok({**self.pages[path].result(), "content": self.pages[path].content})
        return _error("METHOD_NOT_FOUND" if method != "getPage" else "PAGE_NOT_FOUND")

    def _create_account(self, params: dict[str, Any]) -> web.Response:
        short_name = str(params.get("short_name", "")).strip()
        if not short_name:
            return _error("SHORT_NAME_REQUIRED")
        if len(short_name) > 32:
            return _error("SHORT_NAME_TOO_LONG")
        if len(str(params.get("author_name", ""))) > 128:
            return _error("AUTHOR_NAME_TOO_LONG")
        token = f"{next(self._ids):04d}{TOKEN[4:]}"
        self.tokens.add(token)
        return _ok(
            {
                "short_name": short_name,
                "author_name": params.get("author_name", ""),
                "author_url": params.get("author_url", ""),
                "access_token": token,
                "auth_url": f"https://edit.telegra.ph/auth/{token[:20]}",
            }
        )

    def _save(self, params: dict[str, Any], path: str | None) -> web.Response:
        token = str(params.get("access_token", ""))
        if token not in self.tokens:
            return _error("ACCESS_TOKEN_INVALID")
        title = str(params.get("title", "")).strip()
        if not title:
            return _error("TITLE_REQUIRED")
        if len(title) > 256:
            return _error("TITLE_TOO_LONG")
        if len(str(params.get("author_name", ""))) > 128:
            return _error("AUTHOR_NAME_TOO_LONG")
        author_url = str(params.get("author_url", ""))
        if author_url and (len(author_url) > 512 or not author_url.startswith("http")):
            return _error("AUTHOR_URL_INVALID")
        raw = params.get("content")
        if raw is None or raw == "":
            return _error("CONTENT_REQUIRED")
        size = len((raw if isinstance(raw, str) else json.dumps(raw)).encode())
        if size > MAX_CONTENT:
            return _error("CONTENT_TOO_BIG")
        try:
            content = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return _error("CONTENT_FORMAT_INVALID")
        problem = _nodes_problem(content)
        if problem:
            return _error(problem)
        if self.mode == "save_failed":
            return _error("PAGE_SAVE_FAILED")
        fields = {
            "title": title,
            "content": content,
            "author_name": str(params.get("author_name", "")),
            "author_url": author_url,
        }
        if path is not None:
            page = self.pages.get(path)
            if page is None:
                return _error("PAGE_NOT_FOUND")
            if page.token != token:
                return _error("PAGE_ACCESS_DENIED")
            page.title, page.content = title, content
            page.author_name, page.author_url = fields["author_name"], fields["author_url"]
            page.edits += 1
            return _ok(page.result())
        slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-")[:100] or "Untitled"
        new = f"{slug}-12-04"
        serial = 2
        while new in self.pages:
            new, serial = f"{slug}-12-04-{serial}", serial + 1
        self.pages[new] = FakePage(new, title, content, token, fields["author_name"], author_url)
        return _ok(self.pages[new].result())


def _nodes_problem(content: Any) -> str | None:
    if not isinstance(content, list):
        return "CONTENT_FORMAT_INVALID"
    if not content:
        return "CONTENT_REQUIRED"
    stack = list(content)
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            continue
        if not isinstance(node, dict) or not isinstance(node.get("tag"), str):
            return "CONTENT_FORMAT_INVALID"
        if node["tag"] not in TAGS:
            return "TAG_NOT_ALLOWED"
        attrs = node.get("attrs", {})
        if not isinstance(attrs, dict) or set(attrs) - {"href", "src"}:
            return "CONTENT_FORMAT_INVALID"
        children = node.get("children", [])
        if not isinstance(children, list):
            return "CONTENT_FORMAT_INVALID"
        stack.extend(children)
    return None


def _ok(result: dict[str, Any]) -> web.Response:
    return web.json_response({"ok": True, "result": result})


def _error(error: str) -> web.Response:
    return web.json_response({"ok": False, "error": error})
