"""An undeclared German post is recognised and translated for an English chat with
`/translate on` (issue 42), through the poller, the real `openai` client against the loopback
model fake, PTB and the fake Bot API; an English post is not sent to the model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
from tests.support.harness import RunningBot, ask, bot_settings, cycle, running_bot

CHAT = 111
GERMAN = (
    "Neue Messstation am Hafen",
    "Die neue Messstation am Hafen ist seit Montag in Betrieb. Sie misst die Temperatur und "
    "den Salzgehalt des Wassers, und die Daten sind für alle frei zugänglich.",
)
ENGLISH = (
    "New gauge at the harbour",
    "The new gauge at the harbour has been running since Monday. It measures the temperature "
    "and the salt of the water, and the data is open to all.",
)


def rss(*posts: tuple[str, str]) -> bytes:
    """A feed that declares no language, as many do."""
    items = "".join(
        f"<item><title>{title}</title><link>https://harbour.example/{n}</link>"
        f"<guid>https://harbour.example/{n}</guid><description>{text}</description></item>"
        for n, (title, text) in enumerate(posts)
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        f"<title>Hafen</title><link>https://harbour.example/</link>{items}</channel></rss>"
    ).encode()


@pytest.fixture
def model_api() -> Iterator[FakeModelApi]:
    api = FakeModelApi().start()
    yield api
    api.stop()


@pytest.fixture
async def bot(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer, model_api: FakeModelApi
) -> AsyncIterator[RunningBot]:
    model = {"model_api_url": model_api.base_url, "model_api_key": KEY, "model_name": "tiny"}
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, **model)
    async with running_bot(settings) as running:
        url = feeds.serve("/hafen.xml", rss())
        await running.services.catalog.add_feed(url, slug="hafen", trusted=True)
        yield running


async def test_an_undeclared_german_post_is_translated_for_an_english_chat(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, model_api: FakeModelApi
) -> None:
    await ask(bot_api, "/subscribe hafen", CHAT)
    assert "Translation on" in await ask(bot_api, "/translate on", CHAT)
    feeds.serve("/hafen.xml", rss(GERMAN, ENGLISH))
    await cycle(bot, bot_api)
    (german,) = [t for t in bot_api.texts(CHAT) if "harbour.example/0" in t]
    assert german.startswith(f"<b>[en] {GERMAN[0]}</b>")  # the model's English title first
    (english,) = [t for t in bot_api.texts(CHAT) if "harbour.example/1" in t]
    assert english.startswith(f'<b><a href="https://harbour.example/1">{ENGLISH[0]}</a>')
    asked = model_api.of_kind("translation")
    assert [c.title for c in asked] == [GERMAN[0]] and asked[0].target == "English"
