"""Issue 46's five-feed scenario through PTB and the fake Bot API: three fresh chats follow the
same five feeds (a foundation's WordPress RSS, a member's Atom blog, a news site with tracking
links and "appeared first on" lines, GitHub's releases Atom, a Planet republishing entries;
`fixtures/five_feeds.py`) that share three stories over four polls, arriving in different
orders; the last one days after the first message.

- `/duplicates fold` (the default; subscribed by address and by a pasted link): one message
  per story, its "Also in" line edited in place to name every other feed; the translated post
  and the two "This Week in Lumen" posts are each sent; an edit of a folded story is one
  "Updated:" reply to the story's one message.
- `/duplicates show`: the same first messages, each repeat as a quiet reply to its story's.
- `/digest all daily 08:00 top 4`, Tokyo, quiet 07:30–09:00: nothing until 09:00 there, then
  one message listing each story once with its sources, the keyword's and the widely carried
  stories first."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from bot.db import store
from bot.db.tables import Story
from bot.services.quiet import release_quiet
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import five_feeds as five
from tests.support.fixtures.five_feeds import (
    BUDGET,
    FOUNDATION,
    MEMBER,
    MEMBER_COPY,
    NEWS,
    NEWS_COPY,
    PLANET,
    PRESS,
    RACKS,
    RACKS_FOUNDATION,
    RELEASE_320,
    RELEASES,
    SPANISH,
    WEEKLY,
    WEEKLY_NEWS,
    World,
)
from tests.support.harness import (
    RunningBot,
    answer,
    ask,
    bot_settings,
    cycle,
    posts,
    press,
    running_bot,
)
from tests.telegram.test_quiet_hours import window_around_now
from tests.telegram.test_ranked_digest import at, digest_at

FOLD, SHOW, DIGEST, QUIET = 111, 222, 333, 444
ZONE = "Asia/Shanghai"
EDITED = replace(
    PRESS, paragraphs=(*PRESS.paragraphs, "Corvid Labs will also host the 2027 summit.")
)
WORLDS = (
    # poll 1: the press release on the foundation's blog and the planet, a translation of it,
    # a release on GitHub
    World(
        foundation=(SPANISH, PRESS),
        releases=(RELEASE_320,),
        planet=((FOUNDATION, PRESS),),
    ),
    # poll 2: the member's and the news site's copies of the release; the planet republishes
    # the GitHub release; a story starts on the news site; the foundation's weekly post
    World(
        foundation=(WEEKLY, SPANISH, PRESS),
        member=(MEMBER_COPY,),
        news=(RACKS, NEWS_COPY),
        releases=(RELEASE_320,),
        planet=(("GitHub", RELEASE_320), (FOUNDATION, PRESS)),
    ),
    # poll 3: the news site's story on the foundation's blog too, a budget post, the news
    # site's own "This Week in Lumen"; the press release edited, on the planet as well
    World(
        foundation=(BUDGET, RACKS_FOUNDATION, WEEKLY, SPANISH, EDITED),
        member=(MEMBER_COPY,),
        news=(WEEKLY_NEWS, RACKS, NEWS_COPY),
        releases=(RELEASE_320,),
        planet=(("GitHub", RELEASE_320), (FOUNDATION, EDITED)),
    ),
)
# poll 4, two days later: the planet republishes the news site's story
LATE = replace(WORLDS[2], planet=((NEWS, RACKS), ("GitHub", RELEASE_320), (FOUNDATION, EDITED)))
STORIES = {  # each story's title as the first message may show it → the feeds carrying it
    PRESS.title: {FOUNDATION, PLANET, MEMBER, NEWS},
    RELEASE_320.title: {RELEASES, PLANET},
    RACKS.title: {NEWS, FOUNDATION, PLANET},
}
ALONE = (SPANISH.title, BUDGET.title)  # and the two "This Week in Lumen" (one title)
MESSAGES = len(STORIES) + len(ALONE) + 2


def serve(feeds: FeedServer, world: World) -> None:
    for title, body in world.bodies().items():
        feeds.serve(five.PATHS[title], body)


async def subscribe_by_address(api: FakeBotApi, feeds: FeedServer) -> None:
    """FOLD subscribes as a new user would: four `/subscribe URL`, one link pasted alone."""
    for title in (FOUNDATION, MEMBER, NEWS, RELEASES):
        reply = await answer(api, f"/subscribe {feeds.url(five.PATHS[title])}", FOLD)
        assert f"Subscribed to <b>{title}</b>" in reply, reply
    reply = await answer(api, feeds.url(five.PATHS[PLANET]), FOLD)
    assert reply == f"Found the feed <b>{PLANET}</b> at this address."
    markup = api.sent[-1].params["reply_markup"]["inline_keyboard"]
    before = len(api.texts(FOLD))
    await press(api, markup[0][0]["callback_data"], chat_id=FOLD)
    await api.wait_for(lambda: any("Subscribed" in t for t in api.shown(FOLD)[before:]))


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    settings = bot_settings(
        db_url, bot_api, poll_interval_seconds=3600, allow_private_feed_urls=True
    )
    serve(feeds, World())
    async with running_bot(settings) as running:
        await subscribe_by_address(bot_api, feeds)
        with Session(running.engine) as session:
            slugs = {row.feed.title: row.feed.slug for row in store.list_feeds(session)}
        assert set(slugs) == set(five.TITLES)
        for chat in (SHOW, DIGEST):
            for slug in slugs.values():
                assert "Subscribed" in await ask(bot_api, f"/subscribe {slug}", chat)
        assert "quiet reply" in await ask(bot_api, "/duplicates show", SHOW)
        await ask(bot_api, "/timezone Asia/Tokyo", DIGEST)
        await ask(bot_api, "/quiet 07:30-09:00", DIGEST)
        await ask(bot_api, f"/keywords {slugs[MEMBER]} racks", DIGEST)
        reply = await ask(bot_api, "/digest all daily 08:00 top 4", DIGEST)
        assert "One digest for this chat's 5 feeds, every day at 08:00 (Asia/Tokyo)" in reply
        await cycle(running, bot_api)
        assert [posts(bot_api, c) for c in (FOLD, SHOW, DIGEST)] == [[], [], []]
        yield running


def new_posts(api: FakeBotApi, chat: int) -> list[str]:
    """The chat's new-post messages as it sees them now (edits applied)."""
    return [t for t in api.shown(chat) if t.startswith("<b><a href")]


def also(message: str) -> set[str]:
    if "\n\n<i>Also in: " not in message:
        return set()
    line = message.rsplit("\n\n<i>Also in: ", 1)[1]
    assert line.endswith("</i>"), message  # the last line of the message
    return set(line.removesuffix("</i>").split(", "))


def source(message: str) -> str:
    """The feed a post's message names under its title."""
    return next(title for title in five.TITLES if title in message.split("\n")[1])


def about(messages: list[str], title: str) -> list[str]:
    return [m for m in messages if f">{title}</a>" in m.split("\n", 1)[0] or title in m[:300]]


async def run_polls(bot: RunningBot, api: FakeBotApi, feeds: FeedServer) -> None:
    for world in WORLDS:
        serve(feeds, world)
        await cycle(bot, api)
    with Session(bot.engine) as session:  # the messages so far were sent two days ago
        for story in session.exec(select(Story)).all():
            story.created_at -= timedelta(days=2)
            session.add(story)
        session.commit()
    serve(feeds, LATE)
    await cycle(bot, api)


async def test_five_feeds_one_message_per_story(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await run_polls(bot, bot_api, feeds)
    messages = new_posts(bot_api, FOLD)
    for title, carriers in STORIES.items():
        [message] = [m for m in messages if title in m.split("\n", 1)[0]]
        first = source(message)
        assert also(message) == carriers - {first}, message
    for title in ALONE:
        [message] = [m for m in messages if f"{title}</a>" in m.split("\n", 1)[0]]
        assert also(message) == set(), message
    weekly = [m for m in messages if f"{WEEKLY.title}</a>" in m.split("\n", 1)[0]]
    assert sorted(map(source, weekly)) == sorted([FOUNDATION, NEWS])
    assert len(messages) == MESSAGES, messages
    updates = [t for t in bot_api.texts(FOLD) if t.startswith("<b>Updated:")]
    assert len(updates) == 1, updates
    assert "2027 summit" in updates[0]


async def test_five_feeds_show_mode_quiet_replies(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await run_polls(bot, bot_api, feeds)
    with bot_api.lock:
        sent = [s for s in bot_api.sent if s.chat_id == SHOW and s.text.startswith("<b><a href")]
    firsts = [s for s in sent if "reply_parameters" not in s.params]
    replies = [s for s in sent if "reply_parameters" in s.params]
    assert len(firsts) == MESSAGES, [s.text[:80] for s in firsts]
    repeats = sum(len(c) - 1 for c in STORIES.values())
    assert len(replies) == repeats, [s.text[:80] for s in replies]
    by_id = {s.message_id: s for s in firsts}
    for reply in replies:
        assert reply.params.get("disable_notification") is True
        original = by_id[reply.params["reply_parameters"]["message_id"]]
        assert source(reply.text) != source(original.text)
    assert not [c for c in bot_api.calls_to("editMessageText") if c.params["chat_id"] == SHOW]


async def test_five_feeds_ranked_digest(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    await run_polls(bot, bot_api, feeds)
    assert posts(bot_api, DIGEST) == []
    assert await digest_at(bot, bot_api, at("07:59", "Asia/Tokyo")) == 0
    assert await digest_at(bot, bot_api, at("08:01", "Asia/Tokyo")) == 0  # quiet until 09:00
    assert await digest_at(bot, bot_api, at("09:00", "Asia/Tokyo")) == 1
    [digest] = [t for t in bot_api.texts(DIGEST) if t.startswith("<b>Your digest</b>")]
    assert digest.startswith(f"<b>Your digest</b> — {MESSAGES} stories from 5 feeds"), digest
    numbered = [digest.index(f"<b>[{n}]</b>") for n in range(1, 5)]
    parts = [
        digest[a:b]
        for a, b in zip(numbered, [*numbered[1:], digest.index("<b>Also</b>")], strict=True)
    ]
    # the press release (a keyword, four feeds), the racks (a keyword, three feeds), the
    # budget (a keyword), the release (two feeds); each with all its sources; then the rest
    expected = (STORIES[PRESS.title], STORIES[RACKS.title], {FOUNDATION}, STORIES["v3.2.0"])
    for part, carriers in zip(parts, expected, strict=True):
        line = part.split("\n")[1]
        assert {f for f in five.TITLES if f in line} == carriers, line
    assert BUDGET.title in parts[2]
    # a story is told by the period's first copy: GitHub's release, not the planet's
    assert f'<a href="{RELEASE_320.link}">v3.2.0</a>' in parts[3]
    assert parts[3].split("\n")[1].startswith(f"<i>{RELEASES} · also in {PLANET}")
    rest = digest[digest.index("<b>Also</b>") :]
    assert SPANISH.title in rest
    weeklies = [line for line in rest.split("\n") if f">{WEEKLY.title}</a>" in line]
    assert sorted(w.rsplit(" — ", 1)[1] for w in weeklies) == [NEWS, FOUNDATION]
    for title in (*STORIES, *ALONE):
        assert digest.count(f">{title}</a>") <= 1
    assert await digest_at(bot, bot_api, at("09:05", "Asia/Tokyo")) == 0


async def test_five_feeds_after_quiet_hours(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    """Held overnight: three stories (one from two feeds) go as they were, the repeat folded;
    a longer night's per-feed digests list each story once, under the feed that had it
    first, with the others named; copies of a story told the night before fold into its
    message."""
    window, ends = window_around_now()
    with Session(bot.engine) as session:
        slugs = [row.feed.slug for row in store.list_feeds(session)]
    for slug in slugs:
        await ask(bot_api, f"/subscribe {slug}", QUIET)
    await ask(bot_api, f"/timezone {ZONE}", QUIET)
    await ask(bot_api, f"/quiet {window}", QUIET)
    serve(feeds, WORLDS[0])
    await cycle(bot, bot_api)
    assert posts(bot_api, QUIET) == []
    assert release_quiet(bot.engine, clock=lambda: ends) == 4  # four posts, three stories
    await cycle(bot, bot_api)
    messages = new_posts(bot_api, QUIET)
    assert len(messages) == 3, messages
    [press_message] = [m for m in messages if PRESS.title in m.split("\n", 1)[0]]
    assert also(press_message) == {FOUNDATION, PLANET} - {source(press_message)}
    await ask(bot_api, f"/quiet {window}", QUIET)
    for world in (*WORLDS[1:], LATE):
        serve(feeds, world)
        await cycle(bot, bot_api)
    before = len(bot_api.texts(QUIET))
    assert release_quiet(bot.engine, clock=lambda: ends) > 0
    await cycle(bot, bot_api)
    digests = [t for t in bot_api.texts(QUIET)[before:] if t.startswith("<b>Digest: ")]
    listed = "\n".join(digests)
    for title in (RACKS.title, WEEKLY_NEWS.title, BUDGET.title):
        assert listed.count(f">{title}</a>") == (2 if title == WEEKLY.title else 1), listed
    assert NEWS_COPY.title not in listed and MEMBER_COPY.title not in listed  # told already
    assert "<i>Also in: Lumen Foundation, Planet Lumen</i>" in listed
    assert listed.count("Updated: ") == 1  # the edit both copies carry, once
    # the member's and the news site's copies of the release told in the first night: added
    # to its message's "Also in" line, not sent again
    messages = new_posts(bot_api, QUIET)
    assert len(messages) == 3, messages
    [press_message] = [m for m in messages if PRESS.title in m.split("\n", 1)[0]]
    assert also(press_message) == STORIES[PRESS.title] - {source(press_message)}
