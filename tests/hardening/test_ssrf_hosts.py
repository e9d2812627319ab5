"""The SSRF guard judges the host the client connects to, however the URL spells it (issue 40,
item 1): `①②⑦.0.0.1`, `127。0。0。1`, `１２７.０.０.１`… are `127.0.0.1` once aiohttp's URL
library has normalised them, and on the old main they reached a loopback service on any port.

Every test counts the connections a real loopback listener accepts: it must stay 0, for a feed
fetched directly, as a redirect target, as a full-text post's page, and through `/subscribe`
and a page's feed links in the real bot. Any address the guard lets through is sent to that
listener too (`LoopbackOnly(sink=…)`), so a leak of any form, not only of a loopback one, shows
as an accepted connection.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from bot.core.polls.decide import FeedState
from bot.core.types import RawEntry
from bot.net.fetch import Fetcher, FetchError, FetchLimits
from bot.services.articles import PageReader
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer, redirect
from tests.support.fakes.network import PUBLIC_IP, LoopbackOnly, make_resolver
from tests.support.fakes.raw_tcp import Listener
from tests.support.harness import HTML, answer, bot_settings, page, running_bot

# Unicode digits and dots that IDNA/UTS-46 maps to a loopback address (the review's six, and
# more): only loopback ones, so a broken guard on an old main never touches another network.
UNICODE = (
    "①②⑦.0.0.1",
    "127。0。0。1",
    "１２７.０.０.１",
    "127．0．0．1",
    "１２７。０。０。１",
    "⑫⑦.0.0.1",
    "ｌｏｃａｌｈｏｓｔ",
    "127｡0｡0｡1",
    "①②⑦.⓪.⓪.②",
)
# The earlier forms (tests/hardening/test_ssrf.py), now with a port: the listener's.
EARLIER = (
    "127.0.0.1",
    "localhost",
    "[::1]",
    "0.0.0.0",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "[::ffff:127.0.0.1]",
    "2130706433",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "127.1",
    "100.64.0.1",
    "[fd00::1]",
    "[fe80::1]",
    "224.0.0.1",
    "rebind.example",
    "[fec0::1]",
    "[::127.0.0.1]",
    "[64:ff9b::7f00:1]",
    "[2002:7f00:1::]",
    "192.0.0.8",
    "198.18.0.1",
)
NAMES = {"localhost": ["127.0.0.1", "::1"], "rebind.example": ["10.0.0.7"]}
BLOCKED = "That address leads to a private network, and this bot only reads public websites."


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener().start()
    yield server
    server.stop()


def guarded(listener: Listener, backend: LoopbackOnly | None = None) -> Fetcher:
    """The chat-feed fetcher on a network where `public.example` is public and any other
    address the guard lets through lands on `listener`; any port (the servers' are random)."""
    return Fetcher(
        FetchLimits(total_timeout=20),
        allow_private=False,
        resolver=make_resolver({**NAMES, "public.example": [PUBLIC_IP]}),
        network_backend=backend or LoopbackOnly(sink=listener.port),
        allowed_ports=None,
    )


def leaked(backend: LoopbackOnly) -> list[str]:
    return [address for address in backend.connected if address != PUBLIC_IP]


@pytest.mark.parametrize("host", UNICODE + EARLIER)
async def test_no_spelling_of_a_private_host_reaches_a_listener(
    listener: Listener, host: str
) -> None:
    backend = LoopbackOnly(sink=listener.port)
    async with guarded(listener, backend) as fetcher:
        with pytest.raises(FetchError) as refused:
            await fetcher.fetch(f"http://{host}:{listener.port}/feed.xml", trusted=False)
    assert listener.accepted == 0
    assert leaked(backend) == []
    assert refused.value.blocked or "invalid URL" in str(refused.value), str(refused.value)


@pytest.mark.parametrize("host", UNICODE)
async def test_the_connected_address_is_named_in_the_refusal(listener: Listener, host: str) -> None:
    """The guard judged the normalised host: its error names the address, not the spelling."""
    async with guarded(listener) as fetcher:
        with pytest.raises(
            FetchError, match=r"non-public address \((127\.0\.0\.[12])\)"
        ) as refused:
            await fetcher.fetch(f"http://{host}:{listener.port}/feed.xml", trusted=False)
    assert refused.value.blocked
    assert listener.accepted == 0


@pytest.mark.parametrize("host", (*UNICODE, "127.0.0.1", "[::ffff:127.0.0.1]", "2130706433"))
async def test_no_spelling_of_a_private_host_works_as_a_redirect_target(
    listener: Listener, feeds: FeedServer, host: str
) -> None:
    assert feeds.server is not None
    port = feeds.server.port
    feeds.behave("/start", redirect(302, f"http://{host}:{listener.port}/feed.xml"))
    backend = LoopbackOnly(sink=listener.port)
    async with guarded(listener, backend) as fetcher:
        with pytest.raises(FetchError) as refused:
            await fetcher.fetch(f"http://public.example:{port}/start", trusted=False)
    assert refused.value.blocked, str(refused.value)
    assert backend.connected == [PUBLIC_IP]  # the first hop went out, the redirect did not
    assert listener.accepted == 0


@pytest.mark.parametrize("trusted", [False, True])
async def test_no_spelling_of_a_private_host_is_read_as_a_post_page(
    listener: Listener, feeds: FeedServer, trusted: bool
) -> None:
    """A full-text post linking to the host, directly and through a redirect on the feed's own
    site, of a chat's feed and of an operator's (whose own origin is trusted, nothing else)."""
    assert feeds.server is not None
    port = feeds.server.port
    # An operator's feed is on loopback (its own origin is trusted); a chat's is public.
    base = f"http://127.0.0.1:{port}" if trusted else f"http://public.example:{port}"
    feed = FeedState(
        id=1,
        slug="portside",
        url=f"{base}/feed",
        title="Portside",
        etag=None,
        last_modified=None,
        trusted=trusted,
        body_hash=None,
        baseline_done=True,
        full_text=True,
    )
    entries = []
    for n, host in enumerate(UNICODE + EARLIER):
        feeds.behave(f"/hop{n}/", redirect(302, f"http://{host}:{listener.port}/page{n}"))
        for kind, link in (("direct", f"http://{host}:{listener.port}/page{n}"), ("hop", "")):
            entries.append(entry(f"{kind}{n}", link or f"{base}/hop{n}/"))
    backend = LoopbackOnly(sink=listener.port)
    async with guarded(listener, backend) as fetcher:
        reader = PageReader(fetcher, wait_seconds=30)
        articles, late = await reader.read(feed, entries)
    assert late == {}
    assert len(articles) == len(entries)
    for key, article in articles.items():
        assert not article.ok and article.error, key
        assert re.search(r"non-public|invalid URL", article.error), (key, article.error)
    assert listener.accepted == 0
    assert leaked(backend) == []


def entry(key: str, link: str) -> RawEntry:
    return RawEntry(
        key=key,
        title=key,
        link=link,
        author=None,
        published=None,
        categories=(),
        html="<p>Excerpt.</p>",
        content_hash=key,
        position=0,
        full=False,
    )


async def test_subscribe_and_feed_links_never_reach_the_listener(
    listener: Listener, db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Through the running bot: `/subscribe URL`, a pasted link, and a public page whose feed
    links point at the listener in each spelling."""
    assert feeds.server is not None
    port = feeds.server.port
    backend = LoopbackOnly(sink=listener.port)
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings, fetcher=guarded(listener, backend)):
        for n, host in enumerate(UNICODE[:6]):
            target = f"http://{host}:{listener.port}/feed.xml"
            assert await answer(bot_api, f"/subscribe {target}") == BLOCKED, host
            assert await answer(bot_api, target) == BLOCKED, host
            links = page(("application/rss+xml", target, "Inside"))
            feeds.serve(f"/home{n}/", links, **HTML)
            reply = await answer(bot_api, f"/subscribe http://public.example:{port}/home{n}/")
            assert reply == BLOCKED, host
        assert "Internal Service" not in await answer(bot_api, "/list")
    assert listener.accepted == 0
    assert leaked(backend) == []
