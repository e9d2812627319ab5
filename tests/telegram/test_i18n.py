"""Catalogs: every message id the code uses is translated in every language, with the same
placeholders and markup, and the template is current. Plus choosing a language from Telegram."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from bot.core.lang import ENGLISH
from bot.core.messages.render import render_change
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem, TextDiff
from bot.runtime.i18n import LANGUAGES, from_client, parse_choice, translator

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "bot" / "locale"
TRANSLATED = [code for code in LANGUAGES if code != "en"]
_FIELD = re.compile(r"\{(\w*)\}")
_TAG = re.compile(r"</?(?:b|i|u|s|code|pre|a)\b[^>]*>")

MessageId = str | tuple[str, str]


def source_ids() -> set[MessageId]:
    """What the code asks gettext for, found the way `./dev i18n` finds it (Babel's extractor)."""
    ids: set[MessageId] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(str(ROOT / "bot")):
        ids.add(message if isinstance(message, str) else (message[0], message[1]))
    return ids


def load(language: str) -> Catalog:
    with (LOCALE / language / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=language)


def catalog_ids(catalog: Catalog) -> set[MessageId]:
    return {m.id if isinstance(m.id, str) else (m.id[0], m.id[1]) for m in catalog if m.id}


def test_the_code_uses_the_message_ids_we_expect() -> None:
    ids = source_ids()
    assert len(ids) > 100
    for expected in ("Updated: ", "<b>Added:</b>", "what this bot does", "Usage: {usage}"):
        assert expected in ids
    assert ("Unsubscribed from {count} feed.", "Unsubscribed from {count} feeds.") in ids


def test_the_template_is_current() -> None:
    """`./dev i18n` was run after the last text change."""
    with (LOCALE / "messages.pot").open("rb") as pot:
        assert catalog_ids(read_po(pot)) == source_ids()


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_catalog_covers_every_message_id(language: str) -> None:
    catalog = load(language)
    ids = source_ids()
    assert sorted(map(str, ids - catalog_ids(catalog))) == [], "untranslated"
    assert sorted(map(str, catalog_ids(catalog) - ids)) == [], "obsolete"
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        forms = _forms(message.string)
        assert len(forms) == (catalog.num_plurals if message.pluralizable else 1), message.id
        assert all(form.strip() for form in forms), f"empty translation of {message.id!r}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_placeholders_and_markup(language: str) -> None:
    """A missing `{title}` loses information, an unknown one raises, a lost `</b>` breaks HTML."""
    for message in load(language):
        if not message.id:
            continue
        ids = _forms(message.id)
        forms = _forms(message.string)
        fields = set(_FIELD.findall(ids[-1]))
        tags = Counter(_TAG.findall(ids[-1]))
        for index, form in enumerate(forms):
            used = set(_FIELD.findall(form))
            assert used <= fields, f"{language}: unknown field in {form!r}"
            if not message.pluralizable or index == len(forms) - 1:
                # a singular form may say "one" instead of {count}; the others say everything
                assert used == fields, f"{language}: {form!r} drops a field of {ids[-1]!r}"
            assert Counter(_TAG.findall(form)) == tags, f"{language}: markup differs in {form!r}"
            form.format(**dict.fromkeys(fields, "x"))  # no stray braces


def test_plural_forms_follow_the_language() -> None:
    es, zh = translator("es"), translator("zh")
    singular, plural = "Unsubscribed from {count} feed.", "Unsubscribed from {count} feeds."
    assert es.ngettext(singular, plural, 1) == "Cancelada la suscripción a {count} feed."
    assert es.ngettext(singular, plural, 2) == "Canceladas las suscripciones a {count} feeds."
    assert zh.ngettext(singular, plural, 1) == zh.ngettext(singular, plural, 5)
    assert ENGLISH.ngettext(singular, plural, 1) == singular


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "en"),
        ("en-GB", "en"),
        ("es", "es"),
        ("es-419", "es"),
        ("ES_mx", "es"),
        ("zh-hans", "zh"),
        ("zh-hant", "zh"),
        ("zh", "zh"),
        ("pt-br", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_the_client_language_picks_ours_or_english(code: str | None, expected: str) -> None:
    assert from_client(code) == expected


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("es", "es"),
        ("ES", "es"),
        ("español", "es"),
        ("Spanish", "es"),
        ("zh-CN", "zh"),
        ("中文", "zh"),
        ("english", "en"),
        ("fr", None),
        ("klingon", None),
        ("es" * 20, None),
    ],
)
def test_language_choices(typed: str, expected: str | None) -> None:
    assert parse_choice(typed) == expected


def test_unknown_or_missing_languages_are_english() -> None:
    assert translator(None) is ENGLISH
    assert translator("fr") is ENGLISH
    assert translator("es") is translator("es")  # compiled once


def test_messages_in_each_language() -> None:
    item = ParsedItem(
        key="k",
        title="Compilers",
        link="https://x.example/p",
        author=None,
        published=datetime(2026, 9, 8, 1, tzinfo=UTC),
        categories=("Blog",),
        text="",
        fingerprint="f",
        position=0,
    )
    diff = TextDiff(old_title=None, new_title=None, added=("New sentence.",), removed=())
    change = Change(ChangeKind.EDITED, item, diff)
    feed = FeedInfo("lumen", "Lumen Blog")
    english = render_change(change, feed)
    assert english.startswith('<b>Updated: <a href="https://x.example/p">Compilers</a></b>\n')
    assert "Lumen Blog · 8 Sep 2026" in english
    spanish = render_change(change, feed, translator("es"))
    assert spanish.startswith("<b>Actualizado: <a")
    assert "Lumen Blog · 8 sept 2026" in spanish
    assert "<b>Añadido:</b>\n+ New sentence." in spanish
    chinese = render_change(change, feed, translator("zh"))
    assert chinese.startswith("<b>已更新：<a")
    assert "Lumen Blog · 2026年9月8日" in chinese
    assert "<b>新增：</b>" in chinese


def test_digest_and_summary_are_different_words() -> None:
    """A digest (a periodic bundle) and a summary (a post's short text) were one word in es/zh."""
    for language, digest_word, summary_word in (
        ("es", "Boletín", "resumen"),
        ("zh", "汇总", "摘要"),
    ):
        tr = translator(language)
        digest = tr.gettext("Digest for <b>{title}</b>: every hour.")
        assert digest_word in digest and summary_word not in digest.casefold()
        menu = tr.gettext("one summary per hour or day")  # /digest's menu entry
        assert digest_word.casefold() in menu.casefold() and summary_word not in menu
    zh = translator("zh")
    assert "不像" not in zh.gettext("That file is too large for an OPML list (1 MB at most).")
    es = translator("es")
    assert "debe tener el formato" in es.gettext("the time is HH:MM, e.g. 08:30")


def _forms(string: object) -> tuple[str, ...]:
    """A catalog entry's translations: one, or one per plural form."""
    forms = string if isinstance(string, tuple | list) else (string,)
    return tuple(str(form or "") for form in forms)
