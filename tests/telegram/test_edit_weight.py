"""Edit weight end to end (issue 29): through the poller, outbox, PTB and the fake Bot API. A
one-word typo fix reaches an `/edits FEED all` chat as "Minor edit:" and not a `substantive`
one; a new paragraph and a changed number reach both as "Updated:"; in es and zh too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, cycle, keyboard, lumen_bot, press, titles

ALL, SUBSTANTIVE, SPANISH = 111, 222, 333
GUIDE = blog.GUIDE
FIRST, SECOND = GUIDE.paragraphs


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


def edits(api: FakeBotApi, chat_id: int) -> list[str]:
    return [
        t
        for t in api.texts(chat_id)
        if t.startswith(
            ("<b>Updated:", "<b>Minor", "<b>Edición", "<b>小修改", "<b>Actualizado", "<b>已更新")
        )
    ]


def serve(feeds: FeedServer, *paragraphs: str) -> None:
    guide = replace(GUIDE, paragraphs=paragraphs)
    feeds.serve("/feed/", blog.rss((guide, *blog.BEFORE_POSTS[1:])))


async def test_minor_edits_are_marked_and_skipped_where_asked(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    for chat in (ALL, SUBSTANTIVE, SPANISH):
        await ask(bot_api, "/subscribe lumen", chat)
        # "Also the latest 3": the guide is sent, so its edits may follow (issue 43).
        await press(bot_api, keyboard(bot_api, chat)[1][0]["callback_data"], chat)
        await bot_api.wait_for(lambda chat=chat: len(titles(bot_api, chat)) == 3)
    await ask(bot_api, "/language es", SPANISH)
    assert "substantive edits only" in await ask(bot_api, "/edits lumen substantive", SUBSTANTIVE)
    assert "substantive edits only" in await ask(bot_api, "/list", SUBSTANTIVE)

    serve(feeds, FIRST.replace("line-up", "lineup"), SECOND)  # a one-word typo fix
    await cycle(bot, bot_api)
    (minor,) = edits(bot_api, ALL)
    assert minor.startswith("<b>Minor edit: <a href=")
    assert edits(bot_api, SUBSTANTIVE) == []
    assert edits(bot_api, SPANISH)[0].startswith("<b>Edición menor: ")

    serve(feeds, FIRST.replace("line-up", "lineup"), SECOND, blog.EDITED_SENTENCE)  # a paragraph
    await cycle(bot, bot_api)
    assert edits(bot_api, SUBSTANTIVE)[-1].startswith("<b>Updated: <a href=")
    assert "student tickets are free" in edits(bot_api, SUBSTANTIVE)[-1]

    serve(  # a changed number: "two days" → "three days" is words; 2026 → 2027 is a number
        feeds,
        FIRST.replace("line-up", "lineup").replace("2026", "2027"),
        SECOND,
        blog.EDITED_SENTENCE,
    )
    await cycle(bot, bot_api)
    assert len(edits(bot_api, SUBSTANTIVE)) == 2 and len(edits(bot_api, ALL)) == 3
    assert edits(bot_api, ALL)[-1].startswith("<b>Updated: ")


async def test_edits_all_and_off_and_the_chinese_reply(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    await ask(bot_api, "/subscribe lumen")
    assert "every edit" in await ask(bot_api, "/edits lumen all")
    assert ": off." in await ask(bot_api, "/edits lumen off")
    assert "no edits" in await ask(bot_api, "/list")
    assert "every edit" in await ask(bot_api, "/edits lumen on")  # `on` is `all`, as before
    await ask(bot_api, "/language zh")
    assert "仅实质性修改" in await ask(bot_api, "/edits lumen substantive")
