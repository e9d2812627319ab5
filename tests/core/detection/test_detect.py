"""Change detection: new, edited, nothing else; reading order; idempotence (hypothesis)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.core.detection.detect import detect
from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.core.types import ChangeKind, ParsedFeed, ParsedItem, StoredItem

BASE = datetime(2026, 9, 1, tzinfo=UTC)


def item(
    key: str, text: str, *, pos: int = 0, hours: int | None = 0, title: str = "T"
) -> ParsedItem:
    published = None if hours is None else BASE + timedelta(hours=hours)
    return ParsedItem(
        key=key,
        title=title,
        link=None,
        author=None,
        published=published,
        categories=(),
        text=text,
        fingerprint=fingerprint(title, text),
        position=pos,
    )


def stored(items: list[ParsedItem]) -> dict[str, StoredItem]:
    return {
        i.key: StoredItem(i.key, i.title, i.text, i.fingerprint, None, FINGERPRINT_VERSION)
        for i in items
    }


def feed(items: list[ParsedItem]) -> ParsedFeed:
    return ParsedFeed(title="F", link=None, items=tuple(items))


item_lists = st.lists(
    st.builds(
        item,
        key=st.text(min_size=1, max_size=5),
        text=st.text(max_size=40),
        pos=st.integers(0, 50),
        hours=st.one_of(st.none(), st.integers(-100, 100)),
    ),
    max_size=12,
    unique_by=lambda i: i.key,
)


@given(item_lists)
def test_detecting_the_same_feed_twice_yields_no_events(items: list[ParsedItem]) -> None:
    first = detect(feed(items), {})
    assert len(first.changes) == len(items)
    second = detect(feed(items), stored(items))
    assert second.changes == ()
    assert set(second.unchanged) == {i.key for i in items}


@given(item_lists)
def test_first_poll_is_silent(items: list[ParsedItem]) -> None:
    assert detect(feed(items), {}, baseline=True).changes == ()


@given(item_lists)
def test_events_come_oldest_first(items: list[ParsedItem]) -> None:
    changes = detect(feed(items), {}).changes
    dated = [c.item.published for c in changes if c.item.published is not None]
    assert dated == sorted(dated)
    undated_seen = False
    for change in changes:
        if change.item.published is None:
            undated_seen = True
        else:
            assert not undated_seen, "dated items come before undated ones"


@given(item_lists, st.data())
def test_only_text_changes_are_edits(items: list[ParsedItem], data: st.DataObject) -> None:
    old = stored(items)
    if not items:
        return
    target = data.draw(st.sampled_from(items))
    extra = data.draw(st.text(min_size=1, max_size=20).filter(lambda s: s.strip()))
    changed = item(target.key, target.text + " " + extra, pos=target.position, hours=0)
    new_items = [changed if i.key == target.key else i for i in items]
    changes = detect(feed(new_items), old).changes
    assert [(c.kind, c.item.key) for c in changes] == [(ChangeKind.EDITED, target.key)]


def test_ties_on_date_fall_back_to_reverse_feed_order() -> None:
    a, b = item("a", "x", pos=0, hours=5), item("b", "y", pos=1, hours=5)
    assert [c.item.key for c in detect(feed([a, b]), {}).changes] == ["b", "a"]


def test_edit_reports_title_change_and_sentences() -> None:
    old = item("k", "Alpha one. Beta two.", title="Old title")
    new = item("k", "Alpha one. Gamma three.", title="New title")
    (change,) = detect(feed([new]), stored([old])).changes
    assert change.diff is not None
    assert (change.diff.old_title, change.diff.new_title) == ("Old title", "New title")
    assert change.diff.added == ("Gamma three.",) and change.diff.removed == ("Beta two.",)


def test_a_new_item_is_new_and_an_untouched_one_is_unchanged() -> None:
    kept, fresh = item("kept", "Same words."), item("fresh", "Brand new.")
    detection = detect(feed([fresh, kept]), stored([kept]))
    assert [(c.kind, c.item.key) for c in detection.changes] == [(ChangeKind.NEW, "fresh")]
    assert detection.unchanged == ("kept",) and detection.rebaselined == ()


def test_an_unchanged_title_produces_no_title_line() -> None:
    old, new = item("k", "Alpha one."), item("k", "Alpha one. Beta two.")
    (change,) = detect(feed([new]), stored([old])).changes
    assert change.diff is not None
    assert (change.diff.old_title, change.diff.new_title) == (None, None)
    assert change.diff.added == ("Beta two.",) and change.diff.removed == ()


def test_undated_items_come_after_dated_ones_in_reverse_feed_order() -> None:
    items = [
        item("u0", "a", pos=0, hours=None),
        item("d1", "b", pos=1, hours=3),
        item("u2", "c", pos=2, hours=None),
        item("d3", "d", pos=3, hours=1),
    ]
    assert [c.item.key for c in detect(feed(items), {}).changes] == ["d3", "d1", "u2", "u0"]


def older(it: ParsedItem, text: str, *, version: str = "1/html2text-2024.2.26") -> StoredItem:
    return StoredItem(it.key, it.title, text, fingerprint(it.title, text), None, version)


def test_another_fingerprint_version_with_the_same_words_is_rebaselined_silently() -> None:
    table = item("t", "Venue Koramangala\nStart 10:00")
    quote = item("q", "It’s here.\n\nHeading\n\nBody.", title="What’s new")
    stored_items = {
        "t": older(table, "VenueKoramangala\nStart10:00"),  # the old renderer glued cells
        "q": StoredItem("q", "What's new", "It's here.\nHeading\n\nBody.", "0" * 64, None, ""),
    }
    detection = detect(feed([table, quote]), stored_items)
    assert detection.changes == ()
    assert set(detection.rebaselined) == {"t", "q"}


def test_another_fingerprint_version_with_other_words_is_an_edit() -> None:
    new = item("k", "Price is 12 euros.")
    (change,) = detect(feed([new]), {"k": older(new, "Price is 10 euros.")}).changes
    assert change.kind is ChangeKind.EDITED and change.diff is not None
    assert change.diff.added == ("Price is 12 euros.",)
    retitled = item("r", "Body.", title="Second title")
    first = older(item("r", "Body.", title="First"), "Body.")
    (change,) = detect(feed([retitled]), {"r": first}).changes
    assert change.kind is ChangeKind.EDITED


def test_the_same_fingerprint_version_compares_exactly() -> None:
    new = item("k", "Venue Koramangala")
    same_version = older(new, "VenueKoramangala", version=FINGERPRINT_VERSION)
    (change,) = detect(feed([new]), {"k": same_version}).changes
    assert change.kind is ChangeKind.EDITED


words = st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=6), min_size=1, max_size=8)


@given(words, st.sampled_from([" ", "  ", "\n", ", ", " - ", "\n\n* "]), st.integers(0, 7))
def test_an_older_rendering_of_the_same_words_never_edits_but_one_changed_word_does(
    vocabulary: list[str], separator: str, where: int
) -> None:
    """hypothesis: whatever spacing and punctuation an older version put between the same
    words, a version change is silent; one word changed is one edit."""
    new = item("k", " ".join(vocabulary))
    assert detect(feed([new]), {"k": older(new, separator.join(vocabulary))}).changes == ()
    changed = list(vocabulary)
    changed[where % len(changed)] += "z"
    old = older(new, separator.join(changed))
    assert [c.kind for c in detect(feed([new]), {"k": old}).changes] == [ChangeKind.EDITED]
