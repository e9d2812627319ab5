"""Server-side request forgery: URLs from chats never reach non-public addresses.

No test here ever opens a connection to anything but 127.0.0.1: name resolution is ours, and the
network backend under the guard refuses (and records) any other destination, so a broken guard
fails the test instead of touching a private network.
"""

from __future__ import annotations

import pytest

from bot.net.fetch import Fetcher, FetchError, FetchLimits
from bot.net.guard import ALLOWED_PORTS, is_public
from tests.support.fakes.feed_server import FeedServer, redirect
from tests.support.fakes.network import PUBLIC_IP, LoopbackOnly, make_resolver
from tests.support.fixtures import blog


@pytest.fixture
def backend() -> LoopbackOnly:
    return LoopbackOnly()


def guarded(
    backend: LoopbackOnly,
    table: dict[str, list[str]] | None = None,
    ports: frozenset[int] | None = None,
) -> Fetcher:
    """The chat-feed fetcher; any port unless `ports` (the feed server's port is random)."""
    resolver = make_resolver({"localhost": ["127.0.0.1", "::1"], **(table or {})})
    return Fetcher(
        FetchLimits(total_timeout=20),
        allow_private=False,
        resolver=resolver,
        network_backend=backend,
        allowed_ports=ports,
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/feed",
        "http://localhost/feed",
        "http://[::1]/feed",
        "http://0.0.0.0/feed",
        "http://10.1.2.3/feed",
        "http://172.16.0.1/feed",
        "http://172.31.255.254/feed",
        "http://192.168.1.1/feed",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:127.0.0.1]/feed",
        "http://2130706433/feed",
        "http://0177.0.0.1/feed",
        "http://100.64.0.1/feed",
        "http://[fd00::1]/feed",
        "http://[fe80::1]/feed",
        "http://224.0.0.1/feed",
        "http://rebind.example/feed",
        "http://[fec0::1]/feed",
        "http://[3fff::1]/feed",
        "http://192.0.0.8/feed",
        "http://192.88.99.1/feed",
        "http://198.18.0.1/feed",
        "http://[2001:db8::1]/feed",
    ],
)
async def test_private_and_reserved_targets_are_refused(backend: LoopbackOnly, url: str) -> None:
    fetcher = guarded(backend, {"rebind.example": ["10.0.0.7"]})
    async with fetcher:
        with pytest.raises(FetchError, match=r"non-public address|invalid URL"):
            await fetcher.fetch(url, trusted=False)
    assert backend.connected == []


async def test_a_name_with_one_private_answer_is_refused(backend: LoopbackOnly) -> None:
    async with guarded(backend, {"mixed.example": [PUBLIC_IP, "192.168.0.5"]}) as fetcher:
        with pytest.raises(FetchError, match="non-public"):
            await fetcher.fetch("http://mixed.example/feed", trusted=False)
    assert backend.connected == []


async def test_a_public_url_redirecting_to_a_private_one_is_refused(
    backend: LoopbackOnly, feeds: FeedServer
) -> None:
    assert feeds.server is not None
    port = feeds.server.port
    feeds.behave("/start", redirect(302, f"http://127.0.0.1:{port}/feed"))
    feeds.serve("/feed", blog.rss(blog.BEFORE_POSTS))
    async with guarded(backend, {"public.example": [PUBLIC_IP]}) as fetcher:
        with pytest.raises(FetchError, match="non-public address"):
            await fetcher.fetch(f"http://public.example:{port}/start", trusted=False)
    assert backend.connected == [PUBLIC_IP]  # the first hop went out, the redirect did not
    assert len(feeds.hits("/feed")) == 0


async def test_public_feeds_are_fetched_through_the_guard(
    backend: LoopbackOnly, feeds: FeedServer
) -> None:
    assert feeds.server is not None
    feeds.serve("/feed", blog.rss(blog.BEFORE_POSTS))
    async with guarded(backend, {"public.example": [PUBLIC_IP]}) as fetcher:
        result = await fetcher.fetch(
            f"http://public.example:{feeds.server.port}/feed", trusted=False
        )
    assert result.status == 200 and result.body.startswith(b"<?xml")


async def test_dns_rebinding_cannot_slip_between_check_and_connect(
    backend: LoopbackOnly, feeds: FeedServer
) -> None:
    """The resolver answers public, then private: the socket goes to the address checked."""
    assert feeds.server is not None
    feeds.serve("/feed", blog.rss(blog.BEFORE_POSTS))
    answers = iter([[PUBLIC_IP], ["127.0.0.1"], ["127.0.0.1"]])

    async def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    fetcher = Fetcher(
        FetchLimits(total_timeout=20),
        resolver=rebinding,
        network_backend=backend,
        allowed_ports=None,
    )
    async with fetcher:
        result = await fetcher.fetch(
            f"http://rebind.example:{feeds.server.port}/feed", trusted=False
        )
        assert result.status == 200
        assert backend.connected == [PUBLIC_IP]
        feeds.behave("/feed", redirect(302, "/feed2"))
        with pytest.raises(FetchError, match="non-public"):
            await fetcher.fetch(f"http://rebind.example:{feeds.server.port}/feed", trusted=False)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "gopher://127.0.0.1:70/",
        "ftp://example.org/feed",
        "javascript:alert(1)",
    ],
)
async def test_only_http_and_https_schemes(backend: LoopbackOnly, url: str) -> None:
    async with guarded(backend) as fetcher:
        with pytest.raises(FetchError, match="only http and https"):
            await fetcher.fetch(url, trusted=False)


async def test_redirects_to_other_schemes_are_refused(
    backend: LoopbackOnly, feeds: FeedServer
) -> None:
    assert feeds.server is not None
    feeds.behave("/feed", redirect(301, "gopher://127.0.0.1:70/"))
    async with guarded(backend, {"public.example": [PUBLIC_IP]}) as fetcher:
        with pytest.raises(FetchError, match="only http and https"):
            await fetcher.fetch(f"http://public.example:{feeds.server.port}/feed", trusted=False)


async def test_operator_setting_allows_private_addresses(feeds: FeedServer) -> None:
    feeds.serve("/feed", blog.rss(blog.BEFORE_POSTS))
    async with Fetcher(FetchLimits(total_timeout=20), allow_private=True) as fetcher:
        result = await fetcher.fetch(feeds.url("/feed"), trusted=False)
    assert result.status == 200


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700::1111", True),
        ("64:ff9b::a9fe:a9fe", False),
        ("::127.0.0.1", False),
        ("2002:7f00:1::", False),
        ("224.0.0.1", False),
        ("100.64.0.1", False),
        ("::ffff:10.0.0.1", False),
        ("64:ff9b::808:808", True),
        ("fec0::1", False),
        ("3fff::1", False),
        ("192.0.0.8", False),
        ("192.88.99.1", False),
        ("::ffff:192.88.99.1", False),
    ],
)
def test_embedded_and_special_forms(address: str, public: bool) -> None:
    import ipaddress

    assert is_public(ipaddress.ip_address(address)) is public


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://public.example:22/feed", "port 22 is not allowed"),
        ("http://public.example:6379/feed", "port 6379 is not allowed"),
        ("https://public.example:8444/feed", "port 8444 is not allowed"),
        ("http://deploy:hunter2@public.example/feed", "user name or password"),
        ("http://deploy@public.example/feed", "user name or password"),
    ],
)
async def test_chat_feeds_use_web_ports_and_carry_no_credentials(
    backend: LoopbackOnly, url: str, reason: str
) -> None:
    async with guarded(backend, {"public.example": [PUBLIC_IP]}, ports=ALLOWED_PORTS) as fetcher:
        with pytest.raises(FetchError, match=reason):
            await fetcher.fetch(url, trusted=False)
    assert backend.connected == []


async def test_a_redirect_to_another_port_is_refused(
    backend: LoopbackOnly, feeds: FeedServer
) -> None:
    assert feeds.server is not None
    port = feeds.server.port
    feeds.behave("/start", redirect(302, "http://public.example:25/feed"))
    table = {"public.example": [PUBLIC_IP]}
    async with guarded(backend, table, ports=frozenset({80, port})) as fetcher:
        with pytest.raises(FetchError, match="port 25 is not allowed"):
            await fetcher.fetch(f"http://public.example:{port}/start", trusted=False)
    assert backend.connected == [PUBLIC_IP]


async def test_the_default_chat_ports_are_the_webs() -> None:
    async with Fetcher() as fetcher:
        assert fetcher.allowed_ports == ALLOWED_PORTS == frozenset({80, 443, 8080, 8443})
