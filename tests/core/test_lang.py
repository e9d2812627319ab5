"""User errors carry a message id and its fields, so the edge can show them in any language."""

from __future__ import annotations

from datetime import datetime

from bot.core.lang import ENGLISH, UserError


class Spanish:
    language = "es"

    def gettext(self, message: str) -> str:
        return {"at most {count} keywords": "como máximo {count} palabras clave"}[message]

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural

    def format_date(self, value: datetime) -> str:
        return value.isoformat()


def test_a_user_error_is_translated_then_filled_in() -> None:
    error = UserError("at most {count} keywords", count=50)
    assert str(error) == error.translated(ENGLISH) == "at most 50 keywords"
    assert error.translated(Spanish()) == "como máximo 50 palabras clave"
    assert (error.template, error.params) == ("at most {count} keywords", {"count": 50})


def test_english_picks_singular_and_plural_by_count() -> None:
    assert ENGLISH.ngettext("post", "posts", 1) == "post"
    assert ENGLISH.ngettext("post", "posts", 0) == "posts"
    assert ENGLISH.format_date(datetime(2026, 9, 8)) == "8 Sep 2026"


def test_explanations_become_sentences_of_their_language() -> None:
    """Issue 25: error replies start with a capital letter and end with the language's own
    full stop, without a space between Chinese sentences."""
    from bot.core.lang import as_sentence, then

    assert as_sentence("the time is HH:MM, e.g. 08:30", "en") == "The time is HH:MM, e.g. 08:30."
    assert as_sentence("时间格式为 HH:MM", "zh") == "时间格式为 HH:MM。"
    assert as_sentence("Already ends!", "es") == "Already ends!"
    assert as_sentence("", "en") == ""
    assert then("一。", "二。", "zh") == "一。二。"
    assert then("One.", "Two.", "en") == "One. Two."
