"""Texts a newcomer reads (issue 43, item 7), through PTB and the fake Bot API in English,
Spanish and Chinese: a channel managed from a private chat is named where its posts will
appear, /export's caption is localised and pluralised, /digest takes its words in every
language, one item is "1 item", the Spanish /help line on pasted links, the model's commands
are hidden without a model, and a post of the last day shows its time in the chat's zone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.runtime.i18n import translator
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, command, cycle, lumen_bot, posts

USER, CHANNEL = 111, -1005001
LANGUAGES = ["en", "es", "zh"]


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS) as running:
        yield running


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_managed_channel_is_where_the_posts_will_appear(
    bot: RunningBot, bot_api: FakeBotApi, language: str
) -> None:
    _ = translator(language).gettext
    bot_api.add_channel(CHANNEL, "Lumen News", username="lumen_news", admins=(USER,))
    await command(bot_api, "/channel @lumen_news", USER)
    await command(bot_api, f"/language {language}", USER)  # the channel's language
    reply = await ask(bot_api, "/subscribe lumen", USER)
    said = _(
        "Subscribed to <b>{title}</b>. New posts and real edits will appear in the channel "
        "<b>{channel}</b>.\nNarrow it down with <code>/filter {slug} CATEGORY</code> "
        "(see <code>/categories {slug}</code>)."
    )
    assert said.format(title="Lumen Blog", channel="Lumen News", slug="lumen") in reply
    here = _("Subscribed to <b>{title}</b>. New posts and real edits will appear here.\n")
    assert here.split("{title}")[1].split(".")[1] not in reply  # not "here"
    # /export of the channel's subscriptions: captioned in the channel's language, its name first.
    bot_api.push_command("/export", chat_id=USER, user_id=USER)
    await bot_api.wait_for(lambda: bool(bot_api.calls_to("sendDocument")))
    caption = bot_api.calls_to("sendDocument")[-1].params["caption"]
    one = translator(language).ngettext(
        "This chat's subscriptions: {count} feed, as an OPML file.",
        "This chat's subscriptions: {count} feeds, as an OPML file.",
        1,
    )
    assert caption == "📢 <b>Lumen News</b>\n" + one.format(count=1)
    if language != "en":
        assert "feed, as" not in caption  # not English


async def test_the_export_caption_counts_in_the_chat_s_language(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = feeds.serve("/other/", blog.rss(blog.BEFORE_POSTS))
    await bot.services.catalog.add_feed(url, slug="other", trusted=True)
    await command(bot_api, "/language es", USER)
    await command(bot_api, "/subscribe lumen", USER)
    await command(bot_api, "/subscribe other", USER)
    bot_api.push_command("/export", chat_id=USER, user_id=USER)
    await bot_api.wait_for(lambda: bool(bot_api.calls_to("sendDocument")))
    caption = bot_api.calls_to("sendDocument")[-1].params["caption"]
    assert caption == "Suscripciones de este chat: 2 fuentes, en un archivo OPML."


@pytest.mark.parametrize(
    ("language", "typed", "shown"),
    [
        ("en", "daily 9:10", "09:10"),
        ("es", "diario 9:10", "09:10"),
        ("zh", "每天 9:10", "09:10"),
        ("zh", "每天9：10", "09:10"),
        ("es", "cada hora", None),
        ("zh", "每小时", None),
    ],
)
async def test_digest_words_are_read_in_every_language(
    bot: RunningBot, bot_api: FakeBotApi, language: str, typed: str, shown: str | None
) -> None:
    _ = translator(language).gettext
    await command(bot_api, f"/language {language}", USER)
    await command(bot_api, "/subscribe lumen", USER)
    reply = await ask(bot_api, f"/digest lumen {typed}", USER)
    if shown is None:
        assert reply == _("Digest for <b>{title}</b>: every hour.").format(title="Lumen Blog")
    else:
        daily = _("Digest for <b>{title}</b>: every day at {time} ({zone}).")
        assert reply == daily.format(title="Lumen Blog", time=shown, zone="UTC")
    off = await ask(bot_api, "/digest lumen " + {"en": "off", "es": "off", "zh": "关闭"}[language])
    assert off == _("Digest for <b>{title}</b>: off, every post is sent at once.").format(
        title="Lumen Blog"
    )


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", ("hourly", "daily")), ("es", ("cada hora", "diario")), ("zh", ("每小时", "每天"))],
)
async def test_a_refused_digest_names_the_words(
    bot: RunningBot, bot_api: FakeBotApi, language: str, words: tuple[str, str]
) -> None:
    await command(bot_api, f"/language {language}", USER)
    await command(bot_api, "/subscribe lumen", USER)
    refused = await ask(bot_api, "/digest lumen weekly", USER)
    assert all(word in refused for word in words)


async def test_the_spanish_help_line_on_pasted_links(bot: RunningBot, bot_api: FakeBotApi) -> None:
    await command(bot_api, "/language es", USER)
    shown = await ask(bot_api, "/help", USER)
    assert "Si envías aquí un enlace, sin nada más, te ofrezco suscribirte a su feed." in shown
    assert "solo se ofrece" not in shown


@pytest.mark.parametrize("language", LANGUAGES)
async def test_without_a_model_summary_and_translate_are_not_offered(
    bot: RunningBot, bot_api: FakeBotApi, language: str
) -> None:
    await command(bot_api, f"/language {language}", USER)
    shown = await ask(bot_api, "/help", USER)
    assert "/summary" not in shown and "/translate" not in shown and "/digest" in shown
    for menu in bot_api.calls_to("setMyCommands"):
        names = {c["command"] for c in menu.params["commands"]}
        assert "digest" in names and not names & {"summary", "translate"}


async def test_with_a_model_they_are(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> None:
    model = {"model_api_url": "http://127.0.0.1:9/v1", "model_api_key": "k", "model_name": "m"}
    async with lumen_bot(db_url, bot_api, feeds, blog.BEFORE_POSTS, **model):
        shown = await ask(bot_api, "/help", USER)
        assert "/summary" in shown and "/translate" in shown
        (menu, *_) = bot_api.calls_to("setMyCommands")
        assert {"summary", "translate"} <= {c["command"] for c in menu.params["commands"]}


@pytest.mark.parametrize(
    ("language", "zone"),
    [("en", "America/Los_Angeles"), ("es", "Europe/Madrid"), ("zh", "Asia/Shanghai")],
)
async def test_a_post_of_the_last_day_shows_its_time_in_the_chat_s_zone(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, language: str, zone: str
) -> None:
    tr = translator(language)
    await command(bot_api, f"/language {language}", USER)
    await command(bot_api, f"/timezone {zone}", USER)
    await command(bot_api, "/subscribe lumen", USER)
    now = datetime.now(UTC).replace(microsecond=0)
    fresh = replace(blog.CORVID, published=now - timedelta(hours=3))
    old = replace(blog.PUNE, published=now - timedelta(days=3))
    feeds.serve("/feed/", blog.rss((fresh, old, *blog.BEFORE_POSTS)))
    await cycle(bot, bot_api)
    got = {blog.CORVID.title: "", blog.PUNE.title: ""}
    for text in posts(bot_api, USER):
        for title in got:
            if title in text:
                got[title] = text
    local = (now - timedelta(hours=3)).astimezone(ZoneInfo(zone))
    assert f"{tr.format_date(local)} {local:%H:%M}" in got[blog.CORVID.title]
    older = (now - timedelta(days=3)).astimezone(ZoneInfo(zone))
    assert tr.format_date(older) in got[blog.PUNE.title]
    assert f"{tr.format_date(older)} {older:%H:%M}" not in got[blog.PUNE.title]  # date only


async def test_a_digest_s_log_line_counts_what_its_message_lists(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 43, item 9: a post new and then edited in one period is one line of the digest
    (two held rows): the log said 4 posts while the message listed 3."""
    from bot.services.digests import run_digests

    await command(bot_api, "/subscribe lumen", USER)
    await command(bot_api, "/digest lumen hourly", USER)
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    await cycle(bot, bot_api)
    longer = (*blog.CORVID.paragraphs, "It also joins the compiler working group as of today.")
    edited = tuple(
        replace(p, paragraphs=longer) if p is blog.CORVID else p for p in blog.AFTER_POSTS
    )
    feeds.serve("/feed/", blog.rss(edited))
    await cycle(bot, bot_api)
    later = datetime.now(UTC) + timedelta(hours=1, minutes=1)
    with caplog.at_level("INFO", logger="bot.services.digests"):
        assert run_digests(bot.engine, clock=lambda: later) == 1
    bot.services.wake.set()
    await bot_api.wait_for(lambda: any(t.startswith("<b>Digest:") for t in bot_api.texts(USER)))
    (digest,) = [t for t in bot_api.texts(USER) if t.startswith("<b>Digest:")]
    assert digest.startswith("<b>Digest: Lumen Blog</b> — 3 posts")
    assert f"chat {USER}: digest of 3 posts queued" in caplog.text
