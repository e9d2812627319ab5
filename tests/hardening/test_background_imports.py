"""An operator's slow /addfeed or OPML import never freezes command handling (issue 11, item 4).

The feed server here never answers one URL; the fetch times out after 3 s. Meanwhile everyone,
the operator included, is answered at once, and one progress message is edited into the result.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer, hang
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, lumen_bot

OPERATOR, OTHER = 4242, 555


@pytest.fixture
async def bot(sqlite_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(
        sqlite_url, bot_api, feeds, blog.AFTER_POSTS, allow_private_feed_urls=True
    ) as running:
        yield running


async def answered_quickly(api: FakeBotApi, chat_id: int) -> None:
    start = time.monotonic()
    assert "Watched feeds" in await ask(api, "/feeds", chat_id)
    assert time.monotonic() - start < 1.0


async def test_a_slow_addfeed_shows_progress_and_blocks_no_one(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    slow = feeds.behave("/slow/", hang)
    bot_api.push_command(f"/addfeed {slow} slow", chat_id=OPERATOR, user_id=OPERATOR)
    await answered_quickly(bot_api, OTHER)
    # The progress message first, so it cannot be taken for the reply to /feeds (a loaded run
    # sent it between the two); the fetch still hangs for seconds after it.
    await bot_api.wait_for(lambda: any("Fetching" in t for t in bot_api.texts(OPERATOR)))
    await answered_quickly(bot_api, OPERATOR)  # the operator's own chat is not held either
    progress = next(s for s in bot_api.sent if s.chat_id == OPERATOR and "Fetching" in s.text)

    def result() -> str | None:
        return next((t for t in bot_api.shown(OPERATOR) if "Could not add" in t), None)

    await bot_api.wait_for(lambda: result() is not None, timeout=10)
    assert "That site did not answer in time" in str(result())
    assert not any("Fetching" in t for t in bot_api.shown(OPERATOR))  # replaced in place
    assert [m for c, m, _ in bot_api.edits if c == OPERATOR] == [progress.message_id]


async def test_a_quick_addfeed_just_answers(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    other = feeds.serve("/other/", blog.rss((blog.PUNE,), title="Other Blog"))
    reply = await ask(bot_api, f"/addfeed {other} other", OPERATOR)
    assert reply.startswith("Now watching <b>Other Blog</b>")
    assert not bot_api.edits and not any("Fetching" in t for t in bot_api.texts(OPERATOR))


async def test_an_opml_import_runs_in_the_background_with_one_progress_message(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    one = feeds.serve("/one/", blog.rss((blog.PUNE,), title="One"))
    slow = feeds.behave("/slow/", hang)
    two = feeds.serve("/two/", blog.rss((blog.CORVID,), title="Two"))
    opml = "".join(f'<outline type="rss" text="x" xmlUrl="{u}"/>' for u in (one, slow, two))
    document = f'<opml version="2.0"><body>{opml}</body></opml>'.encode()
    bot_api.push_document(document, chat_id=OPERATOR)
    await bot_api.wait_for(lambda: any("Importing" in t for t in bot_api.texts(OPERATOR)))
    await answered_quickly(bot_api, OTHER)
    await bot_api.wait_for(
        lambda: any(t.startswith("<b>OPML import</b>") for t in bot_api.shown(OPERATOR)),
        timeout=10,
    )
    final = next(t for t in bot_api.shown(OPERATOR) if t.startswith("<b>OPML import</b>"))
    assert "<b>OPML import</b>: 2 subscribed, 0 already subscribed, 1 refused." in final
    assert "<b>One</b>: subscribed" in final and "<b>Two</b>: subscribed" in final
    assert "That site did not answer in time" in final
    assert len([t for t in bot_api.texts(OPERATOR) if "Importing" in t]) == 1  # one message


async def test_one_opml_import_per_person_at_a_time(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    slow = feeds.behave("/slow/", hang)
    document = f'<opml version="2.0"><body><outline xmlUrl="{slow}"/></body></opml>'.encode()
    bot_api.push_document(document, chat_id=OTHER)
    await bot_api.wait_for(lambda: any("Importing" in t for t in bot_api.texts(OTHER)))
    before = len(bot_api.texts(OTHER))
    bot_api.push_document(document, chat_id=OTHER)  # the first is still fetching
    replies = await bot_api.wait_replies(OTHER, before + 1)
    assert replies[before] == (
        "Still importing the last file you sent. Send the next one when it is done."
    )
    await bot_api.wait_for(
        lambda: any(t.startswith("<b>OPML import</b>") for t in bot_api.shown(OTHER)), timeout=10
    )
    final = next(t for t in bot_api.shown(OTHER) if t.startswith("<b>OPML import</b>"))
    assert "0 subscribed, 0 already subscribed, 1 refused." in final
    before = len(bot_api.texts(OTHER))
    bot_api.push_document(b"<opml><body/></opml>", chat_id=OTHER)  # done: a next file is read
    replies = await bot_api.wait_replies(OTHER, before + 1)
    assert replies[before] == "That file lists no feed addresses."
