"""A network where every name a test chooses resolves to a public-looking address but every
connection goes to loopback, recording what the SSRF guard let through."""

from __future__ import annotations

import socket
from collections.abc import Iterable

import httpcore

from bot.netguard import Resolver

PUBLIC_IP = "93.184.216.34"  # stands for "somewhere on the internet"; mapped to loopback below


class LoopbackOnly(httpcore.AsyncNetworkBackend):
    """Records what the guard let through; sends the stand-in public address to 127.0.0.1."""

    def __init__(self) -> None:
        self.inner = httpcore.AnyIOBackend()
        self.connected: list[str] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connected.append(host)
        if host != PUBLIC_IP:
            raise AssertionError(f"the guard let a connection to {host} through")
        return await self.inner.connect_tcp(
            "127.0.0.1", port, timeout, local_address, socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise AssertionError("no unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def make_resolver(table: dict[str, list[str]]) -> Resolver:
    """Our names from `table`; literal addresses in every notation getaddrinfo accepts
    (decimal, octal, IPv6) without any DNS query."""

    async def resolve(host: str, port: int) -> list[str]:
        if host in table:
            return table[host]
        try:
            infos = socket.getaddrinfo(
                host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
            )
        except socket.gaierror:
            raise OSError(f"no such host {host}") from None
        return [str(info[4][0]) for info in infos]

    return resolve
