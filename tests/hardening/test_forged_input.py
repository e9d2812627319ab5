"""Forged button data, odd time zones and invisible characters in links (issue 11, items 9, 13).

Each of these raised inside a handler (the user got an apology, the log a traceback) or let a
link display as something it is not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.feeds.parse import parse_feed
from bot.core.messages.render import render_change
from bot.core.types import Change, ChangeKind, FeedInfo
from bot.telegram.buttons import Action, Button, decode, encode
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, lumen_bot, press

CHAT = 111
EXPIRED = "This button has expired. Use the command again."


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.AFTER_POSTS) as running:
        yield running


@pytest.mark.parametrize(
    "data",
    ["²", "unsub:²", "unsub:99999999999999999999", "unsub:-1", "backlog:1:x", "lang:xx", "x" * 64],
)
async def test_forged_buttons_get_a_short_answer(
    bot: RunningBot, bot_api: FakeBotApi, data: str, caplog: pytest.LogCaptureFixture
) -> None:
    await ask(bot_api, "/subscribe lumen", CHAT)
    answer = await press(bot_api, data, CHAT)
    assert answer.get("text") == EXPIRED
    assert "error while handling" not in caplog.text


async def test_a_button_for_a_feed_no_longer_subscribed_has_expired(
    bot: RunningBot, bot_api: FakeBotApi
) -> None:
    await ask(bot_api, "/subscribe lumen", CHAT)
    await ask(bot_api, "/unsubscribe lumen", CHAT)
    assert (await press(bot_api, "edits:1", CHAT)).get("text") == EXPIRED


@pytest.mark.parametrize(
    ("zone", "answer"),
    [
        ("America", "Unknown time zone."),
        ("Europe/" + "x" * 300, "Unknown time zone."),
        ("localtime", "Unknown time zone."),
        ("../../etc/passwd", "Unknown time zone."),
        ("posix/Europe/Berlin", "Unknown time zone."),
        ("europe/berlin", "Time zone: Europe/Berlin."),
        ("UTC", "Time zone: UTC."),
    ],
)
async def test_time_zones_come_from_the_zone_list(
    bot: RunningBot, bot_api: FakeBotApi, zone: str, answer: str
) -> None:
    assert (await ask(bot_api, f"/timezone {zone}", CHAT)).startswith(answer)


@given(
    st.sampled_from([Action.UNSUB, Action.EDITS, Action.PREVIEW, Action.BACKLOG]),
    st.integers(min_value=1, max_value=2**63 - 1),
    st.integers(min_value=0, max_value=9),
)
def test_every_button_round_trips_within_64_bytes(action: Action, feed_id: int, count: int) -> None:
    button = Button(action, feed_id, count if action is Action.BACKLOG else 0)
    data = encode(button)
    assert len(data.encode()) <= 64
    if feed_id < 10**18:
        assert decode(data) == button
    else:  # beyond what this bot ever writes: refused rather than overflowing a column
        assert decode(data) is None


def test_invisible_characters_in_links_are_percent_encoded() -> None:
    body = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><guid>1</guid>'
        "<title>Photo</title><link>https://example.org/files/\u202egpj.exe</link></item>"
        "<item><guid>2</guid><title>Z</title><link>https://exa\u200bmple.org/a</link></item>"
        "</channel></rss>"
    ).encode()
    items = parse_feed(body).items
    assert items[0].link == "https://example.org/files/%E2%80%AEgpj.exe"
    for item in items:
        message = render_change(Change(ChangeKind.NEW, item), FeedInfo(slug="t", title="T"))
        assert "\u202e" not in message and "\u200b" not in message
