"""Server-side request forgery guard: refuse to connect to non-public addresses.

The check runs inside the HTTP client's connection step, on the addresses the name actually
resolved to, and the socket is opened to the very address that was checked. So a redirect to a
private host, or DNS rebinding between a check and the connect, cannot get through (the approach
miniflux takes in its dialer).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable

import httpcore
from httpcore import AsyncNetworkBackend, AsyncNetworkStream

Resolver = Callable[[str, int], Awaitable[list[str]]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Python's tables lag the IANA registries: on 3.11 these read as global but are not routable
# public unicast (site-local, the 3fff::/20 documentation block, 192.0.0.8 dummy, 6to4 relay).
DENIED = tuple(
    ipaddress.ip_network(net)
    for net in (
        "fec0::/10",
        "3fff::/20",
        "2001:db8::/32",
        "100::/64",
        "192.0.0.0/24",
        "192.88.99.0/24",
        "198.18.0.0/15",
        "100.64.0.0/10",
        "240.0.0.0/4",
    )
)
# Chat-added feeds are web feeds: only the web's ports, so the guard is no port scanner.
ALLOWED_PORTS = frozenset({80, 443, 8080, 8443})
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")


class BlockedAddressError(httpcore.ConnectError):
    """The target resolved to a loopback, private, link-local or otherwise reserved address."""


def is_public(address: IPAddress) -> bool:
    """True only for globally routable unicast addresses, including embedded IPv4 forms."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return is_public(embedded)
        if address in _NAT64_LOCAL:
            return False
    if any(address.version == net.version and address in net for net in DENIED):
        return False
    return bool(address.is_global) and not address.is_multicast and not address.is_reserved


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    packed = int(address)
    if packed >> 32 == 0 and packed > 1:  # IPv4-compatible ::a.b.c.d (deprecated, still routed)
        return ipaddress.IPv4Address(packed)
    return None


async def system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_addresses(host: str, addresses: Iterable[str]) -> list[str]:
    """All addresses must be public (one private answer taints the name); return them."""
    checked = []
    for raw in addresses:
        address = ipaddress.ip_address(raw.split("%", 1)[0])
        if not is_public(address):
            raise BlockedAddressError(f"{host} resolves to a non-public address ({address})")
        checked.append(str(address))
    if not checked:
        raise BlockedAddressError(f"{host} did not resolve")
    return checked


class GuardedBackend(AsyncNetworkBackend):
    """An httpcore network backend that resolves, checks, then connects to the checked IP."""

    def __init__(
        self,
        inner: AsyncNetworkBackend,
        resolver: Resolver = system_resolver,
        ports: frozenset[int] | None = ALLOWED_PORTS,
    ) -> None:
        self._inner = inner
        self._resolver = resolver
        self._ports = ports  # None: any port (tests serve feeds on random ports)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore interface
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        try:
            resolved = await self._resolver(host.strip("[]"), port)
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        addresses = check_addresses(host, resolved)
        if self._ports is not None and port not in self._ports:
            listed = ", ".join(str(p) for p in sorted(self._ports))
            raise BlockedAddressError(
                f"port {port} is not allowed for feeds added in a chat (only {listed})"
            )
        return await self._inner.connect_tcp(
            addresses[0], port, timeout, local_address, socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore interface
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> AsyncNetworkStream:
        raise BlockedAddressError("unix sockets are not feed sources")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
