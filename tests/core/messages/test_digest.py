"""Digest schedules in a chat's time zone, and digest messages that fit Telegram."""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messages.digest import (
    DigestEntry,
    DigestSyntaxError,
    is_due,
    parse_schedule,
    render_digest,
)
from bot.runtime.i18n import LANGUAGES, translator
from tests.support.telegram_html import assert_valid_telegram_html

BERLIN = ZoneInfo("Europe/Berlin")


def utc(hour: int, minute: int = 0, day: int = 8) -> datetime:
    return datetime(2026, 9, day, hour, minute, tzinfo=UTC)


def test_parse_schedule() -> None:
    assert parse_schedule(["hourly"]) == ("hourly", None)
    assert parse_schedule(["daily", "08:30"]) == ("daily", time(8, 30))
    for bad in (["daily"], ["daily", "25:00"], ["weekly"], ["hourly", "x"]):
        with pytest.raises(DigestSyntaxError):
            parse_schedule(bad)


def test_hourly_is_due_an_hour_after_the_last() -> None:
    assert not is_due("hourly", None, BERLIN, utc(10), utc(10, 59))
    assert is_due("hourly", None, BERLIN, utc(10), utc(11))


def test_daily_follows_the_chats_local_time() -> None:
    at = time(8, 30)  # 08:30 in Berlin is 06:30 UTC in September (CEST)
    assert not is_due("daily", at, BERLIN, utc(6, 0), utc(6, 29))
    assert is_due("daily", at, BERLIN, utc(6, 0), utc(6, 31))
    assert not is_due("daily", at, BERLIN, utc(6, 31), utc(20))  # already sent today
    assert is_due("daily", at, BERLIN, utc(6, 31), utc(6, 31, day=9))


def test_a_digest_lists_each_post_once_with_its_categories_and_a_summary() -> None:
    """Issue 25: it was a bare list of titles, each filed under the post's first category."""
    (message,) = render_digest(
        "Lumen Blog",
        [
            DigestEntry("B post", "https://x.example/b", ("Community",), summary="Pune met."),
            DigestEntry("A <post>", "https://x.example/a", ("Announcements", "Blog")),
            DigestEntry("C post", None, (), updated=True),
        ],
    )
    assert message == (
        "<b>Digest: Lumen Blog</b> — 3 posts\n"
        "\n"
        '• <a href="https://x.example/b">B post</a>\n'
        "<i>Community</i>\n"
        "Pune met.\n"
        "\n"
        '• <a href="https://x.example/a">A &lt;post&gt;</a>\n'
        "<i>Announcements</i>\n"
        "\n"
        "• Updated: C post"
    )


def test_a_story_other_feeds_carried_names_them_under_its_entry() -> None:
    """Quiet hours' per-feed digests (issue 46): a story is listed once, naming its copies'
    feeds, in the chat's language, escaped."""
    entry = DigestEntry("Corvid", "https://x.example/c", (), summary="Joins.", also=("A & B", "C"))
    (message,) = render_digest("Lumen Blog", [entry, DigestEntry("Other", None, ())])
    assert message.endswith("Joins.\n<i>Also in: A &amp; B, C</i>\n\n• Other")
    assert_valid_telegram_html(message)
    (spanish,) = render_digest("Lumen Blog", [entry], translator("es"))
    assert "Also in" not in spanish and "A &amp; B, C</i>" in spanish


def test_digests_speak_the_chat_language() -> None:
    entries = [DigestEntry("Nueva", None, ()), DigestEntry("Vieja", None, (), updated=True)]
    (spanish,) = render_digest("Blog", entries, translator("es"))
    assert spanish == "<b>Boletín: Blog</b> — 2 entradas\n\n• Nueva\n\n• Actualizado: Vieja"
    (chinese,) = render_digest("Blog", entries[:1], translator("zh"))
    assert chinese.startswith("<b>汇总：Blog</b> — 1 篇文章\n\n• Nueva")
    (one,) = render_digest("Blog", entries[:1])
    assert one.startswith("<b>Digest: Blog</b> — 1 post\n")


def test_one_line_of_a_summary() -> None:
    from bot.core.messages.digest import one_line

    assert one_line("First paragraph.\n\nSecond.") == "First paragraph."
    assert one_line("• item\n• two") == "• item"
    assert one_line("x" * 201) == ""  # a line too long for a digest is left out
    assert one_line("x" * 200) == "x" * 200


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=300), st.text(max_size=30)), min_size=1, max_size=300
    ),
    st.sampled_from(list(LANGUAGES)),
)
def test_long_digests_are_split_into_valid_messages(
    posts: list[tuple[str, str]], language: str
) -> None:
    entries = [
        DigestEntry(title, "https://x.example/p", (category,) if category.strip() else ())
        for title, category in posts
    ]
    messages = render_digest("Feed", entries, translator(language))
    for message in messages:
        assert_valid_telegram_html(message)
    assert sum(m.count("• ") for m in messages) >= len(entries)


def test_the_flood_list_groups_linked_titles_by_category() -> None:
    from bot.core.messages.digest import render_new_list
    from bot.core.types import ParsedItem

    def post(n: int, cats: tuple[str, ...]) -> ParsedItem:
        return ParsedItem(
            f"k{n}", f"Post {n} <b>", f"https://e.example/{n}", None, None, cats, "", "", n
        )

    items = [post(1, ("Zeta", "Alpha")), post(2, ()), post(3, ("Zeta",))]
    (message,) = render_new_list("Tide & Co", items)
    assert message == (
        "<b>Tide &amp; Co</b> — 3 new posts at once\n"
        "\n<i>Other</i>\n"
        '• <a href="https://e.example/2">Post 2 &lt;b&gt;</a>\n'
        "\n<i>Zeta</i>\n"
        '• <a href="https://e.example/1">Post 1 &lt;b&gt;</a>\n'
        '• <a href="https://e.example/3">Post 3 &lt;b&gt;</a>'
    )
    (single,) = render_new_list("T", items[:1], translator("es"))
    assert single.startswith("<b>T</b> — 1 entrada nueva a la vez")
    assert "<i>Zeta</i>" in single
    (other,) = render_new_list("T", items[1:2], translator("es"))
    assert "<i>Otros</i>" in other
    (long,) = render_new_list("F" * 101, items[:1])
    assert "F" * 101 not in long and "F" * 90 in long
    (exact,) = render_new_list("F" * 100, items[:1])
    assert exact.startswith("<b>" + "F" * 100 + "</b>")
    many = render_new_list("T", [post(n, ()) for n in range(400)])
    assert len(many) > 1
    assert_valid_telegram_html(many[1])
