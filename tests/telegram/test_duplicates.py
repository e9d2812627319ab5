"""One story, one message (issue 46), through PTB and the fake Bot API: the same story from two
of a chat's feeds is one message whose "Also in" line names the other feed (edited in place),
also when the copy has its own link but the same title and opening; a third feed is added to
the line; `/duplicates show` sends the repeat as a quiet reply; a deleted first message means
the repeat is sent as usual; two posts with one title and different openings are two."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, bot_settings, cycle, posts, running_bot

CHAT = 111
OLD = blog.Post(
    "old-1", "An older post", "older-post", datetime(2026, 9, 1, tzinfo=UTC), (), ("Old text.",)
)
RELEASE = (
    "Corvid Labs, a maker of accelerator chips for training and inference, joins the Lumen "
    "Foundation as a Platinum member.",
    "It will help steer the hardware working group and fund continuous integration for new "
    "back ends, starting with two test racks in Oslo this autumn.",
)
STORY = blog.Post(
    "corvid-1",
    "Corvid Labs Joins the Lumen Foundation as a Platinum Member",
    "corvid-labs-joins",
    datetime(2026, 9, 8, 9, tzinfo=UTC),
    ("Announcements",),
    RELEASE,
)
FEEDS = {"lumen": "Lumen Blog", "planet": "Planet Lumen", "news": "Hardware News"}


def serve(feeds: FeedServer, slug: str, *extra: blog.Post) -> str:
    return feeds.serve(f"/{slug}/feed", blog.rss((*extra, OLD), title=FEEDS[slug]))


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        for slug in FEEDS:
            url = serve(feeds, slug)
            await running.services.catalog.add_feed(url, slug=slug, trusted=True)
        for slug in FEEDS:
            await ask(bot_api, f"/subscribe {slug}", CHAT)
        await cycle(running, bot_api)  # the feeds' baselines: nothing sent
        assert posts(bot_api, CHAT) == []
        yield running


def shown_posts(api: FakeBotApi) -> list[str]:
    return [t for t in api.shown(CHAT) if t.startswith("<b><a href")]


def copies() -> tuple[blog.Post, blog.Post]:
    """The planet's copy links to the post with tracking parameters (same link); the news
    site's has its own link, a shorter title and "The post … appeared first on …" after it."""
    planet = replace(STORY, guid="planet-corvid")
    news = replace(
        STORY,
        guid="news-corvid",
        slug="2026/09/corvid-joins-lumen",
        title="Corvid Labs joins Lumen Foundation as Platinum member",
        paragraphs=(*RELEASE, "The post Corvid Labs joins appeared first on Lumen Blog."),
    )
    return planet, news


async def test_one_story_from_three_feeds_is_one_message(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    planet, news = copies()
    serve(feeds, "lumen", STORY)
    serve(feeds, "planet", planet)
    await cycle(bot, bot_api)
    [message] = shown_posts(bot_api)
    first = "Planet Lumen" if "Lumen Blog" in message.split("\n")[1] else "Lumen Blog"
    assert message.endswith(f"\n\n<i>Also in: {first}</i>"), message
    assert len(bot_api.calls_to("editMessageText")) == 1
    serve(feeds, "news", news)
    await cycle(bot, bot_api)
    [message] = shown_posts(bot_api)
    assert message.endswith(f"\n\n<i>Also in: {first}, Hardware News</i>"), message
    assert len(posts(bot_api, CHAT)) == 1
    # the edit kept the post's preview and its "Follow changes" button
    edit = bot_api.calls_to("editMessageText")[-1].params
    assert edit["reply_markup"]["inline_keyboard"][0][0]["callback_data"].startswith("follow")
    assert "link_preview_options" in edit


async def test_show_sends_the_repeat_as_a_quiet_reply(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    reply = await ask(bot_api, "/duplicates show", CHAT)
    assert "quiet reply" in reply
    serve(feeds, "lumen", STORY)
    await cycle(bot, bot_api)
    first = bot_api.sent[-1]
    serve(feeds, "news", copies()[1])
    await cycle(bot, bot_api)
    repeat = bot_api.sent[-1]
    assert repeat.text.startswith("<b><a href") and "Hardware News" in repeat.text
    assert repeat.params["reply_parameters"]["message_id"] == first.message_id
    assert repeat.params.get("disable_notification") is True
    assert bot_api.calls_to("editMessageText") == []
    assert "quiet reply" in await ask(bot_api, "/duplicates", CHAT)
    assert "quiet replies (/duplicates fold)" in await ask(bot_api, "/list", CHAT)


async def test_a_deleted_first_message_means_the_repeat_is_sent(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    serve(feeds, "lumen", STORY)
    await cycle(bot, bot_api)
    first = bot_api.sent[-1]
    bot_api.delete_message(CHAT, first.message_id)
    serve(feeds, "planet", copies()[0])
    await cycle(bot, bot_api)
    assert len(posts(bot_api, CHAT)) == 2
    assert "Planet Lumen" in posts(bot_api, CHAT)[1]


async def test_same_title_other_story_is_two_messages(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    weekly = blog.Post(
        "w-41",
        "This Week in Lumen",
        "this-week-41",
        datetime(2026, 9, 8, tzinfo=UTC),
        (),
        ("Hello and welcome to another issue. The scheduler now retries failed shards twice, "
         "the docs moved to a new theme, and three people made a first contribution.",),
    )  # fmt: skip
    other = replace(
        weekly,
        guid="w-40",
        slug="twil-40",
        paragraphs=("Hello and welcome to another issue. The release candidate for 3.2 is out, "
                    "the dashboard shows memory per test and the forum has a hardware corner.",),
    )  # fmt: skip
    serve(feeds, "lumen", weekly)
    serve(feeds, "news", other)
    await cycle(bot, bot_api)
    assert len(posts(bot_api, CHAT)) == 2
    assert bot_api.calls_to("editMessageText") == []


async def test_five_feeds_carrying_one_story_in_one_poll_are_one_message(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Five feeds, two stories each carried by all five in the same poll (one delivery
    batch): two messages, each naming the four other feeds; a story only one feed has is its
    own message."""
    names = ["Lumen Blog", "Planet Lumen", "Hardware News", "Corvid Blog", "Chip Weekly"]
    other = replace(
        STORY,
        guid="oslo",
        slug="oslo-racks",
        title="Two test racks open in Oslo for every back end",
        paragraphs=("The foundation opened two test racks in Oslo; every back end now runs "
                    "its nightly suite there, and members can book time for their own chips.",),
    )  # fmt: skip
    alone = replace(STORY, guid="solo", slug="solo", title="A post only one feed has",
                    paragraphs=("Nobody else wrote about this small change to the docs site.",))  # fmt: skip
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as bot:
        for n, name in enumerate(names):
            url = feeds.serve(f"/f{n}/feed", blog.rss((OLD,), title=name))
            await bot.services.catalog.add_feed(url, slug=f"f{n}", trusted=True)
            await ask(bot_api, f"/subscribe f{n}", CHAT)
        await cycle(bot, bot_api)
        for n, name in enumerate(names):
            copies = (
                replace(STORY, guid=f"s{n}", slug=f"{STORY.slug}" if n < 2 else f"copy-{n}"),
                replace(other, guid=f"o{n}"),
                *((alone,) if n == 3 else ()),
            )
            feeds.serve(f"/f{n}/feed", blog.rss((*copies, OLD), title=name))
        await cycle(bot, bot_api)
        messages = shown_posts(bot_api)
        assert len(messages) == 3, messages
        for message in messages:
            if "only one feed" in message:
                assert "Also in" not in message
                continue
            source = message.split("\n")[1]
            also = message.rsplit("Also in: ", 1)[1].removesuffix("</i>").split(", ")
            assert sorted(also) == sorted(n for n in names if n not in source), message
