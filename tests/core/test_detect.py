"""Change detection: new, edited, nothing else; reading order; idempotence (hypothesis)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.core.detect import detect
from bot.core.model import ChangeKind, ParsedFeed, ParsedItem, StoredItem
from bot.core.text import fingerprint

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
    return {i.key: StoredItem(i.key, i.title, i.text, i.fingerprint) for i in items}


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
