"""Digests at their edges: stored schedules, the exact moment a daily digest is due, refusals'
words, cut titles, category order, and a split exactly at Telegram's limit."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.core.messages.digest import (
    DAILY,
    HOURLY,
    DigestEntry,
    DigestSchedule,
    DigestSyntaxError,
    is_due,
    parse_schedule,
    render_digest,
)
from bot.core.messages.render import TELEGRAM_LIMIT, telegram_length
from bot.core.text import shorten

TOKYO = ZoneInfo("Asia/Tokyo")


def test_stored_schedules_read_back() -> None:
    assert DigestSchedule.stored(None, None) is None
    assert DigestSchedule.stored("hourly", None) == DigestSchedule(HOURLY, None)
    daily = DigestSchedule.stored("daily", "08:30")
    assert daily == DigestSchedule(DAILY, time(8, 30))
    assert daily is not None and daily.at_text == "08:30"
    assert DigestSchedule(HOURLY).at_text is None


def test_refusals_say_what_to_type() -> None:
    with pytest.raises(DigestSyntaxError) as bad_time:
        parse_schedule(["daily", "25:99"])
    assert str(bad_time.value) == "the time is HH:MM, e.g. 08:30"
    with pytest.raises(DigestSyntaxError) as bad_words:
        parse_schedule(["weekly"])
    assert str(bad_words.value) == "use hourly, daily HH:MM or off"


def test_a_daily_digest_is_due_from_the_local_minute_on_and_only_once() -> None:
    at = time(8, 30)
    eight_thirty = datetime(2026, 11, 30, 8, 30, tzinfo=TOKYO).astimezone(UTC)
    day_before = eight_thirty - timedelta(days=1)
    assert is_due(DAILY, at, TOKYO, day_before, eight_thirty)  # exactly at 08:30 local
    assert not is_due(DAILY, at, TOKYO, day_before, eight_thirty - timedelta(minutes=1))
    assert not is_due(DAILY, at, TOKYO, eight_thirty, eight_thirty)  # sent at 08:30 already
    assert not is_due(DAILY, at, TOKYO, eight_thirty, eight_thirty + timedelta(hours=23))
    # before 08:30 local the latest slot is yesterday's: due only if that one was missed
    early = eight_thirty - timedelta(hours=2)
    assert is_due(DAILY, at, TOKYO, day_before - timedelta(minutes=1), early)
    assert not is_due(DAILY, at, TOKYO, day_before, early)


def entries(n: int, **fields: object) -> list[DigestEntry]:
    return [
        DigestEntry(title=f"Post {i}", link=f"https://q.example/{i}", categories=(), **fields)  # type: ignore[arg-type]
        for i in range(n)
    ]


def test_titles_and_names_are_cut_at_their_budgets() -> None:
    long_feed, long_category, long_title = "f" * 101, "c" * 61, "t" * 201
    (message,) = render_digest(long_feed, [DigestEntry(long_title, None, (long_category,))])
    assert message == (
        f"<b>Digest: {shorten(long_feed, 100)}</b> — 1 post\n"
        f"\n• {shorten(long_title, 200)}\n"
        f"<i>{shorten(long_category, 60)}</i>"
    )
    (exact,) = render_digest("f" * 100, [DigestEntry("t" * 200, None, ("c" * 60,))])
    assert "f" * 100 + "</b>" in exact and "<i>" + "c" * 60 + "</i>" in exact
    assert "• " + "t" * 200 + "\n" in exact


def test_a_post_s_categories_are_all_shown_in_its_order() -> None:
    (message,) = render_digest(
        "F",
        [DigestEntry("b", None, ("beta", "Alpha")), DigestEntry("a", None, ("Gamma",))],
    )
    assert [line for line in message.split("\n") if line.startswith("<i>")] == [
        "<i>beta · Alpha</i>",
        "<i>Gamma</i>",
    ]


def test_a_digest_splits_exactly_where_the_next_line_would_pass_the_limit() -> None:
    many = entries(400)
    messages = render_digest("Quillon", many)
    assert len(messages) > 1
    head = "<b>Digest: Quillon</b> — 400 posts"
    assert messages[0].startswith(head + "\n")
    for message in messages[1:]:
        assert message.startswith(f"{head} (continued)\n• ")
    for message, following in itertools.pairwise(messages):
        assert telegram_length(message) <= TELEGRAM_LIMIT
        first_line = following.split("\n")[1]
        assert telegram_length(f"{message}\n{first_line}") > TELEGRAM_LIMIT
    listed = [line for m in messages for line in m.split("\n") if line.startswith("• ")]
    assert len(listed) == 400


def test_a_digest_that_lands_exactly_on_the_limit_is_one_message() -> None:
    def digest(last_title: str) -> list[str]:
        full = [DigestEntry("x" * 150, None, ()) for _ in range(26)]
        return render_digest("F", [*full, DigestEntry(last_title, None, ())])

    room = TELEGRAM_LIMIT - telegram_length(digest("")[0])
    assert 0 < room <= 200
    (exact,) = digest("y" * room)
    assert telegram_length(exact) == TELEGRAM_LIMIT
    assert len(digest("y" * (room + 1))) == 2


def test_a_post_new_and_edited_in_one_period_is_listed_once_with_a_note() -> None:
    held = [
        DigestEntry("Draft title", "https://q.example/1", ("Guides",), item_id=1),
        DigestEntry("Other post", "https://q.example/2", ("Guides",), item_id=2),
        DigestEntry("Final title", "https://q.example/1", ("Guides",), updated=True, item_id=1),
        DigestEntry("Older post", "https://q.example/3", ("Guides",), updated=True, item_id=3),
        DigestEntry(
            "Older post, again", "https://q.example/3", ("Guides",), updated=True, item_id=3
        ),
    ]
    (message,) = render_digest("Quillon", held)
    assert message.split("\n") == [
        "<b>Digest: Quillon</b> — 3 posts",
        "",
        '• <a href="https://q.example/1">Final title</a>',
        "<i>Guides</i>",
        "↳ <i>edited since it was posted</i>",
        "",
        '• <a href="https://q.example/2">Other post</a>',
        "<i>Guides</i>",
        "",
        '• <a href="https://q.example/3">Updated: Older post, again</a>',
        "<i>Guides</i>",
    ]


def test_entries_without_an_item_are_never_merged() -> None:
    (message,) = render_digest("F", [DigestEntry("a", None, ()), DigestEntry("b", None, ())])
    assert message.endswith("• a\n\n• b")


def test_entries_without_an_item_never_swallow_a_real_item() -> None:
    loose = [DigestEntry(f"loose {n}", None, ()) for n in range(3)]
    real = DigestEntry("real", None, (), updated=True, item_id=1)
    (message,) = render_digest("F", [*loose, real])
    assert message.endswith("• loose 0\n\n• loose 1\n\n• loose 2\n\n• Updated: real")


def test_digest_words_in_every_language_and_any_hour_form() -> None:
    """Issue 43, item 7: `/digest pytorch diario 9:10` and `每天` were refused."""
    from bot.core.messages.digest import is_off

    for words in (["daily", "9:10"], ["diario", "09:10"], ["DIARIA", "9:10"], ["每天", "9：10"]):
        assert parse_schedule(words) == DigestSchedule(DAILY, time(9, 10)), words
    assert parse_schedule(["每天9:10"]) == DigestSchedule(DAILY, time(9, 10))
    assert parse_schedule(["cada", "día", "23:59"]) == DigestSchedule(DAILY, time(23, 59))
    for words in (["hourly"], ["cada", "hora"], ["por", "hora"], ["每小时"]):
        assert parse_schedule(words) == DigestSchedule(HOURLY), words
    for bad in (["diario"], ["diario", "24:00"], ["diario", "9:60"], ["daily", "9"]):
        with pytest.raises(DigestSyntaxError) as refused:
            parse_schedule(bad)
        assert str(refused.value) == "the time is HH:MM, e.g. 08:30", bad
    for bad in (["cada", "hora", "9:10"], ["semanal"], ["hourlyish"], []):
        with pytest.raises(DigestSyntaxError) as refused:
            parse_schedule(bad)
        assert str(refused.value) == "use hourly, daily HH:MM or off", bad
    assert is_off(["off"]) and is_off(["OFF"]) and is_off(["关闭"]) and is_off(["desactivar"])
    assert not is_off(["daily", "off"]) and not is_off([])
