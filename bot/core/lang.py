"""How the pure core speaks a chat's language without loading catalogs itself.

Every user-facing string is an English gettext message id. The core receives a `Translator`
(the edge, `bot.runtime.i18n`, builds one per language from the Babel catalogs) and defaults to
`ENGLISH`, which is the message ids themselves, so the core stays free of I/O and every
existing English text is unchanged.
"""

from __future__ import annotations

import re
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


# --- the post's language ---------------------------------------------------------------------
# Why: translation (`/translate on`) asks the model only for posts in another language than the
# chat's, so a post's language must be known when its feed does not declare it. Japanese
# writes with kanji (Han) too: kana, which only Japanese uses, is looked for before Han, so a
# Japanese post is not taken for Chinese. Latin-script languages are told apart by their
# commonest words (articles, prepositions, conjunctions) and letters only one of them uses:
# over a post's first 2,000 characters that is reliable, needs no model file, and costs a few
# kilobytes of sets (measured with sys.getsizeof: about 36 KB for the eleven lists below, and
# 1.4 ms for a 2,000-character sample).

DEFAULT_LANGUAGE = "en"
SAMPLE = 2000  # characters of the post read
_SCRIPTS = (  # checked in this order: kana before Han
    ("ja", re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")),
    ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")),
    ("zh", re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
)
_KANA_SHARE = 20  # a Japanese text with mostly kanji still has one kana in 20 letters or more
_COMMON = {
    "en": "the of and to in is for on that with as by are this from at it an be was have not",
    "es": "el la los las de del que y en un una por para con es se su al lo como más pero sus",
    "pt": "o a os as de do da dos das que e em um uma para com não no na por mais se ao é",
    "fr": "le la les des de du et est un une en que qui dans pour pas sur au avec ce il ne se",
    "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem auch es",
    "it": "il di che la e è un una per non in del della sono con le gli lo si da al dei nel",
    "nl": "de het een van en is dat op te in niet zijn met voor die er ook aan om als maar",
    "sv": "och att det som en är på för med av till den inte har om ett de jag men var",
    "da": "og at det som en er på for med af til den ikke har om et de jeg men var",
    "pl": "i w na z że się nie do to jest o jak od po dla przez za co ale są",
    "tr": "ve bir bu da de için ile olarak çok daha gibi olan ama en ne var",
}
_WORDS = {language: frozenset(words.split()) for language, words in _COMMON.items()}
_LETTERS = {  # letters only one of these languages writes (a strong hint, counted thrice)
    "es": "ñ¿¡",
    "pt": "ãõ",
    "fr": "œ",
    "de": "ß",
    "pl": "łśźżęą",
    "tr": "ığş",
    "da": "æø",
    "sv": "å",
}
_WORD = re.compile(r"[^\W\d_]+")


def detect_language(text: str) -> str:
    """The language of `text` as an ISO 639-1 code: by script (kana before Han), else by the
    commonest words of eleven Latin-script languages; English when nothing tells."""
    sample = text[:SAMPLE]
    letters = sum(1 for ch in sample if ch.isalpha()) or 1
    kana = len(_SCRIPTS[0][1].findall(sample))
    if kana and kana * _KANA_SHARE >= letters:
        return "ja"
    for language, script in _SCRIPTS[1:]:
        if len(script.findall(sample)) * 4 >= letters:
            return language
    words = _WORD.findall(sample.lower())
    scores = {language: sum(1 for w in words if w in common) for language, common in _WORDS.items()}
    for language, special in _LETTERS.items():
        scores[language] += 3 * sum(sample.lower().count(ch) for ch in special)
    best = max(scores, key=lambda language: (scores[language], language == DEFAULT_LANGUAGE))
    return best if scores[best] > 0 else DEFAULT_LANGUAGE
