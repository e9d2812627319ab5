"""`preview FILE --format title|summary|full --language en|es|zh` prints exactly what such a
chat receives (issue 42): the message `render_change` gives that chat's format and language,
as plain text (or `--html`, as sent), under a line saying what Telegram shows above it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import main
from bot.core.feeds.parse import parse_feed
from bot.core.messages.render import render_change, to_plain
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo
from bot.runtime.i18n import translator
from tests.support.fixtures import blog


def expected(body: bytes, form: Format, language: str, *, html: bool) -> list[str]:
    parsed = parse_feed(body)
    info = FeedInfo(slug="preview", title=parsed.title)
    newest = max(parsed.items, key=lambda i: i.published.timestamp() if i.published else 0.0)
    message = render_change(Change(ChangeKind.NEW, newest), info, translator(language), form=form)
    return [message if html else to_plain(message)]


@pytest.mark.parametrize("form", list(Format))
@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_preview_prints_what_a_chat_with_that_format_and_language_receives(
    tmp_path: Path,
    env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    form: Format,
    language: str,
) -> None:
    path = tmp_path / "feed.xml"
    body = blog.rss(blog.AFTER_POSTS)
    path.write_bytes(body)
    args = ["preview", str(path), "--limit", "1", "--format", form.value, "--language", language]
    assert main(args) == 0
    out = capsys.readouterr().out
    (message,) = expected(body, form, language, html=False)
    assert message in out
    assert "\n[card of the post's page: https://" in out or "\n[image above the text: " in out
    assert main([*args, "--html"]) == 0
    (sent,) = expected(body, form, language, html=True)
    assert sent in capsys.readouterr().out


def test_the_formats_and_languages_differ_as_a_chat_would_see(
    tmp_path: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.xml"
    path.write_bytes(blog.rss(blog.AFTER_POSTS))
    outputs = {}
    for form in ("title", "summary", "full"):
        assert main(["preview", str(path), "--limit", "1", "--format", form]) == 0
        outputs[form] = capsys.readouterr().out
    assert len(outputs["title"]) < len(outputs["summary"]) < len(outputs["full"])
    assert main(["preview", str(path), "--limit", "1", "--language", "es"]) == 0
    spanish = capsys.readouterr().out
    assert spanish != outputs["summary"]  # the date is the chat's language's
    with pytest.raises(SystemExit):
        main(["preview", str(path), "--format", "long"])


def test_a_saved_feed_with_relative_entry_links_previews_working_links(
    tmp_path: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.xml"
    path.write_text(
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Flaneur</title>'
        "<link>https://flaneur.example/</link><item><title>Brass</title>"
        "<link>/post/brass/</link><description>&lt;p&gt;We walked.&lt;/p&gt;</description>"
        "<pubDate>Wed, 07 Jun 2026 10:00:00 +0000</pubDate></item></channel></rss>"
    )
    assert main(["preview", str(path), "--html"]) == 0
    assert '<a href="https://flaneur.example/post/brass/">Brass</a>' in capsys.readouterr().out


HUGO_LIKE = (
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Flaneur</title>'
    "<link>/index.xml</link><item><title>Brass</title><link>/post/brass/</link>"
    "<description>&lt;p&gt;We walked to &lt;a href=&quot;/post/bridge/&quot;&gt;the bridge"
    "&lt;/a&gt; at dusk.&lt;/p&gt;</description>"
    "<pubDate>Wed, 07 Jun 2026 10:00:00 +0000</pubDate></item></channel></rss>"
)


def test_base_makes_a_saved_feed_s_relative_links_absolute(
    tmp_path: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.xml"
    path.write_text(HUGO_LIKE)  # its own <link> is relative too: nothing to resolve against
    assert main(["preview", str(path), "--html"]) == 0
    out = capsys.readouterr().out
    assert "pass --base URL" in out and "<b>Brass</b>" in out
    assert main(["preview", str(path), "--html", "--base", "https://flaneur.example/"]) == 0
    out = capsys.readouterr().out
    assert '<a href="https://flaneur.example/post/brass/">Brass</a>' in out
    assert '<a href="https://flaneur.example/post/bridge/">the bridge</a>' in out
    assert "--base" not in out


def test_base_must_be_a_web_address(
    tmp_path: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "feed.xml"
    path.write_text(HUGO_LIKE)
    assert main(["preview", str(path), "--base", "file:///etc/"]) != 0
    assert "--base must be an http(s) address" in capsys.readouterr().err
