"""Subscribe by address never reaches a private address: the address itself, a page's feed
links and the probed paths all go through the SSRF guard (the loopback-only network of
`test_ssrf` records every connection the guard allowed)."""

from __future__ import annotations

from bot.net.fetch import Fetcher, FetchLimits
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.network import PUBLIC_IP, LoopbackOnly, make_resolver
from tests.support.fixtures import blog
from tests.support.harness import HTML, answer, bot_settings, page, running_bot

USER = 111
BLOCKED = "That address leads to a private network, and this bot only reads public websites."


async def test_discovery_fetches_only_public_addresses(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    backend = LoopbackOnly()
    port = int(feeds.url("/").rsplit(":", 1)[1].split("/")[0])
    resolver = make_resolver({"blog.example": [PUBLIC_IP], "intranet.example": ["10.0.0.7"]})
    fetcher = Fetcher(
        # A generous limit: the test is about addresses, not time (3 s ran out once under
        # two loaded CI workers and the first page was reported slow instead of blocked).
        FetchLimits(total_timeout=20),
        allow_private=False,
        resolver=resolver,
        network_backend=backend,
        allowed_ports=None,  # the feed server's port is random
    )
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings, fetcher=fetcher):
        feeds.serve(
            "/inside/",
            page(("application/rss+xml", "http://intranet.example/feed.xml", "Inside")),
            **HTML,
        )
        reply = await answer(bot_api, f"/subscribe http://blog.example:{port}/inside/")
        assert reply == BLOCKED
        feeds.serve("/loop/", page(("application/rss+xml", "http://127.0.0.1/feed/", "x")), **HTML)
        assert await answer(bot_api, f"/subscribe http://blog.example:{port}/loop/") == BLOCKED
        assert await answer(bot_api, f"/subscribe {feeds.url('/feed/')}") == BLOCKED
        assert await answer(bot_api, "http://169.254.169.254/latest/") == BLOCKED
        # A public page with a public feed works, through the same guard.
        feeds.serve("/public/feed/", blog.rss((blog.PUNE,), title="Public Blog"))
        reply = await answer(bot_api, f"/subscribe http://blog.example:{port}/public/feed/")
        assert "Now watching <b>Public Blog</b>" in reply
    assert set(backend.connected) == {PUBLIC_IP}  # nothing else was ever connected to
