"""The ranked digest across feeds (issue 46), through PTB and the fake Bot API: `/digest all
daily 08:00 top 2` holds every feed's posts and sends one message at 08:00 in the chat's zone
(not during its quiet hours), the keyword-matching and the widely carried posts first with
their summaries and sources, the rest as links; the operator's model writes the opening
paragraph, refused for the extractive one when it cites a post the digest does not have."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session

from bot.db import store
from bot.services.ranked import run_ranked_digests
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fakes.model_api import KEY, FakeModelApi
from tests.support.fixtures import blog
from tests.support.harness import RunningBot, ask, bot_settings, cycle, posts, running_bot

CHAT = 111
FEEDS = {"lumen": "Lumen Blog", "planet": "Planet Lumen", "news": "Hardware News"}
OLD = blog.Post("old-1", "An older post", "older", datetime(2026, 9, 1, tzinfo=UTC), (), ("Old.",))


def post(slug: str, title: str, *paragraphs: str) -> blog.Post:
    return blog.Post(slug, title, slug, datetime(2026, 9, 8, 9, tzinfo=UTC), ("News",), paragraphs)


STORY = post(
    "corvid-joins",
    "Corvid Labs Joins the Lumen Foundation",
    "Corvid Labs, a maker of accelerator chips, joins the Lumen Foundation as a member.",
)
RACKS = post(
    "oslo-racks",
    "Two New Test Racks in Oslo",
    "The hardware group installs two test racks in Oslo for continuous integration.",
)
MINUTES = post("minutes", "Board Minutes for August", "The board met twice in August.")
NEWSLETTER = post("newsletter", "The September Newsletter", "Events, releases and people.")


@pytest.fixture
def model_api() -> Iterator[FakeModelApi]:
    api = FakeModelApi().start()
    yield api
    api.stop()


async def started(running: RunningBot, api: FakeBotApi, feeds: FeedServer) -> RunningBot:
    for slug, title in FEEDS.items():
        url = feeds.serve(f"/{slug}/feed", blog.rss((OLD,), title=title))
        await running.services.catalog.add_feed(url, slug=slug, trusted=True)
    for slug in FEEDS:
        await ask(api, f"/subscribe {slug}", CHAT)
    await ask(api, "/keywords news racks", CHAT)
    await cycle(running, api)  # the feeds' baselines: nothing sent
    return running


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600)
    async with running_bot(settings) as running:
        yield await started(running, bot_api, feeds)


def publish(feeds: FeedServer) -> None:
    """The story on two feeds, a keyword post on the third, two plain posts on the first."""
    feeds.serve("/lumen/feed", blog.rss((STORY, MINUTES, NEWSLETTER, OLD), title="Lumen Blog"))
    feeds.serve("/planet/feed", blog.rss((STORY, OLD), title="Planet Lumen"))
    feeds.serve("/news/feed", blog.rss((RACKS, OLD), title="Hardware News"))


def at(local: str, zone: str = "UTC") -> datetime:
    """`local` (HH:MM) in `zone`, as UTC, on the day of the next 08:00 there."""
    now = datetime.now(ZoneInfo(zone))
    day = now.date() + timedelta(days=1 if now.hour >= 8 else 0)
    hour, minute = map(int, local.split(":"))
    when = datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(zone))
    return when.astimezone(UTC)


async def digest_at(bot: RunningBot, api: FakeBotApi, moment: datetime) -> int:
    queued = await run_ranked_digests(
        bot.engine, bot.services.poller.enricher.models, lambda: moment
    )
    bot.services.wake.set()

    def drained() -> bool:
        with Session(bot.engine) as session:
            return store.pending_count(session) == 0

    await api.wait_for(drained, timeout=15)
    return queued


def digests(api: FakeBotApi) -> list[str]:
    return [t for t in api.texts(CHAT) if t.startswith("<b>Your digest</b>")]


async def test_one_ranked_digest_for_every_feed_at_eight(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    reply = await ask(bot_api, "/digest all daily 08:00 top 2", CHAT)
    assert "One digest for this chat's 3 feeds, every day at 08:00 (UTC)" in reply
    assert "One ranked digest for every feed, its 2 first (/digest all off)." in await ask(
        bot_api, "/list", CHAT
    )
    publish(feeds)
    await cycle(bot, bot_api)
    assert posts(bot_api, CHAT) == []  # held for the digest
    assert await digest_at(bot, bot_api, at("07:59")) == 0
    assert await digest_at(bot, bot_api, at("08:01")) == 1
    [digest] = digests(bot_api)
    assert digest.startswith("<b>Your digest</b> — 4 stories from 3 feeds")
    first, second = digest.index("[1]</b>"), digest.index("[2]</b>")
    assert RACKS.title in digest[first:second]  # a keyword of the chat
    assert STORY.title in digest[second:]  # carried by two feeds
    assert "<i>Lumen Blog · also in Planet Lumen</i>" in digest or (
        "<i>Planet Lumen · also in Lumen Blog</i>" in digest
    )
    assert RACKS.paragraphs[0] in digest  # the top posts' summaries
    rest = digest[digest.index("<b>Also</b>") :]
    assert MINUTES.title in rest and NEWSLETTER.title in rest
    assert MINUTES.paragraphs[0] not in digest  # the rest: links only
    assert "Top stories: Two New Test Racks in Oslo [1]; Corvid Labs" in digest
    assert await digest_at(bot, bot_api, at("08:05")) == 0  # nothing twice
    assert len(bot_api.texts(CHAT)) == len(set(bot_api.texts(CHAT)))


async def test_the_chats_zone_and_quiet_hours_apply(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/timezone Asia/Tokyo", CHAT)
    await ask(bot_api, "/quiet 07:30-09:00", CHAT)
    assert "08:00 (Asia/Tokyo)" in await ask(bot_api, "/digest all daily 08:00", CHAT)
    publish(feeds)
    await cycle(bot, bot_api)
    assert await digest_at(bot, bot_api, at("07:59", "Asia/Tokyo")) == 0
    assert await digest_at(bot, bot_api, at("08:01", "Asia/Tokyo")) == 0  # quiet until 09:00
    assert await digest_at(bot, bot_api, at("09:00", "Asia/Tokyo")) == 1
    [digest] = digests(bot_api)
    assert digest.index(RACKS.title) < digest.index(MINUTES.title)


async def test_per_feed_digests_keep_working_and_all_off_ends_it(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await ask(bot_api, "/digest all daily 08:00", CHAT)
    assert "every post is sent at once" in await ask(bot_api, "/digest all off", CHAT)
    assert "ranked digest" not in await ask(bot_api, "/list", CHAT)
    await ask(bot_api, "/digest planet hourly", CHAT)
    publish(feeds)
    await cycle(bot, bot_api)
    assert len(posts(bot_api, CHAT)) == 4  # lumen's and news's posts at once, planet held
    assert await digest_at(bot, bot_api, at("08:01")) == 0  # no ranked digest
    assert "Top N takes a number from 1 to 20" in await ask(
        bot_api, "/digest all daily 08:00 top 50", CHAT
    )


@pytest.mark.parametrize(("mode", "model_opening"), [("ok", True), ("inventive", False)])
async def test_the_models_opening_cites_its_posts_or_is_refused(
    db_url: str,
    bot_api: FakeBotApi,
    feeds: FeedServer,
    model_api: FakeModelApi,
    mode: str,
    model_opening: bool,
) -> None:
    model_api.mode = mode
    model = {"model_api_url": model_api.base_url, "model_api_key": KEY, "model_name": "tiny"}
    settings = bot_settings(db_url, bot_api, poll_interval_seconds=3600, **model)
    async with running_bot(settings) as running:
        await started(running, bot_api, feeds)
        await ask(bot_api, "/digest all daily 08:00 top 3", CHAT)
        publish(feeds)
        await cycle(running, bot_api)
        assert await digest_at(running, bot_api, at("08:01")) == 1
    [digest] = digests(bot_api)
    assert len(model_api.of_kind("opening")) == 1
    modelled = f"{RACKS.title} [1]. {STORY.title} [2]."
    assert (modelled in digest) is model_opening
    assert ("Top stories:" in digest) is not model_opening
    assert "Zorblax" not in digest
