"""A network where every name a test chooses resolves to a public-looking address but every
connection goes to loopback, recording what the SSRF guard let through."""

from __future__ import annotations

import socket

from bot.net.guard import Resolver

PUBLIC_IP = "93.184.216.34"  # stands for "somewhere on the internet"; mapped to loopback below


class LoopbackOnly:
    """Records what the guard let through; sends the stand-in public address to 127.0.0.1
    (the fetcher's `network_backend`: where connections to checked addresses go). With `sink`,
    any other address the guard let through goes to that loopback port (a counting listener)
    instead of failing inside the resolver."""

    def __init__(self, sink: int | None = None) -> None:
        self.connected: list[str] = []
        self.sink = sink  # a listener's port: where any other address goes, to be counted

    def route(self, address: str, port: int) -> tuple[str, int]:
        self.connected.append(address)
        if address != PUBLIC_IP:
            if self.sink is not None:
                return "127.0.0.1", self.sink
            raise AssertionError(f"the guard let a connection to {address} through")
        return "127.0.0.1", port


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
