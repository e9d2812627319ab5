"""A bare TCP server for misbehaviour HTTP servers cannot express: accept and never answer,
or send half a response and reset the connection."""

from __future__ import annotations

import asyncio
import socket
import struct
import threading
from collections.abc import Awaitable, Callable

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class RawServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.loop = asyncio.new_event_loop()
        self.port = 0
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> RawServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(5)
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self.handler, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def url(self, path: str = "/feed") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        async def close() -> None:
            assert self._server is not None
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Accept, read the request, never answer."""
    await reader.read(65536)
    await asyncio.sleep(3600)


async def reset_midway(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Promise 100 kB, send a little, then reset the connection (RST, not FIN)."""
    await reader.read(65536)
    writer.write(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: 100000\r\n\r\n"
    )
    writer.write(b"<?xml version='1.0'?><rss version='2.0'><channel><title>t</title>")
    await writer.drain()
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class Listener:
    """An internal service on loopback that an SSRF must not reach: it counts the connections
    it accepts (the one number the SSRF tests assert on) and answers each with a small feed, so
    a leak shows as a watched feed, not only as a count."""

    FEED = (
        b"<?xml version='1.0'?><rss version='2.0'><channel><title>Internal Service</title>"
        b"<link>http://internal/</link><item><title>Secret</title><link>http://internal/1</link>"
        b"<description>Internal only.</description></item></channel></rss>"
    )

    def __init__(self) -> None:
        self.accepted = 0
        self._server = RawServer(self._answer)

    def start(self) -> Listener:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    @property
    def port(self) -> int:
        return self._server.port

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nConnection: close\r\n"
                + f"Content-Length: {len(self.FEED)}\r\n\r\n".encode()
                + self.FEED
            )
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            writer.close()
