"""A chat sees what it has been told (issue 43, items 1 and 2), through PTB and the fake Bot
API, in English, Spanish and Chinese: `/list` shows every rule and setting that differs from
the default, per feed and chat-wide once; every setting command given without a value answers
with the current value and how to change it, with buttons where there are a few choices."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlmodel import Session, select

from bot.core.messages.escape import esc
from bot.db.tables import Subscription
from bot.runtime.i18n import LANGUAGES, translator
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, command, keyboard, lumen_bot, press

CHAT = 111
MODEL = {"model_api_url": "http://127.0.0.1:9/v1", "model_api_key": "k", "model_name": "tiny"}


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS, **MODEL) as running:
        yield running


async def _in(bot_api: FakeBotApi, language: str) -> None:
    await command(bot_api, f"/language {language}", CHAT)
    await command(bot_api, "/subscribe lumen", CHAT)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_list_shows_each_kind_of_rule_and_setting(
    bot: RunningBot, bot_api: FakeBotApi, language: str
) -> None:
    _ = translator(language).gettext
    await _in(bot_api, language)
    assert _("all posts") in await ask(bot_api, "/list")
    steps = [
        ("/filter lumen title:cambricon", _("rules {rules}").format(rules="title:cambricon")),
        (
            '/filter lumen -category:"Press Release"',
            esc(_("rules {rules}").format(rules='-category:"Press Release"')),
        ),
        ("/digest lumen daily 09:12", _("daily digest at {time}").format(time="09:12")),
        ("/digest lumen hourly", _("hourly digest")),
        ("/keywords lumen compiler", _("keywords {keywords}").format(keywords="compiler")),
        ("/format lumen title", _("titles only")),
        ("/summary lumen model", _("model summaries")),
        ("/edits lumen substantive", _("substantive edits only")),
        ("/preview lumen off", _("no previews")),
        ("/silent lumen on", _("silent")),
        (
            "/filter all -author:bot",
            _("Rules for every feed: {rules} (/filter all off).").format(
                rules="<code>-author:bot</code>"
            ),
        ),
        (
            "/timezone Europe/Madrid",
            _("Time zone: {zone} (/timezone).").format(zone="Europe/Madrid"),
        ),
        (
            "/quiet 22:00-07:00",
            _("Quiet hours: {window} (/quiet off).").format(window="22:00-07:00"),
        ),
        ("/translate on", _("Posts in other languages are translated (/translate off).")),
    ]
    for step, shown in steps:
        await command(bot_api, step, CHAT)
        listed = await ask(bot_api, "/list")
        assert shown in listed, (step, listed)
    # Everything at once, the chat-wide ones once, under the feeds.
    assert listed.count("-author:bot") == 1
    assert _("all posts") not in listed  # keywords and rules say what passes
    language_line = _("Language: {language} (/language).").format(language=LANGUAGES[language])
    assert language_line in listed
    for _step, shown in steps[3:]:
        assert shown in listed


@pytest.mark.parametrize("language", ["en", "es", "zh"])
async def test_bare_setting_commands_show_the_current_value(
    bot: RunningBot, bot_api: FakeBotApi, language: str
) -> None:
    tr = translator(language)
    _ = tr.gettext
    await _in(bot_api, language)
    title = "Lumen Blog"
    await command(bot_api, "/format lumen full", CHAT)
    full = _("Messages from <b>{title}</b> now show the whole post, as much as fits.")
    reply = await ask(bot_api, "/format lumen")
    assert full.format(title="Lumen Blog") in reply and "/format" in reply.split("\n\n")[1]
    ((*buttons,),) = keyboard(bot_api, CHAT)
    assert [b["text"] for b in buttons] == ["title", "summary", "✓ full"]
    await press(bot_api, buttons[0]["callback_data"], CHAT)
    with Session(bot.engine) as session:
        assert session.exec(select(Subscription.message_format)).one() == "title"
    edited = bot_api.calls_to("editMessageText")[-1].params
    assert edited["text"].startswith(
        "<code>lumen</code>: "
        + _("Messages from <b>{title}</b> now show the title and source only.").format(
            title="Lumen Blog"
        )
    )
    # Alone, with one subscription: that one's value.
    edits = _("Edit notifications for <b>{title}</b>: every edit (minor ones say so).")
    assert edits.format(title="Lumen Blog") in await ask(bot_api, "/edits")
    image = _("Messages from <b>{title}</b> now show the post's image above the text.")
    assert image.format(title="Lumen Blog") in await ask(bot_api, "/preview lumen")
    loud = _("Messages from <b>{title}</b> now arrive with a notification sound.")
    assert loud.format(title="Lumen Blog") in await ask(bot_api, "/silent")
    extract = _("Messages from <b>{title}</b> now summarise with the post's own sentences.")
    assert extract.format(title="Lumen Blog") in await ask(bot_api, "/summary lumen")
    await command(bot_api, "/keywords lumen compiler", CHAT)
    words = _("Keywords for <b>{title}</b>: {keywords}.").format(title=title, keywords="compiler")
    assert words in await ask(bot_api, "/keywords lumen")
    await command(bot_api, "/filter lumen Blog", CHAT)
    shown = _("Filter for <b>{title}</b>: {filter}.").format(title=title, filter="Blog")
    assert shown in await ask(bot_api, "/filter lumen")
    await command(bot_api, "/digest lumen daily 09:10", CHAT)
    daily = _("Digest for <b>{title}</b>: every day at {time} ({zone}).")
    assert daily.format(title=title, time="09:10", zone="UTC") in await ask(bot_api, "/digest")
    zone = await ask(bot_api, "/timezone")
    assert zone.startswith(_("Time zone: {zone}.").format(zone="UTC")) and "/timezone" in zone
    assert _("Quiet hours off: messages arrive as they come.") in await ask(bot_api, "/quiet")
    await command(bot_api, "/quiet 23:00-06:00", CHAT)
    assert "23:00-06:00" in await ask(bot_api, "/quiet")
    off = await ask(bot_api, "/translate")
    assert off.startswith(_("Translation off: posts arrive in their own language."))
    ((*onoff,),) = keyboard(bot_api, CHAT)
    assert [b["text"] for b in onoff] == ["on", "✓ off"]
    await press(bot_api, onoff[0]["callback_data"], CHAT)
    assert _("Posts in other languages are translated (/translate off).") in await ask(
        bot_api, "/list"
    )


async def test_a_bare_command_lists_every_feed_when_there_are_several(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = feeds.serve("/other/", blog.rss(blog.BEFORE_POSTS))
    await bot.services.catalog.add_feed(url, slug="other", trusted=True)
    await command(bot_api, "/subscribe lumen", CHAT)
    await command(bot_api, "/subscribe other", CHAT)
    await command(bot_api, "/format other title", CHAT)
    reply = await ask(bot_api, "/format")
    assert "<code>lumen</code>: Messages from" in reply and "a summary of the post" in reply
    assert "<code>other</code>: Messages from" in reply and "the title and source only" in reply
    assert "Usage: /format" in reply
    # Looking is for anyone; changing is for admins (a group member presses a button).
    group, member = -100500, 55
    bot_api.set_member(group, 77, "administrator")
    bot_api.set_member(group, member, "member")
    await command(bot_api, "/subscribe lumen", group, user_id=77)
    member_sees = await ask(bot_api, "/edits lumen", group, user_id=member)
    assert "every edit" in member_sees
    ((*buttons,),) = keyboard(bot_api, group)
    answer = await press(bot_api, buttons[2]["callback_data"], group, user_id=member)
    assert answer.get("show_alert")
    with Session(bot.engine) as session:
        modes = session.exec(
            select(Subscription.edit_mode).where(Subscription.chat_id == group)
        ).one()
    assert modes == "all"
