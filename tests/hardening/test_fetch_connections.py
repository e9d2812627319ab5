"""What the cheaper 304 rests on (issue 30), and what it must not give up: operator feeds reuse
their connection; chat-added feeds never do, so every fetch resolves and checks the name again;
no cookie a feed sets is sent to it or to any other feed; a dead name server does not hold up
the database work that chat replies need."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest
from aiohttp import web

from bot.net.fetch import Fetcher, FetchLimits
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.network import PUBLIC_IP, LoopbackOnly, make_resolver
from tests.support.fixtures import blog

BODY = blog.rss(blog.BEFORE_POSTS)


class Connections:
    """The feed server's view: which connection each request came on, and its cookies."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.cookies: list[str] = []
        self.lock = threading.Lock()

    async def respond(self, request: web.Request) -> web.StreamResponse:
        with self.lock:
            self.seen.append(id(request.transport))
            self.cookies.append(request.headers.get("Cookie", ""))
        tag = '"v1"'
        if request.headers.get("If-None-Match") == tag:
            return web.Response(status=304, headers={"ETag": tag, "Set-Cookie": "session=abc"})
        return web.Response(
            body=BODY,
            headers={"ETag": tag, "Content-Type": "application/rss+xml", "Set-Cookie": "s=1"},
        )


async def test_operator_feeds_reuse_one_connection(feeds: FeedServer) -> None:
    server = Connections()
    url = feeds.behave("/feed", server.respond)
    async with Fetcher(FetchLimits(total_timeout=20)) as fetcher:
        first = await fetcher.fetch(url)
        answers = [await fetcher.fetch(url, etag=first.headers["etag"]) for _ in range(5)]
    assert first.status == 200 and [a.status for a in answers] == [304] * 5
    assert len(set(server.seen)) == 1  # six requests, one connection
    assert server.cookies == [""] * 6  # a cookie the feed set is never sent back


async def test_chat_feeds_connect_and_check_afresh_every_time(feeds: FeedServer) -> None:
    assert feeds.server is not None
    server = Connections()
    feeds.behave("/feed", server.respond)
    backend = LoopbackOnly()
    resolver = make_resolver({"public.example": [PUBLIC_IP]})
    url = f"http://public.example:{feeds.server.port}/feed"
    limits = FetchLimits(total_timeout=20)
    async with Fetcher(
        limits, resolver=resolver, network_backend=backend, allowed_ports=None
    ) as fetcher:
        for _ in range(4):
            await fetcher.fetch(url, trusted=False)
    assert len(set(server.seen)) == 4
    assert backend.connected == [PUBLIC_IP] * 4  # resolved and checked for each fetch
    assert server.cookies == [""] * 4


async def test_a_hanging_name_server_leaves_the_default_threads_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ten lookups stuck for seconds (no answer from DNS) run on the fetcher's own threads: a
    database read through `asyncio.to_thread` meanwhile answers at once."""
    release = threading.Event()

    def stuck_lookup(*args: object, **kwargs: object) -> list[object]:
        release.wait(10)
        raise OSError("Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", stuck_lookup)  # a name server that never answers
    async with Fetcher(FetchLimits(total_timeout=2)) as fetcher:
        fetches = [
            asyncio.create_task(fetcher.fetch(f"http://feed{n}.example/rss")) for n in range(10)
        ]
        await asyncio.sleep(0.2)  # every lookup has started
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert await asyncio.to_thread(lambda: 42) == 42
        assert loop.time() - started < 0.5
        release.set()
        await asyncio.gather(*fetches, return_exceptions=True)
