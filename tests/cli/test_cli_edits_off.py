"""`feed set SLUG --edits off` (new posts only, for planets that re-issue their entries), shown
in `feed list`, `feed add`'s hint when a feed re-issues most of its items within a day, and a
Hugo blog's backdated first post through `poll --once --dry-run` (issue 44)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.cli.main import main
from tests.core.detection.test_real_histories import (
    ABOUT,
    BLOG,
    MARKET,
    NOW,
    TEST,
    forecast,
    hugo,
    perlanet,
)
from tests.support.fakes.feed_server import FeedServer

BUILT = NOW - timedelta(hours=2)
PLANET = [forecast(d, BUILT, "Light rain") for d in range(3)] + BLOG[:2]
FRESH = ("Walk 9", "https://walks.example/9", NOW, "<p>A new walk by the river.</p>")


def test_edits_off_reports_only_new_posts_and_feed_list_shows_it(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = feeds.serve("/atom.xml", perlanet(PLANET), content_type="application/atom+xml")
    assert main(["feed", "add", url, "--name", "planet"]) == 0
    out = capsys.readouterr().out
    assert "3 of its 5 items were stamped together within one day" in out
    assert "`feed set planet --edits off` reports only its new posts" in out
    reissued = [forecast(d, BUILT, "Heavy rain") for d in range(3)]
    feeds.serve("/atom.xml", perlanet([FRESH, *reissued, *BLOG[:2]]))
    assert main(["feed", "set", "planet", "--edits", "off"]) == 0
    assert capsys.readouterr().out.strip() == "planet: edits off: only new posts are reported"
    assert main(["feed", "list"]) == 0
    assert "\tnew posts only (edits off)" in capsys.readouterr().out
    assert main(["poll", "--once", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "[new] planet: Walk 9" in out and "[edited]" not in out
    assert "1 new" in out and "0 edited" in out
    assert main(["feed", "set", "planet", "--edits", "on"]) == 0
    assert "edits on" in capsys.readouterr().out
    assert main(["feed", "list"]) == 0
    assert "edits off" not in capsys.readouterr().out
    assert main(["poll", "--once", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "[new] planet: Walk 9" in out and out.count("[edited] planet:") == 3
    assert main(["feed", "set", "nope", "--edits", "off"]) == 1
    assert "no feed named 'nope'" in capsys.readouterr().err
    assert main(["feed", "set", "planet"]) == 1
    assert "--edits on|off" in capsys.readouterr().err


def test_feed_add_gives_no_re_issue_hint_for_a_blog(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = feeds.serve("/blog.xml", perlanet(BLOG), content_type="application/atom+xml")
    assert main(["feed", "add", url, "--name", "walks"]) == 0
    out = capsys.readouterr().out
    assert "added walks" in out and "--edits off" not in out


def test_a_hugo_blog_s_backdated_first_post_is_announced(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = feeds.serve("/index.xml", hugo([ABOUT, TEST]))
    assert main(["feed", "add", url, "--name", "wanderer"]) == 0
    feeds.serve("/index.xml", hugo([ABOUT, TEST, MARKET]))
    capsys.readouterr()
    assert main(["poll", "--once", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "[new] wanderer: Winter Market" in out and "1 new" in out
