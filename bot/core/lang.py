"""How the pure core speaks a chat's language without loading catalogs itself.

Every user-facing string is an English gettext message id. The core receives a `Translator`
(the edge, `bot.runtime.i18n`, builds one per language from the Babel catalogs) and defaults to
`ENGLISH`, which is the message ids themselves, so the core stays free of I/O and every
existing English text is unchanged.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Translator(Protocol):
    @property
    def language(self) -> str: ...

    def gettext(self, message: str) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int) -> str: ...

    def format_date(self, value: datetime) -> str: ...


class English:
    """The source language: message ids are the English texts."""

    language = "en"

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural

    def format_date(self, value: datetime) -> str:
        return f"{value.day} {value:%b %Y}"


ENGLISH = English()


def N_(message: str) -> str:
    """Mark a message id for extraction where it is defined; it is translated where it is shown."""
    return message


class UserError(ValueError):
    """A mistake in what a user typed, explained in a message that can be translated.

    `template` is a message id with `{name}` fields, filled from `params` after translating.
    """

    def __init__(self, template: str, **params: object) -> None:
        super().__init__(template.format(**params))
        self.template = template
        self.params = params

    def translated(self, tr: Translator) -> str:
        return tr.gettext(self.template).format(**self.params)

    def sentence(self, tr: Translator) -> str:
        """The explanation as a sentence of `tr`'s language, to stand before a usage line."""
        return as_sentence(self.translated(tr), tr.language)


_FULL_STOP = {"zh": "。", "ja": "。"}


def then(first: str, second: str, language: str) -> str:
    """Two sentences one after the other: Chinese and Japanese put no space between them."""
    return f"{first}{'' if language in _FULL_STOP else ' '}{second}"


def as_sentence(text: str, language: str) -> str:
    """A capital first letter (where the script has them) and the language's own full stop:
    "the time is HH:MM" → "The time is HH:MM."; Chinese ends with "。", not "."."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    stop = _FULL_STOP.get(language, ".")
    return text if text[-1] in ".!?。！？" else text + stop
