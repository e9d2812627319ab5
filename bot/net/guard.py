"""Server-side request forgery guard: refuse to connect to non-public addresses.

The check runs inside the HTTP client's name lookup (an aiohttp resolver), on the addresses the
name actually resolved to, and the client is handed only the checked address, which is the one
it connects to. So a redirect to a private host, or DNS rebinding between a check and the
connect, cannot get through (the approach miniflux takes in its dialer).

Every host goes through that one lookup, literal addresses too (`GuardedConnector`): aiohttp's
URL library maps `①②⑦.0.0.1`, `127。0。0。1` or `１２７.０.０.１` to `127.0.0.1` by IDNA/UTS-46
*after* any check on the string a chat sent, and aiohttp connects to an address without asking
its resolver. So the guard judges the host the client connects to, never a spelling of it.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.tracing import Trace

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


class BlockedAddressError(OSError):
    """The target resolved to a loopback, private, link-local or otherwise reserved address,
    or to a port chat-added feeds may not use. (An OSError: the HTTP client reports it as the
    connection's failure, the way it reports every failed name lookup.)"""


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


# Name lookups get threads of their own: a dead DNS server makes every lookup wait its full
# timeout, and in the default executor those waits would starve the database work that chat
# replies need (95 unresolvable feeds once held replies back for over 10 s).
DNS_THREADS = 8
_dns_pool: ThreadPoolExecutor | None = None


def _dns_executor() -> ThreadPoolExecutor:
    global _dns_pool
    if _dns_pool is None:
        _dns_pool = ThreadPoolExecutor(DNS_THREADS, thread_name_prefix="feedwatch-dns")
    return _dns_pool


async def lookup(
    host: str, port: int, family: socket.AddressFamily = socket.AF_UNSPEC
) -> list[tuple[Any, ...]]:
    """getaddrinfo on the DNS threads (the one name lookup both clients use)."""
    loop = asyncio.get_running_loop()
    work = functools.partial(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM, family=family)
    return await loop.run_in_executor(_dns_executor(), work)


async def system_resolver(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in await lookup(host, port)]


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


def literal_address(host: str) -> str | None:
    """The address when the host is one, in any notation the system's resolver accepts
    (`[::1]`, `127.1`, `2130706433`, `0177.0.0.1`): judged as that address, never looked up."""
    bare = host.strip("[]").split("%", 1)[0]
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        pass
    try:
        return socket.inet_ntoa(socket.inet_aton(bare))
    except OSError:
        return None


def check_port(port: int, ports: frozenset[int] | None) -> None:
    if ports is not None and port not in ports:
        listed = ", ".join(str(p) for p in sorted(ports))
        raise BlockedAddressError(
            f"port {port} is not allowed for feeds added in a chat (only {listed})"
        )


class NetworkBackend(Protocol):
    """Where a connection to an address the guard checked goes: the network itself, or in
    tests a loopback stand-in that records what the guard let through."""

    def route(self, address: str, port: int) -> tuple[str, int]: ...


class Direct:
    def route(self, address: str, port: int) -> tuple[str, int]:
        return address, port


class GuardedResolver(AbstractResolver):
    """aiohttp's name lookup for chat-added URLs: resolve, refuse if any answer is not public
    (or the port is not a web port), and hand the client only the checked address, which is
    the one it connects to. DNS caching is off on its connector, so every connection checks."""

    def __init__(
        self,
        resolver: Resolver = system_resolver,
        ports: frozenset[int] | None = ALLOWED_PORTS,
        backend: NetworkBackend | None = None,
    ) -> None:
        self._resolver = resolver
        self._ports = ports  # None: any port (tests serve feeds on random ports)
        self._backend = backend or Direct()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        literal = literal_address(host)
        try:
            resolved = [literal] if literal else await self._resolver(host.strip("[]"), port)
        except BlockedAddressError:
            raise
        except OSError as exc:
            raise OSError(f"cannot resolve {host}: {exc}") from exc
        address = check_addresses(host, resolved)[0]
        check_port(port, self._ports)
        routed, to_port = self._backend.route(address, port)
        kind = socket.AF_INET6 if ":" in routed else socket.AF_INET
        return [
            ResolveResult(
                hostname=host,
                host=routed,
                port=to_port,
                family=kind,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
        ]

    async def close(self) -> None:
        return None


class GuardedConnector(aiohttp.TCPConnector):
    """aiohttp's connector for chat-added URLs: every host, an address or a name, goes through
    the guard's lookup. (aiohttp's own skips the resolver for a host that is an address, and its
    URL library makes `①②⑦.0.0.1` one after any check we could run on the string.) No DNS
    cache and no kept connections: every connection is resolved and checked afresh."""

    def __init__(self, guard: GuardedResolver, limit: int) -> None:
        super().__init__(resolver=guard, use_dns_cache=False, force_close=True, limit=limit)
        self._guard = guard

    async def _resolve_host(
        self, host: str, port: int, traces: Sequence[Trace] | None = None
    ) -> list[ResolveResult]:
        return await self._guard.resolve(host, port, family=self._family)


class PooledResolver(AbstractResolver):
    """aiohttp's name lookup for operator feeds: the system resolver on the DNS threads."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        infos = await lookup(host, port, family)
        return [
            ResolveResult(
                hostname=host,
                host=str(info[4][0]),
                port=int(info[4][1]),
                family=info[0],
                proto=info[2],
                flags=socket.AI_NUMERICHOST,
            )
            for info in infos
        ]

    async def close(self) -> None:
        return None
