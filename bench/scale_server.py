"""The scale run's feed server, in its own process: `python -m bench.scale_server N CHANGED_PER_MILLE`.

`/f/<n>` is feed n: a small RSS document with an ETag, answered 304 when the poller sends it back,
except that about `CHANGED_PER_MILLE`/1000 of requests first publish a new post (a new version).
It is a bare asyncio protocol with keep-alive, not a web framework: at hundreds of requests a
second on a 2-core machine, the server must cost much less than the worker it measures. It
records, per feed, every request's time, and answers `/_stats` with them as JSON.
Prints its port on the first line of stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import zlib
from array import array

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
    "<title>Scale feed {n}</title><link>http://feeds.example/{n}/</link>"
    "<description>One of many</description>"
)
ITEM = (
    "<item><title>Post {v} of feed {n}</title><link>http://feeds.example/{n}/{v}</link>"
    "<guid>feed-{n}-post-{v}</guid><description>Post {v}: a short note about release {v} of "
    "project {n}, with what changed and why it matters to the people who use it.</description>"
    "</item>"
)
WINDOW = 5  # the newest posts a feed shows, as real feeds keep a window


def body(n: int, version: int) -> bytes:
    items = "".join(ITEM.format(n=n, v=v) for v in range(version, max(version - WINDOW, -1), -1))
    return (HEAD.format(n=n) + items + "</channel></rss>").encode()


def etag(n: int, version: int) -> str:
    return f'"{n}-{version}"'


class Feeds:
    def __init__(self, count: int, changed_per_mille: int) -> None:
        self.count, self.changed = count, changed_per_mille
        self.version = array("i", [0] * count)
        self.polls = array("i", [0] * count)
        self.times: list[array[float]] = [array("d") for _ in range(count)]
        self.started = time.time()
        self.answered = {200: 0, 304: 0, 404: 0}

    def answer(self, path: str, if_none_match: str | None) -> bytes:
        if path == "/_stats":
            return _response(200, json.dumps(self.stats()).encode(), "application/json")
        try:
            n = int(path.removeprefix("/f/"))
            if not 0 <= n < self.count:
                raise ValueError
        except ValueError:
            self.answered[404] += 1
            return _response(404, b"no such feed", "text/plain")
        self.times[n].append(time.time())
        self.polls[n] += 1
        if zlib.crc32(f"{n}:{self.polls[n]}".encode()) % 1000 < self.changed:
            self.version[n] += 1
        tag = etag(n, self.version[n])
        if if_none_match == tag:
            self.answered[304] += 1
            return _response(304, b"", None, tag)
        self.answered[200] += 1
        return _response(200, body(n, self.version[n]), "application/rss+xml; charset=utf-8", tag)

    def stats(self) -> dict[str, object]:
        return {
            "answered": self.answered,
            "times": [list(t) for t in self.times],
        }


def _response(status: int, body: bytes, kind: str | None, tag: str | None = None) -> bytes:
    reason = {200: "OK", 304: "Not Modified", 404: "Not Found"}[status]
    head = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {len(body)}"]
    if kind:
        head.append(f"Content-Type: {kind}")
    if tag:
        head.append(f"ETag: {tag}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class Connection(asyncio.Protocol):
    def __init__(self, feeds: Feeds) -> None:
        self.feeds, self.buffer = feeds, b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1] if " " in lines[0] else "/"
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            assert self.transport is not None
            self.transport.write(self.feeds.answer(path, headers.get("if-none-match")))
            if headers.get("connection", "").lower() == "close":
                self.transport.close()
                return


async def main() -> None:
    feeds = Feeds(int(sys.argv[1]), int(sys.argv[2]))
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(feeds), "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
