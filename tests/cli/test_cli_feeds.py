"""`feed move`, `feed import FILE.opml`, `feed export` and `feed set --interval`."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session, select

from bot.cli.main import main
from bot.core.feeds.opml import parse_opml
from bot.db.engine import make_engine, transaction
from bot.db.tables import Item, Subscription
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog


def test_move_keeps_items_and_subscriptions(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    old = feeds.serve("/old/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "add", old, "--name", "lumen"]) == 0
    engine = make_engine(env["DATABASE_URL"])
    with transaction(engine) as session:
        session.add(Subscription(chat_id=5, feed_id=1))
    new = feeds.serve("/new/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "move", "lumen", new]) == 0
    assert main(["feed", "move", "nope", new]) == 1
    assert (
        main(
            [
                "feed",
                "move",
                "lumen",
                feeds.serve("/html", b"<html></html>", content_type="text/html"),
            ]
        )
        == 1
    )
    capsys.readouterr()
    assert main(["poll", "--once", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "[new]" not in out and "0 new" in out  # same items at the new address: nothing new
    with Session(engine) as session:
        assert len(session.exec(select(Item)).all()) == len(blog.BEFORE_POSTS)
        assert len(session.exec(select(Subscription)).all()) == 1
    assert main(["feed", "list"]) == 0
    assert f"\t{new}\t" in capsys.readouterr().out
    engine.dispose()


def test_opml_import_and_export(
    feeds: FeedServer, env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = feeds.serve("/one/", blog.rss(blog.BEFORE_POSTS, title="One"))
    two = feeds.serve("/two/", blog.rss((blog.PUNE,), title="Two"))
    broken = feeds.serve("/broken/", b"<html></html>", content_type="text/html")
    opml = tmp_path / "subs.opml"
    opml.write_text(
        '<?xml version="1.0"?><opml version="2.0"><head><title>Mine</title></head><body>'
        f'<outline text="Blogs"><outline type="rss" text="One" xmlUrl="{one}"/>'
        f'<outline type="rss" text="Two" xmlUrl="{two}"/></outline>'
        f'<outline type="rss" text="Dup" xmlUrl="{one}"/>'
        f'<outline type="rss" text="Broken" xmlUrl="{broken}"/>'
        '<outline type="rss" text="Script" xmlUrl="javascript:alert(1)"/>'
        "</body></opml>"
    )
    assert main(["feed", "import", str(opml)]) == 1  # one feed failed
    captured = capsys.readouterr()
    assert "imported 2, already watched 0, failed 1" in captured.out
    assert f"failed: {broken}" in captured.err
    assert main(["feed", "import", str(opml)]) == 1
    assert "imported 0, already watched 2, failed 1" in capsys.readouterr().out
    assert main(["feed", "export"]) == 0
    exported = parse_opml(capsys.readouterr().out.encode())
    assert sorted((f.title, f.url) for f in exported) == [("One", one), ("Two", two)]
    bad = tmp_path / "bad.opml"
    bad.write_text("<rss/>")
    assert main(["feed", "import", str(bad)]) == 1
    assert "not an OPML document" in capsys.readouterr().err


def test_feed_set_interval_paces_one_feed_and_shows_it(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.db.tables import Feed

    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "add", url, "--name", "lumen"]) == 0
    assert main(["feed", "set", "lumen", "--interval", "15m"]) == 0
    assert capsys.readouterr().out.strip().endswith("lumen: polled every 15m")
    assert main(["feed", "list"]) == 0
    assert "\tevery 15m\t" in capsys.readouterr().out
    engine = make_engine(env["DATABASE_URL"])
    with Session(engine) as session:
        assert session.exec(select(Feed.interval_seconds)).one() == 900
    engine.dispose()
    assert main(["feed", "set", "lumen", "--interval", "90 minutes"]) == 1
    assert "not a duration: '90 minutes'" in capsys.readouterr().err
    assert main(["feed", "set", "lumen", "--interval", "30s"]) == 1
    assert "between 1m and 7d" in capsys.readouterr().err
    assert main(["feed", "set", "nope", "--interval", "1h"]) == 1
    assert main(["feed", "set", "lumen", "--interval", "default"]) == 0
    assert "(the default)" in capsys.readouterr().out


def test_a_json_feed_through_feed_add_and_a_dry_run_poll(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    def document(*items: dict[str, str]) -> bytes:
        version = "https://jsonfeed.org/version/1.1"
        return json.dumps({"version": version, "title": "Ines Park", "items": items}).encode()

    talk = {"id": "talk", "title": "Scheduler talk", "content_text": "Slides are up."}
    meetup = {"id": "meetup", "title": "Meetup", "content_text": "We meet on Saturday."}
    url = feeds.serve("/feed.json", document(talk), content_type="application/feed+json")
    assert main(["feed", "add", url, "--name", "ines"]) == 0
    assert "added ines: Ines Park (1 item)" in capsys.readouterr().out
    edited = {**talk, "content_text": "Slides are up. The recording follows next week."}
    feeds.serve("/feed.json", document(meetup, edited), content_type="application/feed+json")
    assert main(["poll", "--once", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "Meetup" in out and "Scheduler talk" in out
    assert "1 new" in out and "1 edited" in out
