"""HTTP edge: one polite conditional GET per feed, with hard limits.

- `If-None-Match` / `If-Modified-Since` from the last response;
- a total deadline per fetch (read timeouts are per read, so a server trickling a byte a second
  would otherwise never time out);
- a body cap enforced while streaming *and after decompression* (the client's decoding is off:
  the raw stream is decoded here with `max_length`);
- redirects followed by hand (≤ 5, http/https only) so a permanent one can update the stored URL;
- no environment proxies, no cookies kept, and for untrusted feeds the SSRF guard in
  `bot.net.guard` (its connector sends every host, literal addresses too, through one checked
  lookup, after aiohttp's URL library has normalised it).

The client is aiohttp: a 304 over a reused connection costs about a fifth of what httpx's did
(httpcore checks every pooled connection on each request). Operator feeds reuse connections;
chat-added ones connect afresh each time, so every fetch resolves and checks the name again.
"""

from __future__ import annotations

import asyncio
import email.utils
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Self
from urllib.parse import urljoin, urlsplit

import aiohttp
from yarl import URL

from bot import __version__
from bot.core.polls.decide import FetchResult
from bot.core.urls import url_problem
from bot.net.capped import BodyError, read_capped
from bot.net.guard import (
    ALLOWED_PORTS,
    BlockedAddressError,
    GuardedConnector,
    GuardedResolver,
    NetworkBackend,
    PooledResolver,
    Resolver,
    system_resolver,
)
from bot.runtime.clock import utcnow

USER_AGENT = f"Feedwatch/{__version__} (+https://github.com/feedwatch/feedwatch; feed change bot)"
MAX_REDIRECTS = 5
MAX_HEADER_BYTES = 64 * 1024  # one header field; aiohttp's default (8 KB) refuses real sites
CHUNK = 64 * 1024
_PERMANENT = {301, 308}
_REDIRECTS = {301, 302, 303, 307, 308}


class FetchError(Exception):
    """The feed could not be fetched; the message is one line fit for logs and `feed list`.
    `blocked`: the SSRF guard refused the address; `slow`: the server did not answer in time
    (chats are told which, in their language, never the exception)."""

    def __init__(
        self, message: str, *, blocked: bool = False, slow: bool = False, budget: bool = False
    ) -> None:
        super().__init__(message)
        self.blocked, self.slow, self.budget = blocked, slow, budget


@dataclass
class RequestBudget:
    """How many requests (redirect hops included) one chat's errand may still make, and
    whether a redirect may leave the site it started on (discovery's probes may not)."""

    left: int
    same_site: bool = False

    def take(self, url: str, start: str) -> None:
        if self.left <= 0:
            raise FetchError("request budget used up", budget=True)
        if self.same_site and site_of(url) != site_of(start):
            raise FetchError(f"redirect to another site ({urlsplit(url).hostname})")
        self.left -= 1


def site_of(url: str) -> str:
    """The host without `www.`: `example.org` and `www.example.org` are one site."""
    return origin_of(url)[0].removeprefix("www.")


def origin_of(url: str) -> tuple[str, int | None]:
    """Host and port as the client will connect to them (yarl's normalised host: `１２７.０.０.１`
    is `127.0.0.1`): an operator's trust in a feed extends to pages at exactly this origin."""
    try:
        parsed = URL(url)
        return ((parsed.raw_host or "").lower(), parsed.port)
    except (ValueError, TypeError):
        return ("", None)


_PAGE_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True, slots=True)
class FetchLimits:
    max_bytes: int = 10 * 1024 * 1024
    total_timeout: float = 30.0
    connect_timeout: float = 10.0


class Fetcher:
    """Holds two clients: a pooled one for operator-added feeds, a guarded one for the rest
    (made on first use, in the event loop that uses them)."""

    def __init__(
        self,
        limits: FetchLimits | None = None,
        *,
        allow_private: bool = False,
        resolver: Resolver = system_resolver,
        max_connections: int = 20,
        network_backend: NetworkBackend | None = None,
        allowed_ports: frozenset[int] | None = ALLOWED_PORTS,
    ) -> None:
        self.limits = limits or FetchLimits()
        self.allowed_ports = allowed_ports  # for chat-added feeds; None: any (tests only)
        self.allow_private = allow_private
        self._resolver, self._backend = resolver, network_backend
        self._max_connections = max_connections
        self._sessions: dict[bool, tuple[asyncio.AbstractEventLoop, aiohttp.ClientSession]] = {}

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        for _, session in sessions:
            await session.close()

    def _session(self, guarded: bool) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        made = self._sessions.get(guarded)
        if made is not None and made[0] is loop and not made[1].closed:
            return made[1]
        session = client_session(
            self.limits,
            self._max_connections,
            GuardedResolver(self._resolver, self.allowed_ports, self._backend) if guarded else None,
        )
        self._sessions[guarded] = (loop, session)
        return session

    async def fetch(
        self,
        url: str,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
        trusted: bool = True,
        page_bytes: int | None = None,
        budget: RequestBudget | None = None,
        trusted_origin: str | None = None,
        web_page: bool = False,
        max_bytes: int | None = None,
    ) -> FetchResult:
        """GET `url`; raises FetchError with a one-line reason on any transport-level failure.
        `page_bytes`: a body whose first bytes say it is a web page is cut at this many bytes
        (someone's pasted link: its feed links are in the head). `budget`: counted per hop.
        `trusted_origin`: hops to this URL's host and port skip the guard (an operator's feed's
        own site); every other hop of an untrusted fetch goes through it. `web_page`: a 200
        whose media type is not HTML is refused before its body is read (a post's page).
        `max_bytes`: this body's limit instead of the fetcher's (with `page_bytes` the same,
        a web page is cut there and anything else over it is an error)."""
        guarded = not (trusted or self.allow_private)
        conditional = {}
        if etag:
            conditional["If-None-Match"] = etag
        if last_modified:
            conditional["If-Modified-Since"] = last_modified
        try:
            async with asyncio.timeout(self.limits.total_timeout):
                return await self._follow(
                    url,
                    conditional,
                    guarded=guarded,
                    page_bytes=page_bytes,
                    budget=budget,
                    trusted=origin_of(trusted_origin) if trusted_origin else None,
                    web_page=web_page,
                    max_bytes=max_bytes or self.limits.max_bytes,
                )
        except (OSError, aiohttp.ClientError, BodyError) as exc:
            raise fetch_error(exc, self.limits.total_timeout) from None
        except zlib.error as exc:  # a corrupt gzip or deflate body is this feed's error only
            raise FetchError(f"cannot decode body: {exc}"[:300]) from None
        except ValueError as exc:
            raise FetchError(f"invalid URL: {exc}"[:300]) from None

    async def _follow(
        self,
        url: str,
        conditional: dict[str, str],
        *,
        guarded: bool,
        page_bytes: int | None,
        budget: RequestBudget | None,
        trusted: tuple[str, int | None] | None = None,
        web_page: bool = False,
        max_bytes: int,
    ) -> FetchResult:
        current = url
        all_permanent = True
        for _ in range(MAX_REDIRECTS + 1):
            hop_guarded = guarded and (trusted is None or origin_of(current) != trusted)
            check_url(current, guarded=hop_guarded)
            if budget is not None:
                budget.take(current, url)
            session = self._session(hop_guarded)
            async with session.get(current, headers=conditional, allow_redirects=False) as response:
                if response.status in _REDIRECTS:
                    target = response.headers.get("location")
                    if not target:
                        raise FetchError(f"HTTP {response.status} without a Location header")
                    all_permanent &= response.status in _PERMANENT
                    current = urljoin(current, target)
                    continue
                headers = {k.lower(): v for k, v in response.headers.items()}
                body = b""
                kind = headers.get("content-type", "").split(";")[0].strip().lower()
                if web_page and response.status == 200 and kind not in ("", *_PAGE_TYPES):
                    raise FetchError(f"not a web page ({kind[:80]})")
                if response.status == 200:
                    body = await read_capped(
                        response.content.iter_chunked(CHUNK), headers, max_bytes, page_bytes
                    )
                return FetchResult(
                    status=response.status,
                    url=current,
                    moved_to=current if current != url and all_permanent else None,
                    body=body,
                    headers=headers,
                    retry_after=parse_retry_after(headers.get("retry-after")),
                )
        raise FetchError(f"more than {MAX_REDIRECTS} redirects")


def client_session(
    limits: FetchLimits, max_connections: int, guard: GuardedResolver | None
) -> aiohttp.ClientSession:
    """A client for operator feeds (`guard` None: pooled connections, cached names) or for
    chat-added ones (every connection resolved and checked by `guard`, none reused)."""
    connector = (
        GuardedConnector(guard, max_connections)
        if guard is not None
        else aiohttp.TCPConnector(
            resolver=PooledResolver(), limit=max_connections, ttl_dns_cache=60
        )
    )
    return aiohttp.ClientSession(
        connector=connector,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"},
        auto_decompress=False,
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(
            total=None, sock_connect=limits.connect_timeout, sock_read=limits.total_timeout
        ),
        trust_env=False,
        max_field_size=MAX_HEADER_BYTES,
    )


def check_url(url: str, *, guarded: bool = False) -> None:
    """Scheme and host always; for chat-added feeds (`guarded`) also no credentials (they would
    be sent as Basic auth to wherever the URL points). Ports are checked where the connection is
    made, after the address (`GuardedBackend`)."""
    problem = url_problem(url)
    if problem is not None:
        raise FetchError(problem)
    if not guarded:
        return
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise FetchError(
            "URLs with a user name or password are not accepted from chats", blocked=True
        )


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or utcnow())).total_seconds(), 0.0)


def fetch_error(exc: Exception, total_timeout: float) -> FetchError:
    """The one-line FetchError for a failed fetch: slow, blocked, or what broke."""
    if isinstance(exc, aiohttp.ConnectionTimeoutError):  # a TimeoutError too
        return FetchError("connection timed out", slow=True)
    if isinstance(exc, aiohttp.SocketTimeoutError):
        return FetchError("read timed out", slow=True)
    if isinstance(exc, TimeoutError):
        return FetchError(f"timed out after {total_timeout:g} s", slow=True)
    if isinstance(exc, BlockedAddressError):
        return FetchError(f"cannot connect: {exc}"[:300], blocked=True)
    if isinstance(exc, aiohttp.ClientError):
        blocked = isinstance(getattr(exc, "os_error", None), BlockedAddressError)
        return FetchError(describe_client_error(exc), blocked=blocked)
    if isinstance(exc, OSError):
        return FetchError(f"connection failed: {exc}"[:300])
    return FetchError(str(exc)[:300])


def describe_client_error(exc: aiohttp.ClientError) -> str:
    """One line without the exception soup: what failed and where."""
    kinds: tuple[tuple[type[Exception], str], ...] = (
        (aiohttp.ClientConnectorError, "cannot connect"),
        (aiohttp.ServerDisconnectedError, "connection broken"),
        (aiohttp.ClientPayloadError, "connection broken"),
        (aiohttp.ClientOSError, "connection reset"),
        (aiohttp.InvalidURL, "invalid URL"),
        (aiohttp.ClientResponseError, "bad response"),
    )
    label = next((text for cls, text in kinds if isinstance(exc, cls)), "HTTP error")
    cause = getattr(exc, "os_error", None)
    detail = str(cause) if cause is not None and str(cause) else str(exc)
    if isinstance(exc, aiohttp.ClientResponseError):
        detail = exc.message or detail
    detail = detail.splitlines()[0] if detail else type(exc).__name__
    return f"{label}: {detail}"[:300]
