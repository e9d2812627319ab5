"""Messages at their edges: every budget at exactly its size and one past it, edits with several
sentences, the "… and N more" line, title changes, and messages that start too long and must
shrink (more than once) to fit Telegram's 4096 units."""

from __future__ import annotations

from datetime import datetime

import pytest

from bot.core.messages.render import TELEGRAM_LIMIT, render_change, telegram_length, to_plain
from bot.core.text import shorten
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem, TextDiff
from tests.support.telegram_html import assert_valid_telegram_html

FEED = FeedInfo("quillon", "Quillon Notes")


def item(
    *,
    title: str = "Scheduler notes",
    text: str = "",
    link: str | None = None,
    author: str | None = None,
    categories: tuple[str, ...] = (),
    published: datetime | None = None,
) -> ParsedItem:
    return ParsedItem("k", title, link, author, published, categories, text, "f", 0)


def new(it: ParsedItem, feed: FeedInfo = FEED) -> list[str]:
    return render_change(Change(ChangeKind.NEW, it), feed).split("\n")


def edit(diff: TextDiff | None, it: ParsedItem | None = None) -> str:
    return render_change(Change(ChangeKind.EDITED, it or item(), diff), FEED)


def body(message: str) -> list[str]:
    return message.split("\n\n", 1)[1].split("\n")


def test_an_untitled_post_says_so() -> None:
    assert new(item(title=""))[0] == "<b>(untitled)</b>"


@pytest.mark.parametrize(("size", "budget"), [(300, 300), (301, 300)])
def test_the_title_budget_is_300(size: int, budget: int) -> None:
    title = "x" * size
    assert new(item(title=title))[0] == f"<b>{shorten(title, budget)}</b>"
    assert (new(item(title=title))[0] == f"<b>{title}</b>") is (size <= budget)


def test_byline_budgets_are_100_each() -> None:
    feed_title, author = "f" * 101, "a" * 101
    byline = new(item(author=author), FeedInfo("s", feed_title))[1]
    assert byline == f"{'f' * 98}… · {'a' * 98}…"
    assert new(item(author="a" * 100), FeedInfo("s", "f" * 100))[1] == f"{'f' * 100} · {'a' * 100}"
    assert new(item(), FeedInfo("slug-only", ""))[1] == "slug-only"


def test_at_most_four_categories_of_50_characters() -> None:
    """Issue 42: one phone line of categories, not ten tags and a count."""
    eleven = tuple(f"c{n:02}" for n in range(11))
    assert new(item(categories=eleven))[2] == f"<i>{' · '.join(eleven[:4])}</i>"
    assert new(item(categories=eleven[:3]))[2] == f"<i>{' · '.join(eleven[:3])}</i>"
    assert new(item(categories=("k" * 50, "k" * 51)))[2] == f"<i>{'k' * 50} · {'k' * 48}…</i>"


def test_a_post_without_text_ends_at_its_header() -> None:
    message = render_change(Change(ChangeKind.NEW, item()), FEED)
    assert message == "<b>Scheduler notes</b>\nQuillon Notes"


def test_an_edit_without_a_diff_shows_the_summary() -> None:
    message = edit(None, item(text="First line.\n\nSecond line."))
    assert message.startswith("<b>Updated: Scheduler notes</b>")
    assert body(message) == ["First line.", "", "Second line."]  # paragraphs apart


def test_a_title_change_gets_its_line_and_an_unchanged_title_none() -> None:
    diff = TextDiff(old_title="Old <name>", new_title="New & better", added=("One.",))
    assert body(edit(diff)) == [
        "<i>A paragraph added: “One.”</i>",
        "Title: <i>Old &lt;name&gt;</i> → New &amp; better",
        "<b>Added:</b>",
        "+ One.",
    ]
    assert body(edit(TextDiff(old_title="Only old", added=("One.",))))[1] == "<b>Added:</b>"
    assert body(edit(TextDiff(new_title="Only new", added=("One.",))))[1] == "<b>Added:</b>"
    long_title = "t" * 151
    line = body(edit(TextDiff(old_title=long_title, new_title="t" * 150)))[0]
    assert line == f"Title: <i>{'t' * 148}…</i> → {'t' * 150}"


def test_every_added_and_removed_sentence_is_listed_in_order() -> None:
    """Sentences that share no word are each added or removed whole."""
    diff = TextDiff(
        added=("Apples grow.", "Bread rises.", "Cats sleep."), removed=("Dogs bark.", "Eels swim.")
    )
    assert body(edit(diff)) == [
        "<i>A paragraph added: “Apples grow.” (and 2 more changes)</i>",
        "<b>Added:</b>",
        "+ Apples grow.",
        "+ Bread rises.",
        "+ Cats sleep.",
        "<b>Removed:</b>",
        "− Dogs bark.",
        "− Eels swim.",
    ]


def test_a_reworded_text_says_so() -> None:
    assert body(edit(TextDiff())) == ["The text was reworded or reordered."]


def test_added_sentences_fill_1500_characters_then_say_how_many_more() -> None:
    exactly = tuple("a" * 300 for _ in range(5))  # 1500: all shown
    assert body(edit(TextDiff(added=exactly)))[2:] == [f"+ {s}" for s in exactly]
    one_over = (*exactly[:4], "a" * 301)  # 1501 characters: the last sentence is counted
    lines = body(edit(TextDiff(added=one_over)))
    assert lines[-1] == "<i>… and 1 more</i>" and len(lines) == 2 + 4 + 1
    two_over = (*exactly, "b", "c")
    assert body(edit(TextDiff(added=two_over)))[-1] == "<i>… and 2 more</i>"


def test_each_added_sentence_is_cut_at_400_and_each_removed_one_at_120() -> None:
    added, removed = "a" * 401, "r" * 121
    lines = body(edit(TextDiff(added=(added, "a" * 400), removed=(removed, "r" * 120))))
    assert lines[1:] == [
        "<b>Added:</b>",
        f"+ {shorten(added, 400)}",
        f"+ {'a' * 400}",
        "<b>Removed:</b>",
        f"− {shorten(removed, 120)}",
        f"− {'r' * 120}",
    ]


def test_removed_sentences_fill_400_characters() -> None:
    four = tuple("r" * 100 for _ in range(4))
    assert body(edit(TextDiff(removed=four)))[2:] == [f"− {s}" for s in four]
    lines = body(edit(TextDiff(removed=(*four, "x"))))
    assert lines[-1] == "<i>… and 1 more</i>"


def test_a_message_that_starts_far_too_long_shrinks_until_it_fits() -> None:
    """Hundreds of one-emoji sentences and long emoji categories: the first pass is over 4096
    units twice over, so every budget is halved (twice); categories keep their 20-character
    floor."""
    emoji = "😀"
    categories = tuple(f"{n}{emoji * 49}" for n in range(10))
    diff = TextDiff(
        old_title=emoji * 300,
        new_title=emoji * 300,
        added=(emoji,) * 2000,
        removed=(emoji,) * 500,
    )
    it = item(
        title=emoji * 300, author=emoji * 100, categories=categories, link="https://q.example/"
    )
    message = render_change(Change(ChangeKind.EDITED, it, diff), FeedInfo("s", emoji * 100))
    assert telegram_length(message) <= TELEGRAM_LIMIT
    assert_valid_telegram_html(message)
    lines = message.split("\n")
    assert (
        lines[0] == f'<b>Updated: <a href="https://q.example/">{shorten(emoji * 300, 75)}</a></b>'
    )
    assert lines[2] == "<i>" + " · ".join(shorten(c, 20) for c in categories[:4]) + "</i>"
    assert lines[-1].startswith("<i>… and ") and lines[-1].endswith(" more</i>")


def test_telegram_length_counts_whole_units() -> None:
    assert telegram_length("<b>a&amp;b</b>😀") == 5
    assert isinstance(telegram_length("ab"), int)


def test_plain_text_keeps_link_targets_and_drops_every_tag() -> None:
    assert to_plain('<b>Bold</b> <a href="https://q.example/">x &amp; y</a>') == (
        "Bold x & y (https://q.example/)"
    )


def test_lone_surrogates_become_replacement_characters() -> None:
    message = render_change(Change(ChangeKind.NEW, item(title="a\ud800b")), FEED)
    assert message.startswith("<b>a\ufffdb</b>")
    linked = render_change(Change(ChangeKind.NEW, item(link="https://q.example/\udfff")), FEED)
    assert 'href="https://q.example/\ufffd"' in linked


def test_a_message_of_exactly_4096_units_is_sent_whole() -> None:
    emoji = "😀"
    categories = tuple(f"{n}{emoji * 49}" for n in range(10))
    it = item(title=emoji * 300, author="a" + emoji * 99, categories=categories)

    def message(filler: int) -> str:
        diff = TextDiff(added=(emoji * 400, emoji * 400, emoji * 325, "x" * filler))
        return render_change(Change(ChangeKind.EDITED, it, diff), FeedInfo("s", emoji * 100))

    room = TELEGRAM_LIMIT - telegram_length(message(1)) + 1  # (an empty last line is trimmed)
    assert 0 < room < 375  # the filler is not cut, and the added text stays within 1500
    exact = message(room)
    assert telegram_length(exact) == TELEGRAM_LIMIT
    assert exact.startswith(f"<b>Updated: {emoji * 300}</b>")  # the first pass, not shrunk
    assert not message(room + 1).startswith(f"<b>Updated: {emoji * 300}</b>")


def test_a_new_title_longer_than_150_is_cut() -> None:
    line = body(edit(TextDiff(old_title="old", new_title="n" * 151)))[0]
    assert line == f"Title: <i>old</i> → {'n' * 148}…"


class Counting:
    """A translator whose singular and plural differ, to see which one a count picks."""

    language = "en"

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"one:{singular}" if n == 1 else f"many:{plural}"

    def format_date(self, value: datetime) -> str:
        return value.isoformat()


def test_the_more_line_uses_the_plural_form_for_the_count() -> None:
    def more(extra: int) -> str:
        diff = TextDiff(added=("a" * 400,) * 3 + ("a" * 300,) + ("b",) * extra)
        change = Change(ChangeKind.EDITED, item(), diff)
        return render_change(change, FEED, Counting()).split("\n")[-1]

    assert more(1) == "one:<i>… and 1 more</i>"
    assert more(3) == "many:<i>… and 3 more</i>"
