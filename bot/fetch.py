"""HTTP edge: one polite conditional GET per feed, with hard limits.

- `If-None-Match` / `If-Modified-Since` from the last response;
- a total deadline per fetch (httpx timeouts are per read, so a server trickling a byte a second
  would otherwise never time out);
- a body cap enforced while streaming *and after decompression* (httpx's own decoder has no
  output limit, so the raw stream is decoded here with `max_length`);
- redirects followed by hand (≤ 5, http/https only) so a permanent one can update the stored URL;
- no environment proxies, and for untrusted feeds the SSRF guard in `bot.netguard`.
"""

from __future__ import annotations

import asyncio
import email.utils
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Self
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from bot import __version__
from bot.clock import utcnow
from bot.core.decide import FetchResult
from bot.core.discover import SNIFF_BYTES, looks_like_html
from bot.core.urls import url_problem
from bot.netguard import (
    ALLOWED_PORTS,
    BlockedAddressError,
    GuardedBackend,
    Resolver,
    system_resolver,
)

USER_AGENT = f"Feedwatch/{__version__} (+https://github.com/feedwatch/feedwatch; feed change bot)"
MAX_REDIRECTS = 5
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
    return (urlsplit(url).hostname or "").removeprefix("www.")


def origin_of(url: str) -> tuple[str, int | None]:
    """Host and port: an operator's trust in a feed extends to pages at exactly this origin."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        return ("", None)
    return ((parts.hostname or "").lower(), port)


_PAGE_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True, slots=True)
class FetchLimits:
    max_bytes: int = 10 * 1024 * 1024
    total_timeout: float = 30.0
    connect_timeout: float = 10.0


class Fetcher:
    """Holds two clients: a plain one for operator-added feeds, a guarded one for the rest."""

    def __init__(
        self,
        limits: FetchLimits | None = None,
        *,
        allow_private: bool = False,
        resolver: Resolver = system_resolver,
        max_connections: int = 20,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        allowed_ports: frozenset[int] | None = ALLOWED_PORTS,
    ) -> None:
        self.limits = limits or FetchLimits()
        self.allowed_ports = allowed_ports  # for chat-added feeds; None: any (tests only)
        self.allow_private = allow_private
        timeout = httpx.Timeout(self.limits.total_timeout, connect=self.limits.connect_timeout)
        pool = httpx.Limits(max_connections=max_connections, max_keepalive_connections=10)
        headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip, deflate"}
        common = {"timeout": timeout, "headers": headers, "trust_env": False, "limits": pool}
        self._trusted = httpx.AsyncClient(follow_redirects=False, **common)  # type: ignore[arg-type]
        guarded = httpx.AsyncHTTPTransport(limits=pool, retries=0)
        pool_impl = guarded._pool  # httpx offers no public hook for the network backend
        assert isinstance(pool_impl, httpcore.AsyncConnectionPool)
        inner = network_backend or pool_impl._network_backend
        pool_impl._network_backend = GuardedBackend(inner, resolver, allowed_ports)
        self._guarded = httpx.AsyncClient(
            transport=guarded,
            follow_redirects=False,
            **common,  # type: ignore[arg-type]
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._trusted.aclose()
        await self._guarded.aclose()

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
    ) -> FetchResult:
        """GET `url`; raises FetchError with a one-line reason on any transport-level failure.
        `page_bytes`: a body whose first bytes say it is a web page is cut at this many bytes
        (someone's pasted link: its feed links are in the head). `budget`: counted per hop.
        `trusted_origin`: hops to this URL's host and port skip the guard (an operator's feed's
        own site); every other hop of an untrusted fetch goes through it. `web_page`: a 200
        whose media type is not HTML is refused before its body is read (a post's page)."""
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
                )
        except TimeoutError:
            raise FetchError(
                f"timed out after {self.limits.total_timeout:g} s", slow=True
            ) from None
        except httpx.HTTPError as exc:
            blocked = isinstance(exc.__cause__, BlockedAddressError)
            slow = isinstance(exc, httpx.TimeoutException)
            raise FetchError(describe_http_error(exc), blocked=blocked, slow=slow) from None
        except zlib.error as exc:  # a corrupt gzip or deflate body is this feed's error only
            raise FetchError(f"cannot decode body: {exc}"[:300]) from None
        except (httpx.InvalidURL, ValueError) as exc:
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
    ) -> FetchResult:
        current = url
        all_permanent = True
        for _ in range(MAX_REDIRECTS + 1):
            hop_guarded = guarded and (trusted is None or origin_of(current) != trusted)
            check_url(current, guarded=hop_guarded)
            if budget is not None:
                budget.take(current, url)
            client = self._guarded if hop_guarded else self._trusted
            async with client.stream("GET", current, headers=conditional) as response:
                if response.status_code in _REDIRECTS:
                    target = response.headers.get("location")
                    if not target:
                        raise FetchError(f"HTTP {response.status_code} without a Location header")
                    all_permanent &= response.status_code in _PERMANENT
                    current = urljoin(current, target)
                    continue
                headers = {k.lower(): v for k, v in response.headers.items()}
                body = b""
                kind = headers.get("content-type", "").split(";")[0].strip().lower()
                if web_page and response.status_code == 200 and kind not in ("", *_PAGE_TYPES):
                    raise FetchError(f"not a web page ({kind[:80]})")
                if response.status_code == 200:
                    body = await read_capped(response, self.limits.max_bytes, page_bytes)
                return FetchResult(
                    status=response.status_code,
                    url=current,
                    moved_to=current if current != url and all_permanent else None,
                    body=body,
                    headers=headers,
                    retry_after=parse_retry_after(headers.get("retry-after")),
                )
        raise FetchError(f"more than {MAX_REDIRECTS} redirects")


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


async def read_capped(response: httpx.Response, limit: int, page_bytes: int | None = None) -> bytes:
    """Read the raw stream and decode it here, refusing to produce more than `limit` bytes.
    With `page_bytes`, a body whose first bytes show a web page is cut at that many bytes."""
    coding = response.headers.get("content-encoding", "").strip().lower()
    decoder = _decoder_for(coding)
    cap = _Cap(limit, page_bytes, response.headers.get("content-type", ""))
    cap.what = "body" if decoder is None else "decompressed body"
    out = bytearray()
    raw_seen = 0
    async for chunk in response.aiter_raw():
        raw_seen += len(chunk)
        if raw_seen > limit:
            raise FetchError(f"body larger than {limit} bytes")
        if decoder is None:
            out += chunk
        else:
            data = chunk
            while data:
                out += decoder.decompress(data, limit - len(out) + 1)
                if cap.reached(out):
                    return bytes(out[: cap.cut])
                data = decoder.unconsumed_tail
        if cap.reached(out):
            return bytes(out[: cap.cut])
    if decoder is not None:
        out += decoder.flush()
        if cap.reached(out):
            return bytes(out[: cap.cut])
    return bytes(out)


class _Cap:
    """The body's limit: an error past `limit`; for a web page (`page_bytes`, sniffed from
    the first bytes), a cut at `page_bytes` instead."""

    def __init__(self, limit: int, page_bytes: int | None, content_type: str) -> None:
        self.limit, self.page_bytes, self.content_type = limit, page_bytes, content_type
        self.cut: int | None = None
        self.what = "body"

    def reached(self, out: bytearray) -> bool:
        """True when reading should stop here and keep `out[:cut]`; raises past the limit."""
        if self.page_bytes is not None and self.cut is None and len(out) >= SNIFF_BYTES:
            if looks_like_html(bytes(out[:SNIFF_BYTES]), self.content_type):
                self.cut = min(self.page_bytes, self.limit)
            self.page_bytes = None  # sniffed once
        if self.cut is not None and len(out) >= self.cut:
            return True
        if len(out) > self.limit:
            raise FetchError(f"{self.what} larger than {self.limit} bytes")
        return False


def _decoder_for(coding: str) -> zlib._Decompress | None:
    if coding in ("", "identity"):
        return None
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS | 32)
    raise FetchError(f"unsupported content encoding {coding[:40]!r}")


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


def describe_http_error(exc: httpx.HTTPError) -> str:
    """One line without the exception soup: what failed and where."""
    kind = {
        httpx.ConnectTimeout: "connection timed out",
        httpx.ReadTimeout: "read timed out",
        httpx.ConnectError: "cannot connect",
        httpx.RemoteProtocolError: "connection broken",
        httpx.ReadError: "connection reset",
        httpx.DecodingError: "cannot decode body",
    }
    label = next((text for cls, text in kind.items() if isinstance(exc, cls)), "HTTP error")
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{label}: {detail}"[:300]
