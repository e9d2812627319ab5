"""/summary FEED model|extract and /translate on|off through PTB and the fake Bot API (issue
28), with the real `openai` client talking to the loopback chat-completions fake: the replies
in en, es and zh, /list showing both, and a translated post delivered to a Chinese chat."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, lumen_bot, posts

CHAT, GROUP, MEMBER = 111, -1001, 88


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
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS, **model) as running:
        yield running


async def test_summary_and_translate_replies_and_list(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/subscribe lumen")
    reply = await ask(bot_api, "/summary lumen model")
    assert "written by the language model" in reply
    assert "model summaries" in await ask(bot_api, "/list")
    assert "own sentences" in await ask(bot_api, "/summary lumen extract")
    assert "model summaries" not in await ask(bot_api, "/list")
    assert "/summary <i>feed name</i> model|extract" in await ask(bot_api, "/summary lumen maybe")
    assert "Translation on" in await ask(bot_api, "/translate on")
    assert "translated (/translate off)" in await ask(bot_api, "/list")
    assert "/translate on|off" in await ask(bot_api, "/translate sometimes")
    assert "Translation off" in await ask(bot_api, "/translate off")
    help_text = await ask(bot_api, "/help")
    assert "/summary — " in help_text and "/translate — " in help_text


@pytest.mark.parametrize(
    ("language", "summary", "translate"),
    [
        ("es", "resumen escrito por el modelo de lenguaje", "Traducción activada"),
        ("zh", "语言模型", "翻译已开启"),
    ],
)
async def test_the_replies_speak_the_chats_language(
    bot: RunningBot, bot_api: FakeBotApi, language: str, summary: str, translate: str
) -> None:
    await ask(bot_api, f"/language {language}")
    await ask(bot_api, "/subscribe lumen")
    assert summary in await ask(bot_api, "/summary lumen model")
    assert translate in await ask(bot_api, "/translate on")


async def test_only_group_admins_change_them(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await ask(bot_api, "/subscribe lumen", chat_id=GROUP)
    bot_api.members[(GROUP, MEMBER)] = "member"
    refused = await ask(bot_api, "/translate on", chat_id=GROUP, user_id=MEMBER)
    assert "administrator" in refused


async def test_a_chinese_chat_gets_the_english_post_translated(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, model_api: FakeModelApi
) -> None:
    await ask(bot_api, "/language zh")
    await ask(bot_api, "/subscribe lumen")
    await ask(bot_api, "/summary lumen model")
    await ask(bot_api, "/translate on")
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    got = posts(bot_api, CHAT) or [t for t in bot_api.texts(CHAT) if t.startswith("<b>[zh]")]
    assert len(got) == 3 and all(text.startswith("<b>[zh] ") for text in got)
    assert all('<a href="' in text.split("\n")[1] for text in got)  # the original title links
    assert {c.target for c in model_api.calls} == {"Simplified Chinese"}
    assert len(model_api.calls) == 3  # one per post


async def test_without_a_model_they_say_so(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS):
        await ask(bot_api, "/subscribe lumen")
        assert "no language model" in await ask(bot_api, "/summary lumen model")
        assert "no language model" in await ask(bot_api, "/translate on")


def test_preview_shows_what_the_model_would_write(
    env: dict[str, str],
    model_api: FakeModelApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(blog.rss(blog.AFTER_POSTS))
    assert main(["preview", str(feed), "--model", "--limit", "1"]) == 1
    assert "--model needs a language model" in capsys.readouterr().err
    monkeypatch.setenv("MODEL_API_URL", model_api.base_url)
    monkeypatch.setenv("MODEL_API_KEY", KEY)
    monkeypatch.setenv("MODEL_NAME", "tiny")
    assert main(["preview", str(feed), "--model", "--limit", "1", "--language", "zh"]) == 0
    out = capsys.readouterr().out
    assert "[model, zh] [zh] " in out and len(model_api.calls) == 1
    model_api.mode = "500"
    assert main(["preview", str(feed), "--model", "--limit", "1"]) == 0
    assert "[model: the model endpoint answered HTTP 500]" in capsys.readouterr().out
