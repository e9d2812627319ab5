"""The Telegraph client (`bot/net/telegraph.py`) against the loopback fake of Telegraph's API:
its wire format, and the fake refusing what Telegraph refuses (issue 47)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.core.messages.telegraph import encoded, page_content
from bot.net.telegraph import Published, TelegraphApi, TelegraphError
from tests.support.fakes.telegraph_api import TOKEN, FakeTelegraph
from tests.support.settings import make_settings

PAGE = {"title": "Rivers", "author_name": "Essays", "author_url": "https://essays.example/r"}


@pytest.fixture
def telegraph() -> Iterator[FakeTelegraph]:
    fake = FakeTelegraph().start()
    yield fake
    fake.stop()


@pytest.fixture
async def api(telegraph: FakeTelegraph) -> AsyncIterator[TelegraphApi]:
    settings = make_settings(
        "sqlite://", telegraph_api_url=telegraph.base_url + "/", telegraph_timeout_seconds=1.0
    )
    client = TelegraphApi(settings)
    yield client
    await client.aclose()


def content(post: str) -> str:
    nodes = page_content(post)
    assert isinstance(nodes, list)
    return encoded(nodes)


async def test_an_account_then_a_page_then_its_edit(
    api: TelegraphApi, telegraph: FakeTelegraph
) -> None:
    token = await api.create_account("Feedwatch")
    assert token in telegraph.tokens and token != TOKEN
    made = await api.create_page(token, {**PAGE, "content": content("<p>First.</p>")})
    assert made == Published("Rivers-12-04", "https://telegra.ph/Rivers-12-04")
    again = await api.create_page(token, {**PAGE, "content": content("<p>Other.</p>")})
    assert again.path == "Rivers-12-04-2"
    edited = await api.edit_page(token, made.path, {**PAGE, "content": content("<p>New.</p>")})
    assert edited == made
    page = telegraph.pages[made.path]
    assert page.content == [{"tag": "p", "children": ["New."]}] and page.edits == 1
    [call] = telegraph.calls_to("editPage")
    assert call.path == made.path and call.params["access_token"] == token  # in the body
    assert json.loads(call.params["content"]) == page.content


@pytest.mark.parametrize(
    ("form", "error"),
    [
        (
            {**PAGE, "content": json.dumps([{"tag": "script", "children": ["x"]}])},
            "TAG_NOT_ALLOWED",
        ),
        ({**PAGE, "content": json.dumps([{"tag": "iframe2"}])}, "TAG_NOT_ALLOWED"),
        (
            {**PAGE, "content": json.dumps([{"tag": "a", "attrs": {"onclick": "x"}}])},
            "CONTENT_FORMAT_INVALID",
        ),
        ({**PAGE, "content": "not json"}, "CONTENT_FORMAT_INVALID"),
        ({**PAGE, "content": "[]"}, "CONTENT_REQUIRED"),
        ({**PAGE, "content": json.dumps(["w" * 70_000])}, "CONTENT_TOO_BIG"),
        ({**PAGE, "title": "", "content": '["x"]'}, "TITLE_REQUIRED"),
        ({**PAGE, "title": "t" * 257, "content": '["x"]'}, "TITLE_TOO_LONG"),
        ({**PAGE, "author_url": "javascript:x", "content": '["x"]'}, "AUTHOR_URL_INVALID"),
    ],
)
async def test_the_fake_refuses_what_telegraph_refuses(
    api: TelegraphApi, form: dict[str, str], error: str
) -> None:
    with pytest.raises(TelegraphError) as refused:
        await api.create_page(TOKEN, form)
    assert refused.value.error == error and refused.value.reason == f"Telegraph refused: {error}"
    assert refused.value.wait is None


async def test_a_wrong_token_and_someone_elses_page_are_refused(
    api: TelegraphApi, telegraph: FakeTelegraph
) -> None:
    with pytest.raises(TelegraphError) as refused:
        await api.create_page("wrong-token", {**PAGE, "content": '["x"]'})
    assert refused.value.error == "ACCESS_TOKEN_INVALID"
    assert "wrong-token" not in str(refused.value)
    made = await api.create_page(TOKEN, {**PAGE, "content": '["x"]'})
    other = await api.create_account("Someone")
    with pytest.raises(TelegraphError) as denied:
        await api.edit_page(other, made.path, {**PAGE, "content": '["y"]'})
    assert denied.value.error == "PAGE_ACCESS_DENIED"
    with pytest.raises(TelegraphError) as missing:
        await api.edit_page(TOKEN, "No-Such-Page-12-04", {**PAGE, "content": '["y"]'})
    assert missing.value.error == "PAGE_NOT_FOUND"


@pytest.mark.parametrize(
    ("mode", "reason", "wait"),
    [
        ("flood", "Telegraph refused: FLOOD_WAIT_7", 7),
        ("save_failed", "Telegraph refused: PAGE_SAVE_FAILED", None),
        ("500", "Telegraph answered HTTP 500", None),
        ("garbage", "unreadable answer from Telegraph (not JSON)", None),
        ("slow", "Telegraph did not answer in time", None),
    ],
)
async def test_every_failure_is_one_line(
    api: TelegraphApi, telegraph: FakeTelegraph, mode: str, reason: str, wait: int | None
) -> None:
    telegraph.mode = mode
    with pytest.raises(TelegraphError) as failed:
        await api.create_page(TOKEN, {**PAGE, "content": '["x"]'})
    assert failed.value.reason == reason and failed.value.wait == wait
    assert TOKEN not in str(failed.value)


async def test_an_endpoint_nobody_answers_at(telegraph: FakeTelegraph) -> None:
    port = telegraph.server.port if telegraph.server else 0
    telegraph.stop()
    settings = make_settings("sqlite://", telegraph_api_url=f"http://127.0.0.1:{port}")
    client = TelegraphApi(settings)
    try:
        with pytest.raises(TelegraphError, match="cannot reach Telegraph"):
            await client.create_account("Feedwatch")
    finally:
        await client.aclose()
