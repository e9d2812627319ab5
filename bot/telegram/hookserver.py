"""The webhook's HTTP server: bounded connections, bounded waits, quiet under attack.

tornado's `HTTPServer` as it ships waits an hour for a connection's headers, has no body
timeout and no cap on connections, and at the descriptor limit its accept handler fails with
EMFILE on every loop turn, each failure logged: 1,100 connections that never finished their
headers (limit 1,024) took Telegram's updates from 0.10 s to timing out, the bot's CPU from
1% to 70% and its log to 3 MB/s. Here:

- headers within `HEADER_SECONDS` and a body within `BODY_SECONDS`, or the connection closes
  (tornado's header timeout is one deadline for all of them, so a trickle does not extend it);
- at most `cap` connections open, well below the descriptor limit: past it, the connection
  that has waited longest for its headers is closed to make room (an update arrives with its
  headers at once, so a slowloris's connections give way to Telegram's); when every one is busy
  with a request, the new one is refused at accept;
- an accept that fails (out of descriptors for any reason) pauses accepting for `PAUSE_SECONDS`
  instead of spinning, and each kind of trouble is logged once when it starts and once, with
  its count, when it has been over for a while, never once per connection or loop turn.
"""

from __future__ import annotations

import logging
import resource
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from tornado import httputil
from tornado.http1connection import HTTP1ServerConnection
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop
from tornado.iostream import IOStream

log = logging.getLogger(__name__)

HEADER_SECONDS = 5.0  # Telegram sends headers and body at once; a few KB take milliseconds
BODY_SECONDS = 10.0
PAUSE_SECONDS = 0.5  # out of descriptors: wait this long before accepting again
ACCEPTS_PER_TURN = 128  # tornado's own batch: other work runs between batches
QUIET_SECONDS = 10.0  # a burst of trouble is over when it has not recurred for this long


def connection_cap(wanted: int) -> int:
    """`wanted`, but at most half the process's descriptor limit: the rest is for the
    database, the feeds' and Telegram's connections, DNS and files."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft // 2))


class Burst:
    """One log line when a kind of trouble starts, one with its count when it has stopped."""

    def __init__(self, started: str, ended: str) -> None:
        self.started, self.ended = started, ended
        self.count = 0
        self.first = self.last = 0.0

    def hit(self, now: float, *args: object) -> None:
        if self.count == 0:
            self.first = now
            log.warning(self.started, *args)
        self.count += 1
        self.last = now

    def calm(self, now: float) -> None:
        if self.count and now - self.last >= QUIET_SECONDS:
            log.info(self.ended, self.count, self.last - self.first)
            self.count = 0


class BoundedHTTPServer(HTTPServer):
    """tornado's HTTP server with the bounds above (`cap` connections)."""

    def initialize(self, *args: Any, cap: int = 100, **kwargs: Any) -> None:
        kwargs.setdefault("idle_connection_timeout", HEADER_SECONDS)
        kwargs.setdefault("body_timeout", BODY_SECONDS)
        super().initialize(*args, **kwargs)
        self.cap = cap
        # Connections waiting for a request's headers, oldest first (dicts keep order).
        self._waiting: dict[IOStream, float] = {}
        self._paused = False
        self.full = Burst(
            "webhook: %d connections open (the cap): closing those that have not sent their "
            "headers, oldest first, and refusing more while every one is busy",
            "webhook: below the connection cap again (%d connections closed or refused in %.0f s)",
        )
        self.failing = Burst(
            "webhook: cannot accept connections (%s); pausing accepts for short whiles",
            "webhook: accepting connections again (%d accepts failed in %.0f s)",
        )

    def add_sockets(self, sockets: Iterable[socket.socket]) -> None:
        for sock in sockets:
            self._sockets[sock.fileno()] = sock
            self._handlers[sock.fileno()] = self._watch(sock)

    def _watch(self, sock: socket.socket) -> Callable[[], None]:
        loop = IOLoop.current()
        loop.add_handler(sock, lambda fd, events: self._accept(sock), IOLoop.READ)
        return lambda: loop.remove_handler(sock)

    def _accept(self, sock: socket.socket) -> None:
        for _ in range(ACCEPTS_PER_TURN):
            try:
                connection, address = sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:  # out of descriptors, or the kernel's buffers
                self.failing.hit(time.monotonic(), exc.strerror or exc)
                self._close_oldest_waiting()  # a descriptor for the next accept, if ours
                self._pause(sock)
                return
            now = time.monotonic()
            self.failing.calm(now)
            if self._open() >= self.cap and not self._make_room(now):
                connection.close()
                continue
            self.full.calm(now)
            self._handle_connection(connection, address)

    def _open(self) -> int:
        return sum(1 for c in self._connections if not c.stream.closed())

    def _make_room(self, now: float) -> bool:
        self.full.hit(now, self.cap)
        return self._close_oldest_waiting()

    def _close_oldest_waiting(self) -> bool:
        """Close the connection that has waited longest for its headers, if there is one."""
        while self._waiting:
            stream = next(iter(self._waiting))
            del self._waiting[stream]
            if not stream.closed():
                stream.close()
                return True
        return False

    def _pause(self, sock: socket.socket) -> None:
        if self._paused:
            return
        self._paused = True
        IOLoop.current().remove_handler(sock)

        def resume() -> None:
            self._paused = False
            if not self._stopped and sock.fileno() in self._handlers:
                self._handlers[sock.fileno()] = self._watch(sock)

        IOLoop.current().call_later(PAUSE_SECONDS, resume)

    def handle_stream(self, stream: IOStream, address: tuple[Any, ...]) -> None:
        self._waiting[stream] = time.monotonic()
        super().handle_stream(stream, address)

    def start_request(
        self, server_conn: object, request_conn: httputil.HTTPConnection
    ) -> httputil.HTTPMessageDelegate:
        stream = _stream(server_conn)
        self._waiting.pop(stream, None)
        self._waiting[stream] = time.monotonic()  # waiting for this request's headers
        delegate = super().start_request(server_conn, request_conn)
        return _HeadersSeen(delegate, lambda: self._waiting.pop(stream, None))

    def on_close(self, server_conn: object) -> None:
        self._waiting.pop(_stream(server_conn), None)
        super().on_close(server_conn)


def _stream(server_conn: object) -> IOStream:
    assert isinstance(server_conn, HTTP1ServerConnection)
    return server_conn.stream


class _HeadersSeen(httputil.HTTPMessageDelegate):
    """Passes a request through, noting when its headers are in (it is no longer idle)."""

    def __init__(self, delegate: httputil.HTTPMessageDelegate, seen: Callable[[], object]) -> None:
        self.delegate, self.seen = delegate, seen

    def headers_received(
        self,
        start_line: httputil.RequestStartLine | httputil.ResponseStartLine,
        headers: httputil.HTTPHeaders,
    ) -> Any:
        self.seen()
        return self.delegate.headers_received(start_line, headers)

    def data_received(self, chunk: bytes) -> Any:
        return self.delegate.data_received(chunk)

    def finish(self) -> None:
        self.delegate.finish()

    def on_connection_close(self) -> None:
        self.delegate.on_connection_close()
