"""The sentence that matched, and the answer a chat reads, in en, es and zh."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.core.search.query import parse
from bot.core.search.snippet import SENTENCE_CHARS, TITLE_CHARS, Found, answer, sentence
from bot.runtime.i18n import translator

TEXT = (
    "The keynote line-up is set. Hardware vendors will show new accelerators.\n"
    "Registration closes on 1 October, and student tickets are free."
)


def found(**changes: object) -> Found:
    values: dict[str, object] = {
        "title": "Your Guide to <LumenConf>",
        "link": "https://blog.example/guide/?a=1&b=2",
        "feed": "Lumen & Co",
        "date": datetime(2026, 9, 4, tzinfo=UTC),
        "version_text": TEXT,
        "current": True,
    }
    values.update(changes)
    return Found(**values)  # type: ignore[arg-type]


def test_the_sentence_holding_most_terms() -> None:
    assert sentence(TEXT, parse("tickets")) == (
        "Registration closes on 1 October, and student tickets are free."
    )
    assert sentence(TEXT, parse("keynote")) == "The keynote line-up is set."
    # the one holding both wins over the first holding one
    assert sentence(TEXT, parse("hardware accelerators")).startswith("Hardware vendors")
    assert sentence(TEXT, parse("new registration")).startswith("Hardware")  # the first of equals
    assert sentence(TEXT, parse("the registration")).startswith("The keynote")
    assert sentence(TEXT, parse("guide")) == ""  # the title matched, no sentence did
    assert sentence("今年的大会在杭州举行。门票价格上涨。", parse("价格")) == "门票价格上涨。"


def test_a_long_sentence_is_cut_around_the_words() -> None:
    long = "Filler words go here " * 30 + "and the zeppelin lands at noon " + "then more " * 30
    said = sentence(long, parse("zeppelin"))
    assert said.startswith("…") and said.endswith("…") and "zeppelin" in said
    assert len(said) <= SENTENCE_CHARS + 2
    start = sentence("Zeppelin " + "x" * 300, parse("zeppelin"))
    assert start.startswith("Zeppelin") and start.endswith("…")
    end = sentence("y" * 300 + " zeppelin", parse("zeppelin"))
    assert end.startswith("…") and end.endswith("zeppelin")
    exact = "z" * (SENTENCE_CHARS - 9) + " zeppelin"
    assert sentence(exact, parse("zeppelin")) == exact


def test_the_answer_escapes_and_links() -> None:
    text = answer([found(), found(current=False, link=None, date=None)], parse("tickets"))
    first, second = text.split("\n\n")[1:]
    assert text.startswith("Found 2 posts for <b>tickets</b>, newest first:")
    assert first == (
        '1. <b><a href="https://blog.example/guide/?a=1&amp;b=2">Your Guide to '
        "&lt;LumenConf&gt;</a></b>\nLumen &amp; Co · 4 Sep 2026\n"
        "<i>Registration closes on 1 October, and student tickets are free.</i>"
    )
    assert second.startswith("2. <b>Your Guide to &lt;LumenConf&gt;</b>\n")
    assert "Lumen &amp; Co · in an earlier version\n<i>" in second
    one = answer([found(title="T" * 400, version_text="Nothing here.")], parse("guide"))
    assert one.startswith("Found 1 post for <b>guide</b>:")
    assert "T" * (TITLE_CHARS - 1) + "…</a>" in one and "<i>" not in one
    assert "<b>&lt;b&gt;</b>" in answer([], parse("<b>"))


def test_nothing_found_in_three_languages() -> None:
    query = parse("zeppelin since:7d")
    assert answer([], query) == (
        "Nothing found for <b>zeppelin</b> in this chat's feeds.\n"
        "Only posts of the last 7 days were searched."
    )
    assert answer([], parse("zeppelin"), feed_title="A & B") == (
        "Nothing found for <b>zeppelin</b> in <b>A &amp; B</b>."
    )
    assert answer([], parse("zeppelin"), tr=translator("es")).startswith("No se encontró nada")
    assert answer([], parse("飞艇"), tr=translator("zh")).startswith("没有找到")
    spanish = answer([found()], parse("tickets"), tr=translator("es"))
    assert spanish.startswith("1 publicación encontrada para <b>tickets</b>:")
    chinese = answer([found(), found(current=False)], parse("tickets"), tr=translator("zh"))
    assert (
        chinese.startswith("找到 2 篇与 <b>tickets</b> 相关的文章") and "在较早的版本中" in chinese
    )
