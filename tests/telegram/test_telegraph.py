"""Long posts read in Telegram (issue 47, outcome 4), end to end: feed server → poll → the
Telegraph client → the fake Telegraph API → outbox → PTB → the fake Bot API, on SQLite and
PostgreSQL. A `full` post longer than one message is published as a Telegraph page and its
message links to it (Instant View); an edit edits the page; every failure is today's cut
message and one log line."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from sqlmodel import Session, select

from bot.db.store import telegraph_token
from bot.db.tables import TelegraphPage
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.telegraph_api import TOKEN, FakeTelegraph
from tests.support.fixtures.media_feeds import Post, rss
from tests.support.harness import RunningBot, bot_settings, command, cycle, running_bot

PRIVATE, OTHER = 601, 602
OLD = Post(
    "https://essays.example/old", "An old note", "<p>Short.</p>", "Mon, 30 Nov 2026 08:00:00 GMT"
)
LOGGER = "bot.services.telegraph"


def long_html(version: str = "first") -> str:
    paragraphs = "".join(
        f"<p>Paragraph {n} of the {version} essay, about rivers, bridges and the towns between.</p>"
        for n in range(60)
    )
    return (
        "<h2>Where it starts</h2>"
        f"<p>The {version} version opens here.</p>"
        '<p><img src="https://essays.example/img/river.jpg"></p>'
        "<ul><li>one bridge</li><li>two towns</li></ul>"
        "<blockquote><p>A river is a road that moves.</p></blockquote>"
        f"{paragraphs}<script>alert('x')</script>"
    )


def essay(html: str, title: str = "Rivers and their bridges") -> Post:
    return Post("https://essays.example/rivers", title, html, "Tue, 01 Dec 2026 09:00:00 GMT")


@pytest.fixture
def telegraph() -> Iterator[FakeTelegraph]:
    fake = FakeTelegraph().start()
    yield fake
    fake.stop()


async def start(
    db_url: str,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    telegraph: FakeTelegraph,
    *,
    fresh: bool = True,
    **extra: object,
) -> AsyncIterator[RunningBot]:
    values: dict[str, object] = {
        "poll_interval_seconds": 3600,
        "telegraph_enabled": True,
        "telegraph_api_url": telegraph.base_url,
        "telegraph_access_token": TOKEN,
        "telegraph_timeout_seconds": 1.0,
    }
    values.update(extra)
    settings = bot_settings(db_url, bot_api, **values)
    async with running_bot(settings) as running:
        if fresh:
            url = feeds.serve("/essays.rss", rss("Essays", "https://essays.example/", (OLD,)))
            await running.services.catalog.add_feed(url, slug="essays", trusted=True)
            await command(bot_api, "/subscribe essays", PRIVATE)
            await command(bot_api, "/format essays full", PRIVATE)
        yield running


@pytest.fixture
async def bot(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> AsyncIterator[RunningBot]:
    async for running in start(db_url, bot_api, feeds, telegraph):
        yield running


def publish(feeds: FeedServer, post: Post) -> None:
    feeds.serve("/essays.rss", rss("Essays", "https://essays.example/", (post, OLD)))


def message(
    bot_api: FakeBotApi, chat_id: int, needle: str = "Rivers and their bridges"
) -> dict[str, Any]:
    sent = [c for c in bot_api.calls_to("sendMessage") if c.params.get("chat_id") == chat_id]
    found = [c.params for c in sent if needle in str(c.params.get("text"))]
    assert found, f"no message with {needle!r}"
    return found[-1]


def stored_pages(bot: RunningBot) -> list[TelegraphPage]:
    with Session(bot.engine) as session:
        return list(session.exec(select(TelegraphPage)).all())


async def test_a_long_full_post_is_a_telegraph_page_its_message_links_to(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> None:
    await command(bot_api, "/subscribe essays", OTHER)  # a summary reader: no page for it
    publish(feeds, essay(long_html()))
    await cycle(bot, bot_api)
    [call] = telegraph.calls_to("createPage")
    assert call.params["access_token"] == TOKEN
    assert call.params["title"] == "Rivers and their bridges"
    assert call.params["author_url"] == "https://essays.example/rivers"
    page = telegraph.page(telegraph.pages[next(iter(telegraph.pages))].url)
    tags = [n["tag"] for n in page.content if isinstance(n, dict)]
    assert tags[:5] == ["h3", "p", "figure", "ul", "blockquote"]
    assert page.content[2]["children"][0]["attrs"]["src"] == "https://essays.example/img/river.jpg"
    assert "alert" not in str(page.content) and "Paragraph 59 " in str(page.content)
    sent = message(bot_api, PRIVATE)
    assert sent["text"].endswith(f'<a href="{page.url}">Read the whole post in Instant View →</a>')
    assert "Read on the site" not in sent["text"]
    assert sent["link_preview_options"]["url"] == page.url  # Telegram's card: Instant View
    summary = message(bot_api, OTHER)
    assert page.url not in summary["text"] and "Instant View" not in summary["text"]
    [row] = stored_pages(bot)
    assert (row.path, row.url) == (page.path, page.url)


async def test_a_full_post_that_fits_one_message_gets_no_page(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> None:
    publish(feeds, essay("<p>A short essay: one paragraph, nothing more.</p>"))
    await cycle(bot, bot_api)
    assert telegraph.calls == []
    assert "A short essay" in message(bot_api, PRIVATE)["text"]


async def test_an_edit_of_the_post_edits_its_page(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> None:
    publish(feeds, essay(long_html()))
    await cycle(bot, bot_api)
    [path] = list(telegraph.pages)
    publish(feeds, essay(long_html("second")))
    await cycle(bot, bot_api)
    [edit] = telegraph.calls_to("editPage")
    assert edit.path == path and edit.params["access_token"] == TOKEN
    assert len(telegraph.calls_to("createPage")) == 1
    page = telegraph.pages[path]
    assert page.edits == 1 and "The second version opens here." in str(page.content)
    updated = message(bot_api, PRIVATE, "Updated:")
    assert updated.get("reply_parameters") is not None  # the edit's message as ever
    [row] = stored_pages(bot)
    assert row.path == path
    publish(feeds, essay(long_html("second") + "<!-- a comment only -->"))
    await cycle(bot, bot_api)
    assert len(telegraph.calls_to("editPage")) == 1  # nothing the page shows changed


async def test_without_a_token_the_bot_creates_one_account_and_keeps_it(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> None:
    async for bot in start(db_url, bot_api, feeds, telegraph, telegraph_access_token=None):
        publish(feeds, essay(long_html()))
        await cycle(bot, bot_api)
        [account] = telegraph.calls_to("createAccount")
        assert account.params["short_name"] == "Feedwatch"
        [page] = telegraph.calls_to("createPage")
        with Session(bot.engine) as session:
            token = telegraph_token(session)
        assert token is not None and page.params["access_token"] == token != TOKEN
    restarted = start(db_url, bot_api, feeds, telegraph, fresh=False, telegraph_access_token=None)
    async for bot in restarted:
        publish(feeds, essay(long_html("second")))
        await cycle(bot, bot_api)
        assert len(telegraph.calls_to("createAccount")) == 1  # read back from the database
        [edit] = telegraph.calls_to("editPage")
        assert edit.params["access_token"] == token


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("flood", "Telegraph refused: FLOOD_WAIT_7"),
        ("save_failed", "Telegraph refused: PAGE_SAVE_FAILED"),
        ("500", "Telegraph answered HTTP 500"),
        ("garbage", "unreadable answer from Telegraph (not JSON)"),
        ("slow", "Telegraph did not answer in time"),
        ("bad_token", "Telegraph refused: ACCESS_TOKEN_INVALID"),
    ],
)
async def test_every_failure_is_the_cut_message_and_one_log_line(
    bot: RunningBot,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    telegraph: FakeTelegraph,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    said: str,
) -> None:
    if mode == "bad_token":
        telegraph.tokens.clear()
    else:
        telegraph.mode = mode
    caplog.set_level(logging.INFO, logger=LOGGER)
    publish(feeds, essay(long_html()))
    await cycle(bot, bot_api)
    sent = message(bot_api, PRIVATE)
    assert sent["text"].endswith('<a href="https://essays.example/rivers">Read on the site →</a>')
    assert "Instant View" not in sent["text"]
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert len(lines) == 1 and said in lines[0], lines
    assert TOKEN not in caplog.text
    assert stored_pages(bot) == []


async def test_after_telegraph_fails_the_next_post_asks_it_nothing_for_a_while(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> None:
    telegraph.mode = "500"
    publish(feeds, essay(long_html()))
    await cycle(bot, bot_api)
    telegraph.mode = "ok"
    second = Post(
        "https://essays.example/second",
        "Second essay",
        long_html("other"),
        "Wed, 02 Dec 2026 09:00:00 GMT",
    )
    feeds.serve(
        "/essays.rss", rss("Essays", "https://essays.example/", (second, essay(long_html()), OLD))
    )
    await cycle(bot, bot_api)
    assert len(telegraph.calls_to("createPage")) == 1  # only the first, refused: paused since
    assert "Read on the site" in message(bot_api, PRIVATE, "Second essay")["text"]


async def test_a_post_over_telegraphs_64_kb_is_the_cut_message_without_asking(
    bot: RunningBot,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    telegraph: FakeTelegraph,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    huge = "".join(f"<p>Sentence {n} of a very long essay about rivers.</p>" for n in range(2_000))
    publish(feeds, essay(huge))
    await cycle(bot, bot_api)
    assert telegraph.calls == []
    assert "Read on the site" in message(bot_api, PRIVATE)["text"]
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert len(lines) == 1 and "over Telegraph's 64 KB" in lines[0]


async def test_off_unless_enabled(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer, telegraph: FakeTelegraph
) -> None:
    async for bot in start(db_url, bot_api, feeds, telegraph, telegraph_enabled=False):
        publish(feeds, essay(long_html()))
        await cycle(bot, bot_api)
        assert telegraph.calls == []
        assert "Read on the site" in message(bot_api, PRIVATE)["text"]
