"""Edit messages: the changed words marked, a minor edit in one line, the line that says what
changed, and a `title` subscription's one-line notice, in en, es and zh."""

from __future__ import annotations

import pytest

from bot.core.messages.modeltext import ModelText
from bot.core.messages.render import render_change
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem, TextDiff
from bot.runtime.i18n import translator
from tests.support.telegram_html import assert_valid_telegram_html

FEED = FeedInfo("quillon", "Quillon Notes")
POST = ParsedItem("k", "Workshop tickets", "https://q.example/t", None, None, (), "", "f", 0)
LONG = (
    "When the lab opened in 1974 she was a pioneer {} computing, and for the next thirty years "
    "she taught the first courses on compilers that the university had ever offered."
)
PRICE = TextDiff(
    added=("Tickets for the workshop now cost $59 per seat.",),
    removed=("Tickets for the workshop now cost $49 per seat.",),
)


def edit(diff: TextDiff, language: str = "en", form: Format = Format.SUMMARY, **kw: object) -> str:
    model = ModelText(explained=str(kw["explained"])) if "explained" in kw else None
    message = render_change(
        Change(ChangeKind.EDITED, POST, diff), FEED, translator(language), form=form, model=model
    )
    assert_valid_telegram_html(message)
    return message


def body(message: str) -> list[str]:
    return message.split("\n\n", 1)[1].split("\n")


def test_a_minor_edit_reads_in_one_line_with_the_word_marked() -> None:
    diff = TextDiff(added=(LONG.format("of"),), removed=(LONG.format("in"),), minor=True)
    message = edit(diff)
    assert message.startswith('<b>Minor edit: <a href="https://q.example/t">')
    assert body(message) == [
        "When the lab opened in 1974 she was a pioneer <s>in</s> <b>of</b> computing, and for "
        "the next thirty years she taught the first courses on compilers that the university "
        "had ever offered."
    ]


@pytest.mark.parametrize(
    ("language", "header"),
    [("en", "Updated: "), ("es", "Actualizado: "), ("zh", "已更新：")],
)
def test_an_edit_opens_with_what_changed_then_the_marked_sentence(
    language: str, header: str
) -> None:
    message = edit(PRICE, language)
    assert message.startswith(f"<b>{header}")
    assert body(message) == [
        "<i>Workshop: $49 → $59</i>",
        "~ Tickets for the workshop now cost <s>$49</s> <b>$59</b> per seat.",
    ]


def test_a_long_changed_sentence_is_cut_around_the_change_on_both_sides() -> None:
    words = " ".join(f"w{n}" for n in range(120))
    diff = TextDiff(added=(f"{words} new {words}.",), removed=(f"{words} old {words}.",))
    (line,) = body(edit(diff))[1:]
    head, tail = line.removeprefix("~ ").split("<s>old</s> <b>new</b>")
    assert head.startswith("…") and tail.endswith("…")
    assert abs(len(head) - len(tail)) <= 8


def test_the_model_s_line_replaces_the_rule_based_one_escaped() -> None:
    message = edit(PRICE, explained="The seat price went from $49 to $59 <b>.")
    assert body(message)[0] == "<i>The seat price went from $49 to $59 &lt;b&gt;.</i>"


@pytest.mark.parametrize(
    ("language", "header"),
    [("en", "Updated: "), ("es", "Actualizado: "), ("zh", "已更新：")],
)
def test_a_title_subscription_gets_a_one_line_notice(language: str, header: str) -> None:
    message = edit(PRICE, language, form=Format.TITLE)
    assert message == (
        f'<b>{header}</b><a href="https://q.example/t">Workshop tickets</a> — '
        "<i>Workshop: $49 → $59</i>"
    )
    assert "\n" not in message


def test_changed_sentences_fill_1500_characters_then_say_how_many_more() -> None:
    """Each changed sentence counts its visible characters (struck and bold words included)."""
    olds = [f"Sentence {n} " + "w " * 140 + "here" + " v" * 140 + "." for n in range(8)]
    news = [s.replace("here", "there") for s in olds]
    lines = body(edit(TextDiff(added=tuple(news), removed=tuple(olds))))
    marked_lines = [line for line in lines if line.startswith("~ ")]
    assert len(marked_lines) == 5 and lines[-1] == "<i>… and 3 more</i>"  # 5 × ~300 = 1500
    assert lines[0] == "<i>…w w w w w there (was here) (and 7 more changes)</i>"


def test_a_notice_without_a_difference_is_its_prefix_and_title() -> None:
    message = render_change(
        Change(ChangeKind.EDITED, POST, None), FEED, translator("en"), form=Format.TITLE
    )
    assert message == '<b>Updated: </b><a href="https://q.example/t">Workshop tickets</a>'
