"""Hardening round 3, the smaller items: anonymous admins keyed by their chat, throttle entries
that expire, a webhook secret worth the name, metrics on loopback (issue 23, items 4 and 14,
item 11 and the extras)."""

from __future__ import annotations

import pytest

from bot.runtime.config import SettingsError, load_settings
from bot.runtime.metrics import serve
from bot.telegram.guard import Throttle, Verdict
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import ask, bot_settings, lumen_bot, running_bot

ANONYMOUS = 1087968824  # Telegram's GroupAnonymousBot, the same user in every group


async def test_anonymous_admins_of_two_groups_do_not_share_a_throttle(
    sqlite_url: str, bot_api: FakeBotApi
) -> None:
    settings = bot_settings(sqlite_url, bot_api, commands_per_minute=2)
    first, second = -1001, -1002
    async with running_bot(settings):
        for _ in range(3):  # the first group's anonymous admin uses up its own allowance
            bot_api.push_command(
                "/help",
                chat_id=first,
                user_id=ANONYMOUS,
                sender_chat={"id": first, "type": "supergroup", "title": "One"},
            )
        await bot_api.wait_for(lambda: len(bot_api.texts(first)) >= 3)
        assert bot_api.texts(first)[-1].startswith("Slow down")
        bot_api.push_command(
            "/help",
            chat_id=second,
            user_id=ANONYMOUS,
            sender_chat={"id": second, "type": "supergroup", "title": "Two"},
        )
        await bot_api.wait_for(lambda: bool(bot_api.texts(second)))
        assert not bot_api.texts(second)[0].startswith("Slow down")


def test_throttle_entries_expire() -> None:
    now = [0.0]
    throttle = Throttle(limit=5, seconds=60.0, clock=lambda: now[0], max_keys=100)
    for user in range(100):
        assert throttle.check(user) is Verdict.ALLOW
    now[0] = 61.0  # a minute later, every one of them is quiet
    throttle.check("late")
    assert len(throttle._log) == 1
    # A user still inside the window keeps its count.
    for _ in range(5):
        throttle.check("busy")
    for user in range(200):
        throttle.check(user)
    assert throttle.check("busy") in (Verdict.WARN, Verdict.DROP)


@pytest.mark.parametrize("secret", ["x", "short-secret", "has space in it 12345", "é" * 20])
def test_a_weak_webhook_secret_is_refused(secret: str) -> None:
    with pytest.raises(SettingsError, match="WEBHOOK_SECRET"):
        load_settings(_env_file=None, webhook_secret=secret)


def test_a_strong_webhook_secret_is_accepted() -> None:
    settings = load_settings(_env_file=None, webhook_secret="A" * 16 + "_-9")
    assert settings.webhook_secret is not None


def test_metrics_listen_on_loopback_by_default() -> None:
    assert load_settings(_env_file=None).metrics_listen == "127.0.0.1"
    assert serve.__defaults__ == ("127.0.0.1",)


async def test_a_user_removed_from_a_managed_channel_cannot_read_its_settings(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Issue 23, item 11: `/list` and `/export` are checked with Telegram like changes."""
    channel, user = -1005001, 111
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS):
        bot_api.add_channel(channel, "Lumen News", username="lumen_news", admins=(user,))
        await ask(bot_api, "/channel @lumen_news")
        await ask(bot_api, "/subscribe lumen")
        assert "Lumen Blog" in await ask(bot_api, "/list")
        bot_api.channels[channel].members[user] = "left"  # no longer one of its administrators
        refused = await ask(bot_api, "/list")
        assert refused.startswith("📢 <b>Lumen News</b>") and "Lumen Blog" not in refused
        documents = len(bot_api.documents)
        await ask(bot_api, "/export")
        assert len(bot_api.documents) == documents  # no OPML file of the channel's feeds
