"""Edits that matter: counters, templates and excerpt switches judged across one poll."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.detection.edits import (
    _EXCERPT_MARK,
    LONGEST_MARK,
    MAX_FOOTER_CHARS,
    MAX_PLACES,
    Absorbed,
    Verdict,
    cut_mark,
    excerpt_direction,
    is_excerpt,
    judge,
    number_places,
)
from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.core.types import ParsedItem, StoredItem, TextDiff
from tests.support.posts import post, was


def verdicts(pairs: list[tuple[StoredItem, ParsedItem]], known: int = 0) -> dict[str, Verdict]:
    return {v.key: v for v in judge(pairs, known or len(pairs))}


def test_number_places_name_the_words_around_each_changed_number() -> None:
    assert number_places("Points: 336", "Points: 351") == [("Points:|#",)]
    assert number_places("It has 45 comments now", "It has 47 comments now") == [
        ("has|#", "#|comments")
    ]
    assert number_places("1,204", "1,377") == [("#",)]
    assert number_places("a 1 b 2", "a 1 b 3") == [("b|#",)]


def test_counters_changing_in_most_items_are_not_edits() -> None:
    pairs = []
    for n in range(6):
        now = post(f"k{n}", f"A story about boats number {n}.\n\nScore {10 + n} of {n}")
        pairs.append((was(now, f"A story about boats number {n}.\n\nScore {3 + n} of {n}"), now))
    result = verdicts(pairs, known=10)
    assert {v.absorbed for v in result.values()} == {Absorbed.COUNTERS}
    assert all(v.diff is None for v in result.values())
    assert result["k0"].places == ("Score|#", "#|of")


def test_a_number_changed_in_one_post_alone_is_an_edit() -> None:
    now = post("p", "The kit costs $52 this season. It has fins.")
    other = post("q", "Nothing here changes.")
    result = verdicts([(was(now, "The kit costs $45 this season. It has fins."), now)], known=8)
    diff = result["p"].diff
    assert diff == TextDiff(
        added=("The kit costs $52 this season.",), removed=("The kit costs $45 this season.",)
    )
    assert result["p"].absorbed is None and other.key not in result


def test_a_counting_word_makes_a_counter_even_in_one_item() -> None:
    now = post("p", "Great dive. 47 comments")
    result = verdicts([(was(now, "Great dive. 45 comments"), now)], known=9)
    assert result["p"].absorbed is Absorbed.COUNTERS and result["p"].diff is None
    views = post("v", "Seen by many: views 1.2k")
    assert verdicts([(was(views, "Seen by many: views 987"), views)], 9)["v"].diff is None


def test_a_place_where_numbers_changed_before_is_a_counter_for_that_item() -> None:
    now = post("p", "Viewed 180 times.")
    fresh = verdicts([(was(now, "Viewed 120 times."), now)], known=9)["p"]
    assert fresh.diff is not None and fresh.places == ("Viewed|#", "#|times.")
    again = verdicts([(was(now, "Viewed 120 times.", volatile=fresh.places), now)], 9)["p"]
    assert again.diff is None and again.absorbed is Absorbed.COUNTERS


def test_remembered_places_are_capped() -> None:
    old_places = tuple(f"w{n}|#" for n in range(MAX_PLACES))
    now = post("p", "Viewed 180 times.")
    result = verdicts([(was(now, "Viewed 120 times.", volatile=old_places), now)], 9)["p"]
    assert len(result.places) == MAX_PLACES
    assert result.places[-2:] == ("Viewed|#", "#|times.")


def test_counters_in_titles_are_not_title_edits() -> None:
    pairs = []
    for n in range(3):
        now = post(f"k{n}", "Body.", title=f"Story {n} ({40 + n} points)")
        pairs.append((was(now, "Body.", title=f"Story {n} ({30 + n} points)"), now))
    result = verdicts(pairs)
    assert all(v.absorbed is Absorbed.COUNTERS for v in result.values())
    renamed = post("r", "Body.", title="Release 2.1 is out")
    edit = verdicts([(was(renamed, "Body.", title="Release 2.0 is out"), renamed)], 9)["r"]
    assert edit.diff == TextDiff(old_title="Release 2.0 is out", new_title="Release 2.1 is out")


def footer(item: ParsedItem) -> str:
    return f"The post {item.title} appeared first on Tidepool."


def test_a_footer_added_to_most_items_is_a_template_and_a_correction_still_counts() -> None:
    pairs = []
    for n in range(5):
        base = f"Post number {n} is about the sea."
        item = post(f"k{n}", "")
        extra = " Correction: it was the east pier." if n == 2 else ""
        item = post(f"k{n}", f"{base}{extra}\n\n{footer(item)}")
        pairs.append((was(item, base), item))
    result = verdicts(pairs, known=10)
    assert result["k0"].absorbed is Absorbed.TEMPLATE and result["k0"].diff is None
    assert result["k2"].diff == TextDiff(added=("Correction: it was the east pier.",))
    removed = [(was(i, i.text), replace(i, text=s.text, fingerprint="x")) for s, i in pairs]
    back = verdicts(removed, known=10)
    assert all(v.absorbed is Absorbed.TEMPLATE for k, v in back.items() if k != "k2")


def test_a_sentence_in_one_item_only_is_no_template() -> None:
    item = post("k", "Intro.\n\nThe post Post k appeared first on Tidepool.")
    result = verdicts([(was(item, "Intro."), item)], known=1)
    assert result["k"].diff == TextDiff(added=("The post Post k appeared first on Tidepool.",))


def test_the_link_is_taken_out_like_the_title() -> None:
    pairs = []
    for n in range(3):
        link = f"https://s.example/{n}"
        item = post(f"k{n}", f"Body {n}.\n\nRead it at {link} today.", link=link)
        pairs.append((was(item, f"Body {n}."), item))
    assert all(v.absorbed is Absorbed.TEMPLATE for v in verdicts(pairs).values())


FULL = (
    "Tide tables look like a wall of numbers at first. Each row is a high or a low water. "
    "Once you know the reference port the rest follows."
)


@pytest.mark.parametrize(
    ("short", "full", "expected"),
    [
        ("Tide tables look like a wall of numbers at first. Each row [&#8230;]", FULL, True),
        ("Tide tables look like a wall of numbers … Read more", FULL, True),
        ("Tide tables look like a wall of numbers... The post X appeared first on Y.", FULL, True),
        ("Tide tables look like a wall of numbers at first. Each row is a high tide.", FULL, False),
        ("Tide tables look like a wall... " + "of numbers at first " * 12, FULL, False),
        ("Tide tables look like a wall of numbers at first. Continue reading →", FULL, True),
        ("Tide tables look", FULL, False),  # too short to tell
        (FULL, FULL, False),
        ("A different summary written by hand for this post.", FULL, False),
    ],
)
def test_is_excerpt(short: str, full: str, expected: bool) -> None:
    assert is_excerpt(short, full) is expected


def test_excerpt_direction() -> None:
    excerpt = "Tide tables look like a wall of numbers at first. […]"
    assert excerpt_direction(excerpt, FULL) == 1
    assert excerpt_direction(FULL, excerpt) == -1
    assert excerpt_direction(FULL, FULL.replace("port", "harbour")) == 0


def test_full_text_arriving_for_most_items_is_an_excerpt_switch() -> None:
    pairs = []
    for n in range(4):
        parts = [f"Story {n}, part {k}, is about tides and harbours." for k in range(4)]
        item = post(f"k{n}", " ".join(parts), full=False)
        pairs.append((was(item, f"{parts[0]} {parts[1][:20]} […]"), item))
    result = verdicts(pairs, known=4)
    assert all(v.absorbed is Absorbed.EXCERPT for v in result.values())
    # One item alone, whose stored text was a teaser cut with "[…]": the same post with its
    # full text now, not an edit (issue 26; it used to be one).
    assert verdicts(pairs[:1], known=4)["k0"].absorbed is Absorbed.EXCERPT


def test_one_post_growing_alone_is_an_edit() -> None:
    item = post("k", f"{FULL} A new paragraph about the harbour was added today.", full=True)
    result = verdicts([(was(item, FULL, full=True), item)], known=10)
    assert result["k"].diff == TextDiff(
        added=("A new paragraph about the harbour was added today.",)
    )


def test_an_excerpt_is_compared_with_the_stored_excerpt() -> None:
    item = post("k", "A hand-written summary.", full=False, excerpt_hash="E")
    same = verdicts([(was(item, FULL, full=True, excerpt_hash="E"), item)], known=10)["k"]
    assert same.absorbed is Absorbed.EXCERPT
    other = verdicts([(was(item, FULL, full=True, excerpt_hash="F"), item)], known=10)["k"]
    assert other.diff is not None
    unknown = verdicts([(was(item, FULL, excerpt_hash="E"), item)], known=10)["k"]
    assert unknown.diff is not None  # stored before Feedwatch knew excerpts from full text
    prefix = post("p", "Tide tables look like a wall of numbers at first. […]", full=False)
    cut = verdicts([(was(prefix, FULL, full=True), prefix)], known=10)["p"]
    assert cut.absorbed is Absorbed.EXCERPT


def test_another_fingerprint_version_with_the_same_words_is_rebaselined() -> None:
    item = post("k", "Same words here.")
    old = replace(was(item, "Same  words here!"), fingerprint_version="")
    assert verdicts([(old, item)])["k"].absorbed is Absorbed.VERSION
    changed = replace(was(item, "Other words here."), fingerprint_version="")
    assert verdicts([(changed, item)])["k"].diff is not None


def test_an_edit_lists_sentences_in_reading_order() -> None:
    item = post("k", "One. Two changed. Three. Four 5 apples.")
    old = was(item, "One. Two. Three. Four 4 apples.")
    diff = verdicts([(old, item)], known=10)["k"].diff
    assert diff == TextDiff(
        added=("Two changed.", "Four 5 apples."), removed=("Two.", "Four 4 apples.")
    )


def test_a_reordering_is_still_an_edit() -> None:
    item = post("k", "Two. One.")
    assert verdicts([(was(item, "One. Two."), item)])["k"].diff == TextDiff()


def test_counting_words_are_read_without_punctuation_or_case() -> None:
    item = post("p", "Great dive (47 Comments)")
    assert verdicts([(was(item, "Great dive (45 Comments)"), item)], 9)["p"].diff is None
    glued = post("q", "Depth 47|comments")  # the place is `Depth|#|comments`: read word by word
    assert verdicts([(was(glued, "Depth 45|comments"), glued)], 9)["q"].diff is None


def test_a_template_shared_by_exactly_the_threshold_of_items_counts() -> None:
    pairs = []
    for n in range(3):
        item = post(f"k{n}", f"Body {n}.\n\nShared line added here.")
        pairs.append((was(item, f"Body {n}."), item))
    # 9 known items: the threshold is 3
    assert all(v.absorbed is Absorbed.TEMPLATE for v in verdicts(pairs, known=9).values())
    assert all(v.diff is not None for v in verdicts(pairs[:2], known=9).values())
    removed = [(was(i, f"{i.text} Gone line here."), i) for _, i in pairs]
    assert all(v.absorbed is Absorbed.TEMPLATE for v in verdicts(removed, known=9).values())


def test_a_switch_shared_by_exactly_the_threshold_of_items_counts() -> None:
    pairs = []
    for n in range(3):
        parts = [f"Story {n}, part {k}, is about tides and harbours." for k in range(3)]
        item = post(f"k{n}", " ".join(parts))
        pairs.append((was(item, parts[0]), item))
    assert all(v.absorbed is Absorbed.EXCERPT for v in verdicts(pairs, known=9).values())
    excerpted = verdicts(pairs, known=9)
    assert excerpted["k0"].places == ()


def test_an_excerpt_switch_keeps_the_remembered_places() -> None:
    item = post("k", "Tide tables look like a wall of numbers at first. […]", full=False)
    old = was(item, FULL, full=True, volatile=("a|#",))
    assert verdicts([(old, item)], known=10)["k"].places == ("a|#",)


def test_removed_sentences_are_shown_with_the_old_title_and_link() -> None:
    old_link, new_link = "https://s.example/old", "https://s.example/new"
    item = post("k", "Intro. See Fresh title now.", "Fresh title", link=new_link)
    before = StoredItem(
        "k",
        "Old title",
        f"Intro. Read Old title at {old_link} please.",
        fingerprint("Old title", "x"),
        None,
        FINGERPRINT_VERSION,
        link=old_link,
    )
    diff = verdicts([(before, item)], known=10)["k"].diff
    assert diff == TextDiff(
        old_title="Old title",
        new_title="Fresh title",
        added=("See Fresh title now.",),
        removed=(f"Read Old title at {old_link} please.",),
    )
    unlinked = post("u", "Intro. New words.")
    plain = StoredItem(
        "u", unlinked.title, f"Intro. At {_LINK_MARK} old.", "f", None, FINGERPRINT_VERSION
    )
    assert verdicts([(plain, unlinked)], 10)["u"].diff == TextDiff(
        added=("New words.",), removed=("At  old.",)
    )


_LINK_MARK = "\ue001"


def test_removed_and_added_sentences_keep_their_own_reading_order() -> None:
    item = post("k", "Alpha new. Beta. Gamma new. Delta.")
    old = was(item, "Beta. Zeta old. Delta. Eta old.")
    diff = verdicts([(old, item)], known=10)["k"].diff
    assert diff == TextDiff(added=("Alpha new.", "Gamma new."), removed=("Zeta old.", "Eta old."))


def test_a_footer_up_to_two_hundred_characters_may_follow_the_cut() -> None:
    head = "Tide tables look like a wall of numbers at first. […] "
    assert is_excerpt(head + "f" * 198, FULL)
    assert is_excerpt(head + "f" * 199, FULL)  # 200 characters after the cut
    assert not is_excerpt(head + "f" * 200, FULL)


def test_a_changed_number_before_a_changed_sentence_keeps_reading_order() -> None:
    item = post("k", "One 2 apples. Two changed. Three.")
    old = was(item, "One 1 apples. Two. Three.")
    diff = verdicts([(old, item)], known=10)["k"].diff
    assert diff == TextDiff(
        added=("One 2 apples.", "Two changed."), removed=("One 1 apples.", "Two.")
    )


def test_the_stored_link_is_taken_out_of_the_stored_text() -> None:
    link = "https://s.example/k"
    item = post("k", f"Read it at {link} today. New line.", link=link)
    old = was(item, f"Read it at {link} today.")
    assert verdicts([(old, item)], known=10)["k"].diff == TextDiff(added=("New line.",))


def test_an_excerpt_of_exactly_twenty_letters_counts() -> None:
    assert is_excerpt("Tide tables look like a w […]", FULL)  # 20 letters
    assert not is_excerpt("Tide tables look like a […]", FULL)  # 19


def test_an_excerpt_is_strictly_shorter_than_the_text() -> None:
    assert not is_excerpt("Tide, tables, look, like, a, wall", "Tide tables look like a wall of n")
    assert not is_excerpt("Tide tables look like a wall", "Tide tables look like a wall!!!")


def test_a_text_whose_beginning_is_mostly_punctuation_is_read_to_its_end() -> None:
    assert is_excerpt("a" * 20, "a" * 20 + " " * 84 + "bbbb")
    assert not is_excerpt("a" * 20, "a" * 20 + " " * 84 + "    ")


def _scanned(text: str) -> tuple[int, int] | None:
    """What `cut_mark` stands for: every mark of the whole text, the last one if it counts."""
    marks = list(_EXCERPT_MARK.finditer(text))
    if marks and len(text) - marks[-1].end() <= MAX_FOOTER_CHARS:
        return marks[-1].span()
    return None


_PIECES = st.sampled_from(
    ["Read more", "read  more", "…", "...", "[…]", "&hellip;", " ", "x", "é", "全", ".", "\n",
     "subscribe to keep reading", "this post is for paid members", "to read the full story"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=40), st.integers(0, 400))
def test_the_cut_mark_is_the_one_a_whole_scan_finds(pieces: list[str], padding: int) -> None:
    """Only the tail is scanned first; the answer is a whole scan's, marks anywhere included."""
    text = "word " * padding + "".join(pieces)
    found = cut_mark(text)
    assert (found.span() if found else None) == _scanned(text)


def test_no_cut_mark_is_longer_than_the_tail_allows() -> None:
    longest = re._parser.parse(_EXCERPT_MARK.pattern, _EXCERPT_MARK.flags).getwidth()[1]  # type: ignore[attr-defined]
    assert longest < LONGEST_MARK
    text = "Read more about it. " * 2000 + "This article is for paid subscribers."
    found = cut_mark(text)  # the longest mark, at the end of a long text
    assert found is not None and found.group() == "This article is for paid subscribers"
