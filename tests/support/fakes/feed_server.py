"""A local feed server: static feeds with ETag/Last-Modified, and scripted misbehaviour."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

from tests.support.fakes.threaded import ThreadedApp

Behaviour = Callable[[web.Request], Awaitable[web.StreamResponse]]
LAST_MODIFIED = "Tue, 08 Sep 2026 01:14:31 GMT"


@dataclass
class Route:
    body: bytes = b""
    content_type: str = "application/rss+xml; charset=UTF-8"
    honour_validators: bool = True
    behaviour: Behaviour | None = None
    headers: dict[str, str] = field(default_factory=dict)  # e.g. Cache-Control, on 200 and 304


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)


@dataclass
class FeedServer:
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadedApp | None = None

    def start(self) -> FeedServer:
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", self._handle)
        self.server = ThreadedApp(app).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.stop()

    def url(self, path: str) -> str:
        assert self.server is not None
        return f"{self.server.base}{path}"

    def serve(self, path: str, body: bytes, **options: object) -> str:
        with self.lock:
            self.routes[path] = Route(body=body, **options)  # type: ignore[arg-type]
        return self.url(path)

    def behave(self, path: str, behaviour: Behaviour) -> str:
        with self.lock:
            self.routes[path] = Route(behaviour=behaviour)
        return self.url(path)

    def hits(self, path: str) -> list[Seen]:
        with self.lock:
            return [seen for seen in self.requests if seen.path == path]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        with self.lock:
            self.requests.append(Seen(request.path, dict(request.headers)))
            route = self.routes.get(request.path)
        if route is None:
            return web.Response(status=404, text="not found")
        if route.behaviour is not None:
            return await route.behaviour(request)
        etag = '"' + hashlib.sha1(route.body).hexdigest() + '"'
        if route.honour_validators and request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag, **route.headers})
        headers = {"ETag": etag, "Last-Modified": LAST_MODIFIED} if route.honour_validators else {}
        return web.Response(
            body=route.body,
            headers={"Content-Type": route.content_type, **headers, **route.headers},
        )


async def hang(request: web.Request) -> web.StreamResponse:
    await asyncio.sleep(3600)
    return web.Response()


def status(code: int, **headers: str) -> Behaviour:
    async def respond(request: web.Request) -> web.StreamResponse:
        return web.Response(status=code, headers=headers, text=f"status {code}")

    return respond


def redirect(code: int, location: str) -> Behaviour:
    async def respond(request: web.Request) -> web.StreamResponse:
        return web.Response(status=code, headers={"Location": location})

    return respond


def raw(body: bytes, **headers: str) -> Behaviour:
    async def respond(request: web.Request) -> web.StreamResponse:
        response = web.Response(body=body, headers=headers)
        return response

    return respond


def trickle(
    chunk: bytes, every: float, count: int, content_type: str = "application/rss+xml"
) -> Behaviour:
    """Send `chunk` every `every` seconds, `count` times (a slowloris server)."""

    async def respond(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": content_type})
        await response.prepare(request)
        for _ in range(count):
            await response.write(chunk)
            await asyncio.sleep(every)
        await response.write_eof()
        return response

    return respond
