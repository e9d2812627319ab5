"""The delivery edge (`bot/telegram/messenger.py`): one `sendMessage` per `Outgoing`, through real
PTB and the fake Bot API.

It posts the form fields itself instead of calling `Bot.send_message` (issue 30: building a
`Message` from every answer was a fifth of a fan-out's CPU), so these tests pin that the wire is
what `send_message` sends, that it goes through the bot's rate limiter, and that every kind of
answer, the Bot API's errors and answers that are not the Bot API's, maps to its `Answer`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import LinkPreviewOptions, ReplyParameters
from telegram.constants import ParseMode
from telegram.ext import ExtBot

from bot.runtime import metrics
from bot.services.messenger import Outgoing, Reply
from bot.telegram.budget import MemoryBuckets, SharedRateLimiter
from bot.telegram.messenger import TelegramMessenger
from bot.telegram.request import AiohttpRequest
from tests.support.fakes.bot_api import FakeBotApi

GROUP = -100123


@pytest.fixture
async def bot(bot_api: FakeBotApi) -> AsyncIterator[ExtBot[Any]]:
    limiter = SharedRateLimiter(MemoryBuckets(), per_second=1000, group_per_minute=1000)
    made: ExtBot[Any] = ExtBot(
        bot_api.token,
        base_url=bot_api.base_url,
        request=AiohttpRequest(read_timeout=2.0),
        rate_limiter=limiter,
    )
    async with made:
        yield made


def old_way(message: Outgoing) -> dict[str, Any]:
    """`Bot.send_message`'s arguments for the message, as the edge called it before."""
    preview = (
        LinkPreviewOptions(url=message.image_url, prefer_large_media=True, show_above_text=True)
        if message.image_url
        else LinkPreviewOptions(is_disabled=not message.preview)
    )
    reply = (
        ReplyParameters(message_id=message.reply_to, allow_sending_without_reply=True)
        if message.reply_to is not None
        else None
    )
    return {
        "chat_id": message.chat_id,
        "text": message.text,
        "parse_mode": ParseMode.HTML if message.html else None,
        "link_preview_options": preview,
        "message_thread_id": message.thread_id,
        "disable_notification": message.silent or None,  # not silent: the field is left out
        "reply_parameters": reply,
    }


MESSAGES = [
    Outgoing(1, "<b>A post</b>\n\nIts summary &amp; more.", image_url="https://b.example/a.png"),
    Outgoing(2, "<b>A post</b> with its page's card", preview=True),
    Outgoing(3, "<b>A post</b>, no preview"),
    Outgoing(GROUP, "<i>In a topic</i>", thread_id=7, silent=True, reply_to=41),
    Outgoing(4, "Plain text: <not a tag> & so on", html=False),
    Outgoing(5, "Ünïcode — 中文 · 日本語 😀 + %20 &amp; = ?x=1"),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: str(m.chat_id))
async def test_the_wire_is_what_send_message_sends(
    bot: ExtBot[Any], bot_api: FakeBotApi, message: Outgoing
) -> None:
    await bot.send_message(**old_way(message))
    answer = await TelegramMessenger(bot).send(message)
    old, new = bot_api.calls_to("sendMessage")
    assert new.params == old.params
    assert answer.reply is Reply.ACCEPTED
    assert answer.message_id == bot_api.sent[-1].message_id != bot_api.sent[0].message_id


async def test_plain_calls_go_as_json_and_files_as_multipart(
    bot: ExtBot[Any], bot_api: FakeBotApi
) -> None:
    """A JSON body (the Bot API's documented alternative to form fields; `urlencode` quoted the
    text a byte at a time), UTF-8 as it is; a file still goes as multipart/form-data."""
    text = "Ünïcode 中文 😀 & <b>"
    await TelegramMessenger(bot).send(Outgoing(5, text, reply_to=3, silent=True, thread_id=9))
    await bot.send_document(5, document=b"<opml/>", filename="subs.opml", caption="Yours")
    (sent,), (document,) = bot_api.calls_to("sendMessage"), bot_api.calls_to("sendDocument")
    assert sent.content_type == "application/json"
    assert sent.params == {
        "chat_id": 5,
        "text": text,
        "parse_mode": "HTML",
        "link_preview_options": {"is_disabled": True},
        "message_thread_id": 9,
        "disable_notification": True,
        "reply_parameters": {"message_id": 3, "allow_sending_without_reply": True},
    }
    assert document.content_type == "multipart/form-data"
    assert document.params["document"]["content"] == b"<opml/>"
    assert document.params["caption"] == "Yours" and document.params["chat_id"] == 5


async def test_the_fake_reads_a_json_string_like_a_form_field(bot_api: FakeBotApi) -> None:
    """As the Bot API server does: a JSON body's string value is the parameter's text, so an
    object written as a JSON string is still an object (and a text stays a text)."""
    import aiohttp

    body = {"chat_id": "7", "text": "42", "link_preview_options": '{"is_disabled": true}'}
    url = f"{bot_api.base_url}{bot_api.token}/sendMessage"
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as answer:
        assert (await answer.json())["ok"] is True
    (call,) = bot_api.calls_to("sendMessage")
    assert call.params == {
        "chat_id": 7,
        "text": "42",
        "link_preview_options": {"is_disabled": True},
    }


async def test_each_message_takes_a_slot_of_the_shared_budget(
    bot: ExtBot[Any], bot_api: FakeBotApi
) -> None:
    before = metrics.BUDGET_TAKEN._value.get()
    messenger = TelegramMessenger(bot)
    for message in MESSAGES[:3]:
        await messenger.send(message)
    assert metrics.BUDGET_TAKEN._value.get() - before == 3
    assert len(bot_api.sent) == 3


FAULTS: list[tuple[dict[str, Any], Reply, dict[str, Any]]] = [
    ({"code": 429, "description": "Too Many Requests: retry after 7", "retry_after": 7},
     Reply.WAIT, {"wait_seconds": 7.0}),
    ({"code": 400, "description": "Bad Request: group chat was upgraded to a supergroup chat",
      "migrate_to": -100999}, Reply.MOVED, {"new_chat_id": -100999}),
    ({"code": 403, "description": "Forbidden: bot was blocked by the user"}, Reply.BLOCKED, {}),
    ({"code": 400, "description": "Bad Request: can't parse entities: unclosed tag"},
     Reply.ENTITIES, {}),
    ({"code": 400, "description": "Bad Request: chat not found"}, Reply.REFUSED, {}),
    ({"code": 500, "description": "Internal Server Error"}, Reply.UNREACHABLE, {}),
    ({"code": 502, "description": "", "body": b"<html>Bad Gateway</html>"}, Reply.UNREACHABLE, {}),
    ({"code": 200, "description": "", "body": b"<html>a captive portal</html>"},
     Reply.UNREACHABLE, {}),
    ({"code": 401, "description": "Unauthorized"}, Reply.UNREACHABLE, {}),
]  # fmt: skip


@pytest.mark.parametrize(("fault", "reply", "fields"), FAULTS, ids=lambda v: str(v)[:40])
async def test_every_answer_maps_to_its_reply(
    bot: ExtBot[Any],
    bot_api: FakeBotApi,
    fault: dict[str, Any],
    reply: Reply,
    fields: dict[str, Any],
) -> None:
    bot_api.fail("sendMessage", **fault)
    answer = await TelegramMessenger(bot).send(Outgoing(1, "<b>A post</b>"))
    assert answer.reply is reply
    assert answer.message_id is None
    for name, value in fields.items():
        assert getattr(answer, name) == value
    assert answer.error  # what the log line says
    assert bot_api.sent == []
    # The next message goes as usual.
    again = await TelegramMessenger(bot).send(Outgoing(1, "<b>A post</b>"))
    assert again.reply is Reply.ACCEPTED and again.message_id == bot_api.sent[0].message_id


async def test_a_server_that_does_not_answer_is_unreachable(
    bot: ExtBot[Any], bot_api: FakeBotApi
) -> None:
    bot_api.method_latency["sendMessage"] = 3.0  # past the request's 2 s read timeout
    answer = await TelegramMessenger(bot).send(Outgoing(1, "<b>A post</b>"))
    assert answer.reply is Reply.UNREACHABLE
