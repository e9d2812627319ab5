"""An edit said in one line (rule-based), and which model lines are grounded in the edit."""

from __future__ import annotations

import pytest

from bot.core.messages.explain import explain, grounded
from bot.core.types import TextDiff
from bot.runtime.i18n import translator

PRICE = TextDiff(
    added=("Tickets for the workshop now cost $59 per seat.",),
    removed=("Tickets for the workshop now cost $49 per seat.",),
)
DATE = TextDiff(
    added=("Registration now closes 1 October for every track.",),
    removed=("Registration closes 15 September for every track.",),
)


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_a_price_change_is_explained_as_the_two_prices(language: str) -> None:
    line = explain(PRICE, translator(language))
    assert "$49 → $59" in line
    assert line == "Workshop: $49 → $59"  # its label, without "the", "now", "cost"


def test_a_changed_phrase_reads_as_the_new_words_and_what_they_were() -> None:
    assert explain(DATE, translator("en")) == (
        "Registration now closes 1 October (was 15 September)"
    )
    assert explain(DATE, translator("es")) == (
        "Registration now closes 1 October (antes: 15 September)"
    )
    assert (
        explain(DATE, translator("zh")) == "Registration now closes 1 October（原为 15 September）"
    )


def test_a_paragraph_added_or_removed_is_quoted_from_its_start() -> None:
    added = TextDiff(added=("A workshop on accessible design has been added to day two.",))
    assert explain(added, translator("en")) == (
        "A paragraph added: “A workshop on accessible design has been added to day two.”"
    )
    removed = TextDiff(removed=("The speaker dinner is cancelled.",))
    assert explain(removed, translator("es")) == (
        "Párrafo eliminado: «The speaker dinner is cancelled.»"
    )


def test_more_changes_are_counted_after_the_first() -> None:
    diff = TextDiff(
        added=(*PRICE.added, "Lunch is included."), removed=(*PRICE.removed, "No lunch.")
    )
    assert explain(diff, translator("en")) == "Workshop: $49 → $59 (and 2 more changes)"
    assert explain(diff, translator("zh")) == "Workshop: $49 → $59 （另有 2 处改动）"


def test_words_added_inside_a_sentence_are_quoted_with_their_context() -> None:
    diff = TextDiff(
        added=("The library opens at nine on weekdays and Saturdays.",),
        removed=("The library opens at nine on weekdays.",),
    )
    assert (
        explain(diff, translator("en"))
        == "Added: “…library opens at nine on weekdays and Saturdays”"
    )


def test_a_title_change_alone_and_a_moved_sentence() -> None:
    assert explain(TextDiff(old_title="Old", new_title="New"), translator("en")) == (
        "Title: Old → New"
    )
    same = TextDiff(added=("Same words here.",), removed=("Same words here.",))
    assert explain(same, translator("en")) == "The text was reworded or reordered."
    assert explain(TextDiff(), translator("en")) == "The text was reworded or reordered."


def test_a_model_line_is_grounded_only_in_the_edit_s_own_numbers_and_names() -> None:
    assert grounded("The workshop price rose from $49 to $59.", PRICE)
    assert grounded("El precio del taller sube de 49 $ a 59 $.", PRICE)
    assert grounded("研讨会票价从 $49 涨到 $59。", PRICE)
    assert not grounded("The price rose from $49 to $69.", PRICE)  # 69 is not in the edit
    assert not grounded("The price rose 20%.", PRICE)
    assert not grounded("Tickets at Lumenconf now cost $59.", PRICE)  # a name it invented
    assert grounded("Registration now closes on 1 October instead of 15 September.", DATE)
    assert not grounded("Registration now closes on 2 October.", DATE)


def test_numbers_in_either_separator_style_are_one_number() -> None:
    diff = TextDiff(added=("It costs 1,299.00 now.",), removed=("It cost 999.",))
    assert grounded("Ahora cuesta 1.299,00 (antes 999).", diff)
