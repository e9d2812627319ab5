"""A pasted link cannot stall every chat or blow the memory limit (issue 23, items 1 and 8).

The attack: one person pastes a dozen links to a 29 KB gzip page that inflates to 10 MB of
HTML. On the old main, two links took the bot to 612 MB and six held another user's `/feeds`
for 120 s. Now a page is cut once its first bytes say HTML, parsing has its own pool, and a
person has one search at a time.
"""

from __future__ import annotations

import asyncio
import gzip
import threading
import time
from pathlib import Path

from aiohttp import web

from bot.net.fetch import Fetcher, FetchError, FetchLimits, RequestBudget
from bot.services import discovery
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import HTML, answer, bot_settings, page, running_bot

USER, OTHER = 111, 222
INFLATED = 10 * 1024 * 1024


def html_bomb() -> bytes:
    """About 30 KB of gzip that inflates to 10 MB of HTML with no feed link."""
    head = b"<!DOCTYPE html><html><head><title>Big</title></head><body>"
    filler = b"<div class=row><p>lorem ipsum dolor</p></div>\n" * (INFLATED // 46)
    return gzip.compress(head + filler + b"</body></html>", compresslevel=9)


def serve_bomb(feeds: FeedServer, path: str) -> str:
    body = html_bomb()

    async def respond(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=body,
            headers={"Content-Type": "text/html", "Content-Encoding": "gzip"},
        )

    return feeds.behave(path, respond)


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class PeakRss:
    """Samples this process's resident memory every 10 ms in a thread."""

    def __init__(self) -> None:
        self.base = rss_kib()
        self.peak = self.base
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, rss_kib())

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.base) / 1024


async def test_a_page_is_cut_once_its_first_bytes_say_html(feeds: FeedServer) -> None:
    url = serve_bomb(feeds, "/big/")
    assert len(html_bomb()) < 40_000
    async with Fetcher(FetchLimits(max_bytes=INFLATED * 2), allow_private=True) as fetcher:
        cut = await fetcher.fetch(url, page_bytes=discovery.PAGE_BYTES)
        assert len(cut.body) == discovery.PAGE_BYTES
        assert cut.body.startswith(b"<!DOCTYPE html>")
        whole = await fetcher.fetch(url)  # a feed poll reads what its limit allows
        assert len(whole.body) > INFLATED - 100
    # A feed is never cut, whatever it is labelled.
    rss = blog.rss(blog.BEFORE_POSTS)
    feeds.serve("/mislabelled/", rss, content_type="text/html")
    async with Fetcher(allow_private=True) as fetcher:
        result = await fetcher.fetch(feeds.url("/mislabelled/"), page_bytes=100)
    assert result.body == rss


async def test_pasted_bombs_leave_other_chats_answered_and_memory_flat(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    settings = bot_settings(db_url, bot_api, allow_private_feed_urls=True)
    links = [serve_bomb(feeds, f"/bomb{n}/") for n in range(12)]
    async with running_bot(settings):
        await asyncio.sleep(0.2)  # the start-up's own allocations settle first
        with PeakRss() as memory:
            for link in links:
                bot_api.push_command(link, chat_id=USER, user_id=USER)
            await asyncio.sleep(0.05)
            started = time.monotonic()
            await answer(bot_api, "/feeds", chat_id=OTHER)
            waited = time.monotonic() - started

            def all_answered() -> bool:
                shown = bot_api.shown(USER)
                return len(shown) >= 12 and not any(s.startswith("Looking") for s in shown)

            await bot_api.wait_for(all_answered, timeout=60)
        replies = bot_api.shown(USER)
    print(f"\nother chat waited {waited:.3f} s; memory grew {memory.growth_mb:.1f} MB")
    assert waited < 1.0, f"another chat waited {waited:.2f} s"
    assert memory.growth_mb < 150, f"memory grew {memory.growth_mb:.0f} MB"
    busy = "Still reading the last address you sent. Send the next one when it is done."
    none = "This address is not a feed, and the page links to none."
    assert set(replies) <= {busy, none} and none in replies


async def test_one_search_per_person_and_a_few_overall(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(release.wait(), loop))
        return web.Response(body=page(), content_type="text/html")

    slow_url = feeds.behave("/slow/", slow)
    settings = bot_settings(db_url, bot_api, allow_private_feed_urls=True)
    async with running_bot(settings) as bot:
        bot_api.push_command(slow_url, chat_id=USER, user_id=USER)
        await bot_api.wait_for(lambda: bool(bot_api.shown(USER)))  # "Looking for a feed…"
        second = await answer(bot_api, feeds.url("/other/"), chat_id=USER)
        assert second == (
            "Still reading the last address you sent. Send the next one when it is done."
        )
        gate = bot.services.searches
        assert gate.overall == discovery.OVERALL == 3
        release.set()
        await bot_api.wait_for(
            lambda: (
                bot_api.shown(USER)[0] == "This address is not a feed, and the page links to none."
            )
        )


async def test_a_search_has_a_request_budget_and_probes_stay_on_the_site(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    port = int(feeds.url("/").rsplit(":", 1)[1].split("/")[0])
    feeds.serve("/blog/", page(), **HTML)  # announces no feed: the usual paths are probed

    async def elsewhere(request: web.Request) -> web.StreamResponse:
        raise web.HTTPMovedPermanently(f"http://localhost:{port}/third-party{request.path}")

    from bot.core.feeds.discover import common_feed_urls

    probes = common_feed_urls(feeds.url("/blog/"))
    for probe in probes:
        feeds.behave("/" + probe.split("/", 3)[3], elsewhere)
    settings = bot_settings(db_url, bot_api, allow_private_feed_urls=True)
    async with running_bot(settings):
        reply = await answer(bot_api, feeds.url("/blog/"))
    assert reply == "This address is not a feed, and the page links to none."
    assert not [s for s in feeds.requests if s.path.startswith("/third-party")]
    assert 1 + len(probes) <= discovery.MAX_REQUESTS
    assert len(feeds.requests) <= discovery.MAX_REQUESTS


async def test_the_request_budget_counts_every_hop(feeds: FeedServer) -> None:
    feeds.serve("/end/", blog.rss(blog.BEFORE_POSTS))

    async def hop(request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/end/")

    url = feeds.behave("/start/", hop)
    async with Fetcher(allow_private=True) as fetcher:
        budget = RequestBudget(2)
        await fetcher.fetch(url, budget=budget)
        assert budget.left == 0
        try:
            await fetcher.fetch(url, budget=budget)
        except FetchError as exc:
            assert exc.budget
        else:
            raise AssertionError("a spent budget still fetched")
