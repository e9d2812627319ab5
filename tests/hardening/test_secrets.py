"""Feed URLs keep their secrets (issue 11, items 3 and 10): chats never see a URL's user name or
password, only operators see its query, and logs see neither, nor any configured secret."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest

from bot.core.feeds.opml import parse_opml
from bot.core.urls import redact_urls, shown_url
from bot.runtime.config import load_settings
from bot.runtime.logs import RedactFilter
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, bot_settings, running_bot

SECRET_URL = "http://deploy:pa55word@{host}/private/feed?token=T0KEN-42&x=1"
OPERATOR, STRANGER = 4242, 555


@pytest.mark.parametrize(
    ("url", "operator", "expected"),
    [
        ("https://u:p@example.org/feed?token=abc", False, "https://example.org/feed?…"),
        ("https://u:p@example.org/feed?token=abc", True, "https://example.org/feed?token=abc"),
        ("https://u@example.org:8443/f", False, "https://example.org:8443/f"),
        ("https://[2001:db8::1]:8080/f?a=b", False, "https://[2001:db8::1]:8080/f?…"),
        ("https://example.org/feed/", False, "https://example.org/feed/"),
    ],
)
def test_shown_url(url: str, operator: bool, expected: str) -> None:
    assert shown_url(url, operator=operator) == expected


def test_log_lines_lose_credentials_queries_and_secrets() -> None:
    line = (
        "fetch http://deploy:pw@10.0.0.1/feed?token=abc failed; secret_token='whsec-0123456789abc'"
    )
    assert (
        redact_urls(line)
        == "fetch http://…@10.0.0.1/feed?… failed; secret_token='whsec-0123456789abc'"
    )
    record = logging.LogRecord("t", logging.DEBUG, __file__, 1, "%s", (line,), None)
    RedactFilter(["whsec-0123456789abc"]).filter(record)
    assert "pw" not in record.getMessage() and "abc" not in record.getMessage()
    assert "whsec-0123456789abc" not in record.getMessage()


def test_every_configured_secret_is_redacted() -> None:
    settings = load_settings(
        _env_file=None,
        telegram_bot_token="123:tok-en",
        webhook_secret="whsec-0123456789abc",
        database_url="postgresql+psycopg://fw:db-pass-9@db/feedwatch",
    )
    assert set(settings.secrets()) == {"123:tok-en", "whsec-0123456789abc", "db-pass-9"}


@pytest.fixture
async def bot(sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(sqlite_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        assert feeds.server is not None
        feeds.serve("/private/feed", blog.rss(blog.BEFORE_POSTS))
        url = SECRET_URL.format(host=f"127.0.0.1:{feeds.server.port}")
        await running.services.catalog.add_feed(url, slug="private", trusted=True)
        yield running


async def test_export_hides_credentials_and_shows_the_query_to_operators_only(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    for user in (STRANGER, OPERATOR):
        await ask(bot_api, "/subscribe private", chat_id=user)
        bot_api.push_command("/export", chat_id=user, user_id=user)
        await bot_api.wait_for(lambda u=user: any(c == u for c, _ in bot_api.documents))
    exported = {chat: parse_opml(doc["content"])[0].url for chat, doc in bot_api.documents}
    assert "pa55word" not in str(exported) and "deploy" not in str(exported)
    assert "T0KEN-42" not in exported[STRANGER]
    assert exported[OPERATOR].endswith("/private/feed?token=T0KEN-42&x=1")
    feeds_reply = await ask(bot_api, "/feeds", chat_id=STRANGER)
    assert "pa55word" not in feeds_reply and "T0KEN-42" not in feeds_reply
