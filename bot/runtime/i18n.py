"""The chat's language: Babel catalogs loaded into translators for the core and the handlers.

Catalogs are the `.po` files under `bot/locale/` (English is the message ids themselves). They
are compiled in memory at first use, so there is no generated `.mo` file to forget to rebuild;
`./dev i18n` extracts new message ids and merges them into every catalog.
"""

from __future__ import annotations

import gettext
import io
from datetime import datetime
from functools import cache
from importlib import resources

from babel import Locale
from babel.dates import format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.core.lang import ENGLISH, Translator

DEFAULT = "en"
LANGUAGES = {"en": "English", "zh": "中文", "es": "Español"}
DOMAIN = "messages"
_ALIASES = {
    "english": "en",
    "chinese": "zh",
    "spanish": "es",
    "espanol": "es",
    "español": "es",
    "中文": "zh",
    "简体中文": "zh",
}


def _ours(tag: str) -> str | None:
    """An IETF tag (`es-419`, `zh_Hans`) → one of our languages by its primary subtag."""
    primary = tag.replace("_", "-").split("-")[0].casefold()
    return primary if primary in LANGUAGES else None


def from_client(language_code: str | None) -> str:
    """Telegram's `language_code` → ours, else English."""
    return _ours(language_code or "") or DEFAULT


def parse_choice(text: str) -> str | None:
    """What a user may type after /language: a code, a tag, or the language's name."""
    word = text.strip().casefold()
    return _ALIASES.get(word) or _ours(word)


class Catalog:
    """A language other than English: gettext over a compiled catalog, dates from CLDR."""

    def __init__(self, language: str, translations: gettext.GNUTranslations) -> None:
        self.language = language
        self._translations = translations
        self._locale = Locale.parse(language)

    def gettext(self, message: str) -> str:
        return self._translations.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._translations.ngettext(singular, plural, n)

    def format_date(self, value: datetime) -> str:
        return format_date(value, format="medium", locale=self._locale)


@cache
def translator(language: str | None) -> Translator:
    """The translator for a stored chat language; unknown or empty means English."""
    if not language or language == DEFAULT or language not in LANGUAGES:
        return ENGLISH
    source = resources.files("bot") / "locale" / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with source.open("rb") as po:
        catalog = read_po(po, locale=language, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Catalog(language, gettext.GNUTranslations(compiled))
