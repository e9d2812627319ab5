"""The post's language when its feed declares none (issue 42): kana before Han, and the
Latin-script languages told apart by their commonest words and letters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.lang import UserError, as_sentence, detect_language, then
from bot.runtime.i18n import translator

SAMPLES = {
    "en": "The new release is out, and it brings many improvements for the people who build on it.",
    "es": "La nueva versión ya está aquí y trae muchas mejoras para los que trabajan con el sistema.",
    "pt": "A nova versão já está disponível e traz muitas melhorias para quem trabalha com o sistema.",
    "fr": "La nouvelle version est disponible et apporte des améliorations pour ceux qui travaillent.",
    "de": "Die neue Version ist da und bringt viele Verbesserungen für die Entwickler mit dem System.",
    "it": "La nuova versione è disponibile e porta molti miglioramenti per chi lavora con il sistema.",
    "nl": "De nieuwe versie is beschikbaar en brengt veel verbeteringen voor wie met het systeem werkt.",
    "sv": "Den nya versionen är här och har många förbättringar för den som arbetar med systemet.",
    "pl": "Nowa wersja jest już dostępna i przynosi wiele ulepszeń dla tych, którzy pracują z systemem.",
    "ja": "東京で新しい研究所が開設されました。研究者たちは量子計算の実験を行っています。",
    "zh": "寒武纪加入了开源基金会，将参与硬件工作组的讨论。",
    "ko": "캠브리콘이 재단에 합류했습니다",
    "ru": "Камбрикон присоединяется к фонду",
}


@pytest.mark.parametrize(("language", "text"), SAMPLES.items())
def test_each_language_is_recognised(language: str, text: str) -> None:
    assert detect_language(text) == language


def test_japanese_with_mostly_kanji_is_japanese_not_chinese() -> None:
    """Kana is looked for first: one kana letter in twenty is Japanese."""
    assert detect_language("量子計算機研究所新設発表会開催予定の東京大学が") == "ja"
    assert detect_language("量子计算机研究所新设发布会在东京大学举行") == "zh"


def test_a_few_foreign_words_do_not_change_an_english_post() -> None:
    assert detect_language("The PyTorch 2.5 release notes mention 寒武纪 support") == "en"
    assert detect_language("We ate paella and the best churros in town at the festival") == "en"
    assert detect_language("") == "en"
    assert detect_language("1234 5678") == "en"


@given(st.text(max_size=300))
def test_every_text_gets_a_two_letter_code(text: str) -> None:
    assert len(detect_language(text)) == 2


def test_sentences_and_their_joins_follow_the_language() -> None:
    assert as_sentence("  the time is 09:00 ", "en") == "The time is 09:00."
    assert as_sentence("时间是 09:00", "zh") == "时间是 09:00。"
    assert as_sentence("done!", "es") == "Done!"
    assert as_sentence("", "en") == ""
    assert then("One.", "Two.", "en") == "One. Two."
    assert then("一。", "二。", "zh") == "一。二。"
    assert then("一。", "二。", "ja") == "一。二。"
    error = UserError("unknown zone {zone}", zone="Mars/Base")
    assert str(error) == "unknown zone Mars/Base"
    assert error.sentence(translator("en")) == "Unknown zone Mars/Base."


def test_script_shares_decide_before_words() -> None:
    """A quarter of the letters in a script makes the text that script's language; kana
    counts from one letter in twenty."""
    assert detect_language("abc " * 10 + "汉字" * 10) == "zh"  # 20 of 50 letters
    assert detect_language("the " * 30 + "汉字" * 10) == "en"  # 20 of 110: under a quarter
    assert detect_language("Привет " + "the " * 3) == "ru"
    assert detect_language("the and of " * 3 + "か") == "en"  # one kana in 25 letters
    assert detect_language("the and of " * 2 + "か") == "ja"  # one in 17
    assert detect_language("日本語" * 6 + "です") == "ja"
    assert detect_language("Año ñandú") == "es"  # its letter alone decides
    assert detect_language("Straße") == "de"
