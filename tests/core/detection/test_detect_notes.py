"""How `detect` sequences the real-feed rules: history, migrations, the share base, counter
memory, and the one log line that explains what was absorbed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.core.detection.detect import detect, explain
from bot.core.detection.identity import Match, Rekey
from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.core.types import ChangeKind, Detection, ParsedFeed, ParsedItem, StoredItem

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def item(key: str, text: str = "Body.", *, days: float | None = 0, pos: int = 0) -> ParsedItem:
    published = None if days is None else NOW - timedelta(days=days)
    title = f"Title {key}"
    return ParsedItem(key, title, None, None, published, (), text, fingerprint(title, text), pos)


def keep(it: ParsedItem, text: str | None = None, volatile: tuple[str, ...] = ()) -> StoredItem:
    body = it.text if text is None else text
    return StoredItem(
        it.key,
        it.title,
        body,
        fingerprint(it.title, body),
        None,
        FINGERPRINT_VERSION,
        published=it.published,
        volatile=volatile,
    )


def feed(*items: ParsedItem) -> ParsedFeed:
    return ParsedFeed("F", None, items)


def test_older_unseen_posts_are_history_with_a_note() -> None:
    known = [item(f"k{n}", days=n, pos=n) for n in range(3)]
    old = item("old", days=60, pos=3)
    fresh = item("fresh", days=0, pos=0)
    result = detect(feed(fresh, *known, old), {k.key: keep(k) for k in known})
    assert [c.item.key for c in result.changes] == ["fresh"]
    assert result.history == ("old",)
    assert result.notes == ("stored 1 older items silently",)


def test_without_now_the_newest_date_in_the_feed_dates_history() -> None:
    known = [item("k", days=1)]
    old = item("old", days=30, pos=1)
    result = detect(feed(*known, old), {"k": keep(known[0])})
    assert result.history == ("old",) and result.changes == ()
    undated = detect(feed(item("u", days=None)), {}, has_stored=False)
    assert [c.kind for c in undated.changes] == [ChangeKind.NEW] and undated.history == ()


def test_a_window_that_changed_identity_is_stored_with_its_own_note() -> None:
    entries = [item("a", days=0), item("b", days=2, pos=1)]
    result = detect(feed(*entries), {}, newest_stored=NOW - timedelta(days=1), has_stored=True)
    assert [c.item.key for c in result.changes] == ["a"]
    assert result.history == ("b",)
    assert result.notes == ("stored 1 items silently: the whole window changed ids",)
    nothing_old = detect(feed(*entries), {}, newest_stored=NOW, has_stored=True)
    assert nothing_old.notes == ("stored 2 items silently: the whole window changed ids",)


def test_the_baseline_announces_nothing_and_notes_nothing() -> None:
    result = detect(feed(item("a"), item("b", days=90)), {}, baseline=True)
    assert result == Detection(changes=())


def counted(key: str, value: int, pos: int) -> ParsedItem:
    return item(key, f"A post about {key}.\n\nRank {value}", pos=pos)


def test_the_share_is_taken_of_the_known_items_only() -> None:
    items = [counted(f"k{n}", 5, n) for n in range(9)]
    stored = {i.key: keep(i) for i in items}
    after = [counted(f"k{n}", 9 if n < 3 else 5, n) for n in range(9)]
    fresh = [item(f"new{n}", pos=9 + n) for n in range(9)]
    result = detect(feed(*after, *fresh), stored)
    # 3 of 9 known items changed "Rank #": a third, so a counter; the 9 new ones do not count.
    assert [c.kind for c in result.changes] == [ChangeKind.NEW] * 9
    assert result.absorbed == {"k0": "counters", "k1": "counters", "k2": "counters"}
    assert result.notes == ("ignored changed counters on 3 items",)
    assert result.places == {f"k{n}": ("Rank|#",) for n in range(3)}


def test_two_counters_in_a_window_of_nine_are_edits() -> None:
    items = [counted(f"k{n}", 5, n) for n in range(9)]
    after = [counted(f"k{n}", 9 if n < 2 else 5, n) for n in range(9)]
    result = detect(feed(*after), {i.key: keep(i) for i in items})
    assert [c.kind for c in result.changes] == [ChangeKind.EDITED] * 2
    counters = {k: tuple(p for p in v if not p.startswith("v:")) for k, v in result.places.items()}
    assert counters == {"k0": ("Rank|#",), "k1": ("Rank|#",)}  # (edits also keep the old version)


def test_remembered_places_are_only_rewritten_when_they_change() -> None:
    before = counted("k", 5, 0)
    after = counted("k", 6, 0)
    result = detect(feed(after), {"k": keep(before, volatile=("Rank|#",))})
    assert result.changes == () and result.places == {}
    assert result.absorbed == {"k": "counters"}
    assert result.notes == ("ignored changed counters on 1 item",)


def test_notes_name_each_kind_of_absorbed_change() -> None:
    before = item("v", "Same words.")
    old = StoredItem("v", before.title, "Same  words!", "0" * 64, None, "")
    result = detect(feed(before), {"v": old})
    assert result.rebaselined == ("v",)
    assert result.notes == ("re-baselined 1 item silently (the fingerprint version changed)",)


def test_explain_joins_the_rekeys_and_the_notes() -> None:
    rekeys = [Rekey("a", "b", Match.LINK), Rekey("c", "d", Match.ID), Rekey("e", "f", Match.LINK)]
    notes = Detection(changes=(), notes=("stored 2 older items silently", "x"))
    assert explain(rekeys, notes) == (
        "re-keyed 3 items: GUID migration (1 by id, 2 by link); stored 2 older items silently; x"
    )
    assert (
        explain(rekeys[:1], Detection(changes=())) == "re-keyed 1 item: GUID migration (1 by link)"
    )
    assert explain([], Detection(changes=())) is None
