"""The command line, in-process (fast) and as real subprocesses (exit codes, one-line errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import main
from bot.db.engine import transaction
from tests.support.fakes.bot_api import FakeBotApi
from tests.support.fakes.feed_server import FeedServer
from tests.support.fixtures import blog
from tests.support.processes import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_feed_add_list_remove(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "add", url, "--name", "lumen"]) == 0
    count = len(blog.BEFORE_POSTS)
    assert capsys.readouterr().out.strip() == f"added lumen: Lumen Blog ({count} items)"
    assert main(["feed", "list"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"lumen\t{url}\t{count} items\tevery 5m\tchecked ")
    assert line.endswith("\tok")
    assert main(["feed", "add", url]) == 1
    assert "already watched" in capsys.readouterr().err
    assert main(["feed", "remove", "lumen"]) == 0
    assert main(["feed", "remove", "lumen"]) == 1
    assert "no feed named 'lumen'" in capsys.readouterr().err


def test_feed_list_says_who_added_a_feed_from_a_chat(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from sqlalchemy import create_engine

    from bot.db import store

    assert main(["feed", "add", feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))]) == 0
    engine = create_engine(env["DATABASE_URL"])
    with transaction(engine) as session:  # as /subscribe URL stores a chat-added feed
        store.add_feed(session, slug="asked", url="https://a.example/feed", title="A",
                       trusted=False, added_by=777)  # fmt: skip
    engine.dispose()
    capsys.readouterr()
    assert main(["feed", "list"]) == 0
    asked, lumen = capsys.readouterr().out.strip().splitlines()
    assert asked.startswith("asked\t") and asked.endswith("\tadded by 777")
    assert "added by" not in lumen  # an operator's feed


def test_slug_defaults_to_the_feed_title(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "add", url]) == 0
    assert capsys.readouterr().out.startswith("added lumen-blog: ")


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("not a url", "not an http(s) URL"),
        ("ftp://example.org/feed", "not an http(s) URL"),
        ("http://127.0.0.1:1/feed", "cannot fetch"),
        ("/html", "is not a feed"),
        ("/missing", "HTTP 404"),
    ],
)
def test_feed_add_failures_are_one_line_and_store_nothing(
    feeds: FeedServer, env: dict[str, str], target: str, expected: str
) -> None:
    feeds.serve("/html", b"<html><body>Hello</body></html>", content_type="text/html")
    url = feeds.url(target) if target.startswith("/") else target
    result = run_cli("feed", "add", url, env=env)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and expected in result.stderr
    assert "Traceback" not in result.stderr
    listing = run_cli("feed", "list", env=env)
    assert "no feeds yet" in listing.stdout


def test_poll_once_dry_run_prints_the_three_new_posts_and_stores_nothing(
    feeds: FeedServer, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "add", url, "--name", "lumen"]) == 0
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    capsys.readouterr()
    for _ in range(2):  # a dry run changes nothing, so the second run sees the same events
        assert main(["poll", "--once", "--dry-run"]) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        assert [line for line in lines if line.startswith("[")] == [
            f"[new] lumen: {blog.PUNE.title} <{blog.PUNE.link}>",
            f"[new] lumen: {blog.CORVID.title} <{blog.CORVID.link}>",
            f"[new] lumen: {blog.LISBON.title} <{blog.LISBON.link}>",
        ]
        # Each event is followed by its message as a chat would get it, in plain text.
        assert f"    {blog.CORVID.title} ({blog.CORVID.link})" in lines
        assert f"    {blog.CORVID.paragraphs[0]}" in lines
        assert "3 new, 0 edited" in lines[-1]


def test_a_second_process_on_the_same_database_sees_nothing_new(
    feeds: FeedServer, bot_api: FakeBotApi, env: dict[str, str]
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS), honour_validators=False)
    assert run_cli("feed", "add", url, "--name", "lumen", env=env).returncode == 0
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS), honour_validators=False)
    telegram = {"TELEGRAM_BOT_TOKEN": bot_api.token, "TELEGRAM_API_BASE_URL": bot_api.base_url}
    first = run_cli("poll", "--once", env={**env, **telegram})
    assert "3 new" in first.stdout and "0 messages sent" in first.stdout, first.stderr
    second = run_cli("poll", "--once", "--dry-run", env=env)
    assert second.returncode == 0
    assert "[new]" not in second.stdout and "0 new, 0 edited" in second.stdout


def test_preview_prints_the_newest_items_without_a_database(
    tmp_path: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.xml"
    path.write_bytes(blog.rss(blog.AFTER_POSTS))
    assert main(["preview", str(path), "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Lumen Blog: {len(blog.AFTER_POSTS)} items")
    assert blog.LISBON.title in out and blog.CORVID.title in out and blog.PUNE.title not in out
    assert not (tmp_path / "cli.db").exists()


def test_migrate_and_help(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate"]) == 0
    assert "latest schema" in capsys.readouterr().out
    for args in (
        ["--help"],
        ["feed", "--help"],
        ["feed", "add", "--help"],
        ["poll", "--help"],
        ["preview", "--help"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        assert exit_info.value.code == 0
        assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("POLL_INTERVAL_SECONDS", "0"),
        ("POLL_INTERVAL_SECONDS", "soon"),
        ("DATABASE_URL", "mysql://x"),
        ("BOT_ADMIN_IDS", "12,abc"),
        ("LOG_LEVEL", "LOUD"),
    ],
)
def test_invalid_settings_fail_with_one_line_naming_the_variable(
    env: dict[str, str], variable: str, value: str
) -> None:
    result = run_cli("feed", "list", env={**env, variable: value})
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and variable in result.stderr
    assert "Traceback" not in result.stderr


def test_run_without_a_token_is_one_clear_line(env: dict[str, str]) -> None:
    result = run_cli("run", env=env)
    assert result.returncode == 1
    assert result.stderr.strip() == "error: TELEGRAM_BOT_TOKEN is not set: get one from @BotFather"


def test_poll_once_with_telegram_unreachable_is_one_line_and_keeps_the_events(
    feeds: FeedServer, env: dict[str, str]
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert run_cli("feed", "add", url, "--name", "lumen", env=env).returncode == 0
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    dead = {"TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:1/bot"}
    result = run_cli("poll", "--once", env={**env, **dead})
    assert result.returncode == 1 and result.stderr.startswith("error: Telegram:")
    assert "Traceback" not in result.stderr


def test_poll_once_delivers_to_subscribed_chats_and_feed_list_shows_errors(
    feeds: FeedServer, bot_api: FakeBotApi, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:

    from bot.db import store
    from bot.db.engine import make_engine

    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert main(["feed", "add", url, "--name", "lumen"]) == 0
    engine = make_engine(env["DATABASE_URL"])
    with transaction(engine) as session:
        store.upsert_chat(session, chat_id=42, type_="private", title="Ada")
        store.subscribe(session, chat_id=42, feed_id=1)
    engine.dispose()
    feeds.serve("/feed/", blog.rss(blog.AFTER_POSTS))
    telegram = {"TELEGRAM_BOT_TOKEN": bot_api.token, "TELEGRAM_API_BASE_URL": bot_api.base_url}
    result = run_cli("poll", "--once", env={**env, **telegram})
    assert result.returncode == 0 and "3 messages sent" in result.stdout, result.stderr
    assert [t.split("</a>")[0].split('">')[1] for t in bot_api.texts(42)] == list(
        blog.NEW_TITLES_OLDEST_FIRST
    )
    feeds.serve("/feed/", b"<html><body>Maintenance</body></html>", content_type="text/html")
    capsys.readouterr()
    assert main(["poll", "--once", "--dry-run"]) == 0
    assert "[error] lumen: not a feed" in capsys.readouterr().out
    result = run_cli("poll", "--once", env={**env, **telegram})
    assert result.returncode == 0
    assert "feed lumen: not a feed" in result.stderr  # one clear log line
    capsys.readouterr()
    assert main(["feed", "list"]) == 0
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith("\terror: not a feed: NonXMLContentType: text/html is not an XML media type")
    )


def test_a_rejected_token_is_one_line_without_the_token(
    bot_api: FakeBotApi, env: dict[str, str]
) -> None:
    wrong = "999:not-the-right-token"
    result = run_cli(
        "run", env={**env, "TELEGRAM_BOT_TOKEN": wrong, "TELEGRAM_API_BASE_URL": bot_api.base_url}
    )
    assert result.returncode == 1
    assert (
        result.stderr
        == "error: TELEGRAM_BOT_TOKEN was rejected by Telegram: check it with @BotFather\n"
    )
    unreachable = run_cli(
        "worker",
        env={**env, "TELEGRAM_BOT_TOKEN": wrong, "TELEGRAM_API_BASE_URL": "http://127.0.0.1:1/bot"},
    )
    assert unreachable.returncode == 1 and unreachable.stderr.count("\n") == 1
    assert unreachable.stderr.startswith(
        "error: cannot reach the Telegram Bot API at http://127.0.0.1:1/bot"
    )
    assert "not-the-right-token" not in result.stderr + unreachable.stderr


def test_poll_once_with_a_rejected_token_never_prints_it(
    feeds: FeedServer, bot_api: FakeBotApi, env: dict[str, str]
) -> None:
    url = feeds.serve("/feed/", blog.rss(blog.BEFORE_POSTS))
    assert run_cli("feed", "add", url, env=env).returncode == 0
    result = run_cli(
        "poll",
        "--once",
        env={
            **env,
            "TELEGRAM_BOT_TOKEN": "999:secret-part-here",
            "TELEGRAM_API_BASE_URL": bot_api.base_url,
        },
    )
    assert result.returncode == 1 and "secret-part-here" not in result.stderr
    assert "error: Telegram:" in result.stderr
