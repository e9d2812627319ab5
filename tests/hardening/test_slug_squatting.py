"""A chat user's feed cannot take an operator feed's name (issue 23, item 13)."""

from __future__ import annotations

import asyncio

import pytest
from sqlmodel import Session, select

from bot.cli.main import main
from bot.db.engine import make_engine, transaction
from bot.db.tables import Feed, Subscription
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog


def slugs(url: str) -> dict[str, bool]:
    engine = make_engine(url)
    with Session(engine) as session:
        found = {f.slug: f.trusted for f in session.exec(select(Feed)).all()}
    engine.dispose()
    return found


def test_an_operator_feed_takes_its_name_back_from_a_chat_feed(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.services.catalog import Catalog
    from bot.services.polling import Poller
    from bot.services.wiring import make_fetcher
    from tests.support.settings import make_settings

    url = env["DATABASE_URL"]
    assert main(["migrate"]) == 0
    settings = make_settings(url, allow_private_feed_urls=True)
    engine = make_engine(url)
    squatter = feeds.serve("/squat/", blog.rss(blog.BEFORE_POSTS, title="PyTorch Blog"))

    async def from_a_chat() -> str:
        async with make_fetcher(settings) as fetcher:
            catalog = Catalog(Poller(engine, fetcher, settings))
            return (await catalog.add_feed(squatter, trusted=False, added_by=555)).slug

    assert asyncio.run(from_a_chat()) == "pytorch-blog"
    with transaction(engine) as session:
        session.add(Subscription(chat_id=5, feed_id=1))
    real = feeds.serve("/real/", blog.rss(blog.BEFORE_POSTS, title="PyTorch Blog"))
    assert main(["feed", "add", real]) == 0
    assert "added pytorch-blog:" in capsys.readouterr().out
    names = slugs(url)
    assert names["pytorch-blog"] is True  # the operator's
    (renamed,) = [slug for slug, trusted in names.items() if not trusted]
    assert renamed.startswith("127-0-0-1")  # named after its own address now
    with Session(engine) as session:
        (sub,) = session.exec(select(Subscription)).all()
        moved = session.get(Feed, sub.feed_id)
    assert moved is not None and moved.slug == renamed  # its chats keep following it
    # An operator's name is not taken back from another operator.
    assert (
        main(
            [
                "feed",
                "add",
                feeds.serve("/other/", blog.rss(blog.BEFORE_POSTS, title="PyTorch Blog")),
            ]
        )
        == 0
    )
    assert "added pytorch-blog-2:" in capsys.readouterr().out
    engine.dispose()


def test_feed_rename(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["feed", "add", feeds.serve("/a/", blog.rss(blog.BEFORE_POSTS)), "--name", "a"]) == 0
    )
    assert (
        main(["feed", "add", feeds.serve("/b/", blog.rss(blog.BEFORE_POSTS)), "--name", "b"]) == 0
    )
    capsys.readouterr()
    assert main(["feed", "rename", "a", "lumen"]) == 0
    assert capsys.readouterr().out == "renamed a to lumen\n"
    assert set(slugs(env["DATABASE_URL"])) == {"lumen", "b"}
    assert main(["feed", "rename", "b", "lumen"]) == 1
    assert "taken" in capsys.readouterr().err
    assert main(["feed", "rename", "nope", "x"]) == 1
    assert main(["feed", "rename", "b", "Not A Slug"]) == 1
