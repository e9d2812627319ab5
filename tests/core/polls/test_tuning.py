"""What a reaction changes (issue 46)."""

from __future__ import annotations

from bot.core.polls.tuning import DOWN, LIMIT, UP, bounded, delta, word_to_exclude


def test_delta_of_one_persons_change() -> None:
    assert delta([], [UP]) == 1
    assert delta([], [DOWN]) == -1
    assert delta([UP], []) == -1
    assert delta([DOWN], []) == 1
    assert delta([UP], [DOWN]) == -2
    assert delta([DOWN], [UP]) == 2
    assert delta([UP], [UP, "🔥"]) == 0
    assert delta(["🔥"], ["❤"]) == 0
    assert delta([], [UP, DOWN]) == 0


def test_bounded() -> None:
    assert bounded(LIMIT + 1) == LIMIT == 10
    assert bounded(-LIMIT - 5) == -LIMIT
    assert bounded(3) == 3
    assert bounded(LIMIT) == LIMIT and bounded(-LIMIT) == -LIMIT


def test_word_to_exclude() -> None:
    assert word_to_exclude("Webinar: what your compiler does") == "compiler"
    assert word_to_exclude("Join our webinar about Kubernetes") == "Kubernetes"
    assert word_to_exclude("A to Z") is None
    assert word_to_exclude("Their 2026 plans") == "plans"
    assert word_to_exclude("abcd efgh") == "abcd"
    assert word_to_exclude("about") is None
