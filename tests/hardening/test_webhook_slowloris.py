"""Webhook slowloris (issue 40, item 2): connections that never finish their headers cannot keep
Telegram's updates out, exhaust the descriptors, spin the CPU or flood the log.

On the old main (tornado's defaults: an hour for headers, no cap), 1,100 such connections
against a descriptor limit of 1,024 made updates with the secret time out, took the bot's CPU
from 1% to 70% and its log to 3 MB/s ("Too many open files" on every loop turn). Here the real
process runs `run --webhook` with its descriptor limit lowered to 256, so a few hundred sockets
reach it; an attacker keeps 400 half-open connections open (re-opening those the bot closes,
trickling a header line into each every second) while an update with the secret is sent.
"""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.processes import (
    _listening,
    bot_env,
    cpu_seconds,
    free_port,
    open_fds,
    start_bot,
)

pytestmark = pytest.mark.serial  # times replies and CPU of a process: not beside other work

SECRET = "hook-secret-0123456789"
NOFILE = 256
HALF_OPEN = 400
ATTACK_SECONDS = 6.0


class Slowloris:
    """Keeps `count` connections that never finish their request headers, opening at most
    `pace` a second and re-opening those the server closes."""

    def __init__(self, port: int, count: int, pace: int = 400) -> None:
        self.port, self.count, self.pace = port, count, pace
        self.open: dict[socket.socket, bool] = {}  # socket → its request line sent
        self.opened = self.closed_by_server = 0

    async def run(self, until: float) -> None:
        last_trickle = time.monotonic()
        while time.monotonic() < until:
            self._reap()
            for _ in range(min(self.pace // 10, self.count - len(self.open))):
                self._open_one()
            for sock, started in list(self.open.items()):
                if not started:
                    self.open[sock] = _send(sock, b"POST /hook HTTP/1.1\r\nHost: bot\r\n")
            if time.monotonic() - last_trickle >= 1.0:
                last_trickle = time.monotonic()
                for sock, started in self.open.items():
                    if started:
                        _send(sock, b"X-Keep: going\r\n")
            await asyncio.sleep(0.1)

    def _open_one(self) -> None:
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", self.port))
        self.open[sock] = False
        self.opened += 1

    def _reap(self) -> None:
        for sock in list(self.open):
            if _closed(sock):
                sock.close()
                del self.open[sock]
                self.closed_by_server += 1

    def close(self) -> None:
        for sock in self.open:
            sock.close()
        self.open.clear()


def _send(sock: socket.socket, data: bytes) -> bool:
    try:
        sock.send(data)
        return True
    except OSError:  # not connected yet (the server has not accepted), or closed
        return False


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError as exc:
        return exc.errno != errno.ENOTCONN


def update(update_id: int, chat_id: int) -> dict[str, object]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 0,
            "text": "/start",
            "chat": {"id": chat_id, "type": "private", "first_name": "Ada"},
            "from": {"id": chat_id, "is_bot": False, "first_name": "Ada"},
            "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        },
    }


async def send_update(url: str, update_id: int, chat_id: int) -> tuple[int | None, float]:
    """Telegram's POST on a fresh connection: its status (None: no answer in 10 s) and time."""
    started = time.monotonic()
    async with httpx.AsyncClient(timeout=10) as client:
        try:
            answer = await client.post(
                url,
                json=update(update_id, chat_id),
                headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
            )
            status: int | None = answer.status_code
        except httpx.HTTPError:
            status = None
    return status, time.monotonic() - started


async def test_half_open_connections_keep_no_update_out(
    sqlite_url: str, bot_api: FakeBotApi, tmp_path: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    env = bot_env(
        sqlite_url,
        bot_api,
        WEBHOOK_URL=url,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET=SECRET,
    )
    log = tmp_path / "bot.log"
    process = await start_bot(env, log, "run", "--webhook", nofile=NOFILE)
    attacker = Slowloris(port, HALF_OPEN)
    try:
        await bot_api.wait_for(lambda: _listening(port), timeout=30)
        await asyncio.sleep(1.0)
        status, baseline = await send_update(url, 1, 7)
        assert status == 200
        await bot_api.wait_replies(7, 1)

        log_before, cpu_before = log.stat().st_size, cpu_seconds(process.pid)
        started = time.monotonic()
        attack = asyncio.create_task(attacker.run(started + ATTACK_SECONDS))
        await asyncio.sleep(2.0)  # the attack at full strength
        most_fds = open_fds(process.pid)
        status, took = await send_update(url, 2, 8)
        assert status == 200, f"an update with the secret got no answer ({took:.1f} s)"
        await bot_api.wait_replies(8, 1, timeout=5)
        while not attack.done():
            most_fds = max(most_fds, open_fds(process.pid))
            await asyncio.sleep(0.2)
        await attack
        elapsed = time.monotonic() - started
        cpu = (cpu_seconds(process.pid) - cpu_before) / elapsed
        grown = log.stat().st_size - log_before

        # Headers within a few seconds: a lone half-open connection is closed by the bot.
        attacker.close()
        lone = Slowloris(port, 3)
        await lone.run(time.monotonic() + 0.5)
        body = socket.create_connection(("127.0.0.1", port))
        body.sendall(
            b"POST /hook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
            b"X-Telegram-Bot-Api-Secret-Token: " + SECRET.encode() + b"\r\n"
            b"Content-Length: 1000\r\n\r\n{"
        )
        await asyncio.sleep(5.0 + 1.5)
        header_closed = all(_closed(sock) for sock in lone.open)
        await asyncio.sleep(10.0 - 5.0)
        body_closed = _closed(body)
        body.close()
        lone.close()
    finally:
        attacker.close()
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), timeout=15)
    text = log.read_text()
    print(
        f"baseline {baseline:.2f} s, under attack {took:.2f} s, fds ≤ {most_fds}, "
        f"CPU {cpu:.0%}, log +{grown} bytes, {attacker.opened} opened, "
        f"{attacker.closed_by_server} closed by the bot"
    )
    assert code == 0
    # Telegram opens no more connections than the bot keeps (min(100, 256 // 2) here).
    assert int(bot_api.calls_to("setWebhook")[0].params["max_connections"]) == 100
    assert took < 1.0 + baseline
    assert most_fds < NOFILE - 32  # the cap holds well below the descriptor limit
    assert cpu < 0.35
    assert grown < 4096, text[-2000:]
    assert text.count("Too many open files") <= 1
    assert header_closed, "a connection without headers was kept past the header timeout"
    assert body_closed, "a request whose body never came was kept past the body timeout"


OUT_OF_DESCRIPTORS = """
import asyncio, logging, resource, sys
import tornado.web
from bot.telegram import hookserver

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s %(message)s")
hookserver.QUIET_SECONDS = 1.0
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))


class Hello(tornado.web.RequestHandler):
    def get(self) -> None:
        self.write("hello")


async def main() -> None:
    server = hookserver.BoundedHTTPServer(tornado.web.Application([(r"/", Hello)]), cap=10_000)
    server.listen(int(sys.argv[1]), address="127.0.0.1")
    print("listening", flush=True)
    await asyncio.sleep(float(sys.argv[2]))

asyncio.run(main())
"""


async def test_running_out_of_descriptors_is_one_line_and_no_spin(tmp_path: Path) -> None:
    """The cap keeps the webhook below the descriptor limit; should the process run out anyway
    (here a server with no cap and 64 descriptors), accepting pauses instead of failing on
    every loop turn, and the burst is one line when it starts and one when it is over."""
    import os
    import sys

    from tests.support.processes import ROOT

    port = free_port()
    script = tmp_path / "serve.py"
    script.write_text(OUT_OF_DESCRIPTORS)
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        str(port),
        "9",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None
    await asyncio.wait_for(child.stdout.readline(), 15)
    flood = Slowloris(port, 150, pace=1500)
    cpu_before, started = cpu_seconds(child.pid), time.monotonic()
    await flood.run(started + 3.0)
    cpu = (cpu_seconds(child.pid) - cpu_before) / (time.monotonic() - started)
    flood.close()
    await asyncio.sleep(1.5)  # the burst is over...
    async with httpx.AsyncClient(timeout=5) as client:  # ...and the next accept says so
        assert (await client.get(f"http://127.0.0.1:{port}/")).text == "hello"
    out = (await asyncio.wait_for(child.communicate(), 15))[0].decode()
    print(f"CPU {cpu:.0%}; {len(out)} bytes of log:\n{out}")
    assert out.count("cannot accept connections") == 1, out[-2000:]
    assert out.count("accepting connections again") == 1, out[-2000:]
    assert len(out) < 2000
    assert cpu < 0.35


def test_the_cap_is_at_most_half_the_descriptor_limit() -> None:
    import resource

    from bot.telegram.hookserver import connection_cap

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(256, open_fds(os.getpid()) + 64), hard))
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert connection_cap(10_000) == limit // 2
        assert connection_cap(50) == 50
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
