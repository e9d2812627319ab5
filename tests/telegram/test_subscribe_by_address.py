"""Subscribe by address, through PTB and the fake Bot API: a feed's URL, a blog's homepage (one
feed, several, none announced), a link pasted alone, FEED_ADDING and the limits."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlmodel import Session

from bot.db import store
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer, redirect
from tests.support.fixtures import blog
from tests.support.harness import HTML, OPERATOR_ID, RunningBot, answer, lumen_bot, page, press

USER = 111
STRANGER = 222


@pytest.fixture
async def bot(db_url: str, bot_api: FakeBotApi, feeds: FeedServer) -> AsyncIterator[RunningBot]:
    async with lumen_bot(
        db_url, bot_api, feeds, blog.BEFORE_POSTS, allow_private_feed_urls=True
    ) as running:
        yield running


def last_keyboard(api: FakeBotApi, chat_id: int = USER) -> list[list[dict[str, str]]]:
    with api.lock:
        sent = [s for s in api.sent if s.chat_id == chat_id]
    markup = sent[-1].params.get("reply_markup") or {}
    return list(markup.get("inline_keyboard", []))


def feed_rows(bot: RunningBot) -> dict[str, store.FeedView]:
    with Session(bot.engine) as session:
        return {row.feed.slug: row.feed for row in store.list_feeds(session)}


def subscribed(bot: RunningBot, chat_id: int = USER) -> set[str]:
    with Session(bot.engine) as session:
        return {feed.slug for _, feed in store.chat_subscriptions(session, chat_id=chat_id)}


async def test_a_feed_url_is_watched_and_subscribed(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = feeds.serve("/other/feed/", blog.rss((blog.PUNE,), title="Other Blog"))
    reply = await answer(bot_api, f"/subscribe {url}")
    assert "Now watching <b>Other Blog</b> under the feed name <code>other-blog</code>" in reply
    assert "Subscribed to <b>Other Blog</b>" in reply
    assert [b["text"] for (b,) in last_keyboard(bot_api)] == ["Only new posts", "Also the latest 3"]
    assert feed_rows(bot)["other-blog"].added_by == USER
    assert not feed_rows(bot)["other-blog"].trusted  # polled through the SSRF guard
    assert subscribed(bot) == {"other-blog"}
    # The first poll stays silent: a baseline, no message about its existing post.
    assert not any("Pune" in text for text in bot_api.texts(USER))


async def test_a_watched_feed_is_found_by_its_address_without_fetching_it(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    fetched = len(feeds.hits("/feed/"))
    address = feeds.url("/feed").replace("http://", "")  # no scheme, no trailing slash
    reply = await answer(bot_api, f"/subscribe {address}")
    assert "Subscribed to <b>Lumen Blog</b>" in reply and "Now watching" not in reply
    assert len(feeds.hits("/feed/")) == fetched
    assert set(feed_rows(bot)) == {"lumen"}


async def test_an_address_redirecting_to_a_watched_feed(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    old = feeds.behave("/old-feed.xml", redirect(301, feeds.url("/feed/")))
    reply = await answer(bot_api, f"/subscribe {old}")
    assert "Subscribed to <b>Lumen Blog</b>" in reply and "Now watching" not in reply
    assert set(feed_rows(bot)) == {"lumen"}  # the same feed, not a second copy


async def test_a_homepage_with_one_feed_and_its_comments_feed(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    feeds.serve("/site/feed/", blog.rss((blog.PUNE,), title="Site Blog"))
    feeds.serve("/site/comments/feed/", blog.rss((blog.CORVID,), title="Comments on Site"))
    home = feeds.serve(
        "/site/",
        page(
            ("application/rss+xml", "/site/feed/", "Site » Feed"),
            ("application/rss+xml", "/site/comments/feed/", "Site » Comments Feed"),
        ),
        **HTML,
    )
    reply = await answer(bot_api, f"/subscribe {home}")
    assert "Now watching <b>Site Blog</b>" in reply and "Subscribed" in reply
    assert feeds.hits("/site/comments/feed/") == []  # a blog's comments are not its posts


async def test_a_homepage_with_several_feeds_offers_a_button_each(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    feeds.serve("/multi/posts.xml", blog.rss((blog.PUNE,), title="Multi Posts"))
    feeds.serve("/multi/news.atom", blog.rss((blog.CORVID,), title="Multi News"))
    home = feeds.serve(
        "/multi/",
        page(
            ("application/rss+xml", "posts.xml", "Posts"),
            ("application/atom+xml", "news.atom", "News"),
            ("application/rss+xml", feeds.url("/feed/"), "Lumen"),  # watched already
        ),
        **HTML,
    )
    reply = await answer(bot_api, f"/subscribe {home}")
    assert "This page links to 3 feeds. Which one?" in reply
    buttons = [b for (b,) in last_keyboard(bot_api)]
    assert [b["text"] for b in buttons] == ["＋ Multi Posts", "＋ Multi News", "＋ Lumen Blog"]
    assert buttons[2]["callback_data"] == f"sub:{feed_rows(bot)['lumen'].id}"
    assert set(feed_rows(bot)) == {"lumen"}  # nothing is added before a choice
    before = len(bot_api.texts(USER))
    await press(bot_api, buttons[1]["callback_data"], chat_id=USER)
    await bot_api.wait_for(lambda: any("Subscribed" in t for t in bot_api.shown(USER)[before:]))
    assert subscribed(bot) == {"multi-news"}
    assert feed_rows(bot)["multi-news"].added_by == USER
    # A forged token, or one from before a restart, is an expired button.
    answered = await press(bot_api, "add:0badc0de:0", chat_id=USER)
    assert answered["text"] == "This button has expired. Use the command again."


async def test_a_homepage_without_feed_links_is_probed_on_common_paths(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    feeds.serve("/hugo/index.xml", blog.rss((blog.PUNE,), title="Hugo Site"))
    home = feeds.serve("/hugo/", page(), **HTML)
    reply = await answer(bot_api, f"/subscribe {home}")
    assert "Now watching <b>Hugo Site</b>" in reply
    assert feeds.hits("/hugo/feed/") and feeds.hits("/hugo/rss.xml")  # tried before it
    assert not feeds.hits("/hugo/feed.xml")  # and stopped at the first feed found

    other_site = FeedServer().start()  # a site with no feed anywhere
    try:
        nothing = other_site.serve("/plain/", page(), **HTML)
        reply = await answer(bot_api, f"/subscribe {nothing}")
        assert reply == "This address is not a feed, and the page links to none."
        probed = {seen.path for seen in other_site.requests}
        assert {"/plain/feed/", "/feed/", "/index.xml", "/feed.json"} <= probed
    finally:
        other_site.stop()
    reply = await answer(bot_api, f"/subscribe {feeds.url('/missing/')}")
    assert reply == "Could not load that address. Check it in a browser, or try again later."
    assert "Exception" not in reply and "404" not in reply


async def test_a_link_pasted_alone_gets_an_offer(
    bot: RunningBot, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    url = feeds.serve("/pasted/feed/", blog.rss((blog.PUNE,), title="Pasted Blog"))
    reply = await answer(bot_api, url)
    assert reply == "Found the feed <b>Pasted Blog</b> at this address."
    ((button,),) = last_keyboard(bot_api)
    assert button["text"] == "Subscribe"
    assert set(feed_rows(bot)) == {"lumen"}
    before = len(bot_api.texts(USER))
    await press(bot_api, button["callback_data"], chat_id=USER)
    await bot_api.wait_for(lambda: any("Subscribed" in t for t in bot_api.shown(USER)[before:]))
    assert subscribed(bot) == {"pasted-blog"}
    # A watched feed's link subscribes with the /start button's data; plain text gets the
    # one-line hint (issue 25), not a search.
    await answer(bot_api, feeds.url("/feed/"))
    ((button,),) = last_keyboard(bot_api)
    assert button["callback_data"] == f"sub:{feed_rows(bot)['lumen'].id}"
    before = len(bot_api.texts(USER))
    bot_api.push_command("hello there", chat_id=USER, user_id=USER)
    await answer(bot_api, "/list")
    await bot_api.wait_for(lambda: len(bot_api.texts(USER)) >= before + 2)
    replies = bot_api.texts(USER)[before:]
    assert len(replies) == 2  # one answer each, in whichever order they were handled
    assert any(r.startswith("I did not understand that.") for r in replies)
    assert any(r.startswith("<b>Subscriptions</b>") for r in replies)


async def test_feed_adding_for_operators_only(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(
        db_url,
        bot_api,
        feeds,
        blog.BEFORE_POSTS,
        allow_private_feed_urls=True,
        feed_adding="operators",
    ):
        url = feeds.serve("/closed/feed/", blog.rss((blog.PUNE,), title="Closed Blog"))
        refused = await answer(bot_api, f"/subscribe {url}", chat_id=STRANGER)
        assert "Only the bot's operators add new feeds here" in refused
        assert feeds.hits("/closed/feed/") == []  # not even fetched
        watched = await answer(bot_api, f"/subscribe {feeds.url('/feed/')}", chat_id=STRANGER)
        assert "Subscribed to <b>Lumen Blog</b>" in watched
        added = await answer(bot_api, f"/subscribe {url}", chat_id=OPERATOR_ID)
        assert "Now watching <b>Closed Blog</b>" in added


async def test_limits_per_user_and_overall(
    db_url: str, bot_api: FakeBotApi, feeds: FeedServer
) -> None:
    async with lumen_bot(
        db_url,
        bot_api,
        feeds,
        blog.BEFORE_POSTS,
        allow_private_feed_urls=True,
        max_feeds_per_user=1,
        max_feeds=3,
    ) as bot:
        urls = [
            feeds.serve(f"/n{n}/feed/", blog.rss((blog.PUNE,), title=f"Blog {n}")) for n in range(4)
        ]
        assert "Now watching" in await answer(bot_api, f"/subscribe {urls[0]}")
        reply = await answer(bot_api, f"/subscribe {urls[1]}")
        assert reply == "You have added as many feeds as one person may (1)."
        assert "Now watching" in await answer(bot_api, f"/subscribe {urls[1]}", chat_id=STRANGER)
        reply = await answer(bot_api, f"/subscribe {urls[2]}", chat_id=333)
        assert reply == "This bot watches as many feeds as it may (3). Ask its operator."
        assert len(feed_rows(bot)) == 3
        # Operators see who added each feed.
        listing = await answer(bot_api, "/feeds", chat_id=OPERATOR_ID)
        assert f"added by {USER}" in listing and f"added by {STRANGER}" in listing
        assert "added by" not in await answer(bot_api, "/feeds")


async def test_a_slow_site_is_probed_for_a_minute_at_most(
    db_url: str, bot_api: FakeBotApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.services import discovery
    from tests.support.fakes.feed_server import hang

    monkeypatch.setattr(discovery, "DISCOVERY_SECONDS", 0.2)  # a minute, scaled down
    site = FeedServer().start()
    try:
        home = site.serve("/x/", page(), **HTML)
        site.behave("/x/feed/", hang)  # every guess would hang until its own timeout
        async with lumen_bot(
            db_url,
            bot_api,
            site,
            blog.BEFORE_POSTS,
            allow_private_feed_urls=True,
            # Long enough for the set-up's own fetch of the blog on a loaded machine (0.5 s
            # timed out beside another worker); the hung guess waits for it once.
            fetch_timeout_seconds=2.0,
        ):
            reply = await answer(bot_api, f"/subscribe {home}")
            assert reply == "This address is not a feed, and the page links to none."
            probes = [s.path for s in site.requests if s.path not in ("/x/", "/feed/")]
            assert probes == ["/x/feed/"]  # stopped at the deadline, not 13 more timeouts
    finally:
        site.stop()
