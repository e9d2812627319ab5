"""Properties of detection on real feeds (hypothesis): re-keyed windows announce nothing,
counters are never edits, and one changed word is exactly one edit."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bot.core.detection.detect import detect, explain
from bot.core.detection.identity import identity_of, reconcile
from bot.core.text import FINGERPRINT_VERSION, fingerprint
from bot.core.types import ChangeKind, ParsedFeed, ParsedItem, StoredItem

NOW = datetime(2026, 11, 30, tzinfo=UTC)
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


def make(
    key: str, title: str, text: str, link: str | None, published: datetime | None, position: int
) -> ParsedItem:
    return ParsedItem(
        key, title, link, None, published, (), text, fingerprint(title, text), position
    )


def remember(item: ParsedItem) -> StoredItem:
    return StoredItem(
        item.key,
        item.title,
        item.text,
        item.fingerprint,
        None,
        FINGERPRINT_VERSION,
        link=item.link,
        published=item.published,
        identity=identity_of(item.key, item.link, item.title, item.published),
    )


@st.composite
def windows(draw: st.DrawFn) -> list[ParsedItem]:
    """2-12 posts with distinct slugs, titles and days, newest first."""
    slugs = draw(st.lists(WORDS, min_size=2, max_size=12, unique=True))
    items = []
    for n, slug in enumerate(slugs):
        sentence = " ".join(draw(st.lists(WORDS, min_size=3, max_size=8))) + "."
        items.append(
            make(
                f"https://s.example/?p={n}",
                f"About {slug}",
                f"{sentence} Post {slug}.",
                f"https://s.example/{slug}/",
                NOW - timedelta(days=n, hours=n % 3),
                n,
            )
        )
    return items


def poll(before: list[ParsedItem], after: list[ParsedItem]) -> tuple[list[ChangeKind], str | None]:
    """What one poll announces when `before` is stored and `after` is fetched."""
    stored = {item.key: remember(item) for item in before}
    present = {k: v for k, v in stored.items() if k in {i.key for i in after}}
    rekeys = reconcile(after, present, stored.values())
    for rekey in rekeys:
        present[rekey.new_key] = replace(stored[rekey.old_key], key=rekey.new_key)
    detection = detect(
        ParsedFeed("F", None, tuple(after)),
        present,
        newest_stored=max(i.published for i in before if i.published),
        has_stored=True,
    )
    return [change.kind for change in detection.changes], explain(rekeys, detection)


@given(windows(), st.sampled_from(["https", "v2", "utm", "tag"]), st.booleans())
def test_rekeying_a_window_while_keeping_links_or_titles_announces_nothing(
    window: list[ParsedItem], scheme: str, move_links: bool
) -> None:
    def rekey(item: ParsedItem) -> ParsedItem:
        key = {
            "https": item.key.replace("https://", "http://www."),
            "v2": item.key + "&v=2",
            "utm": item.key + "&utm_source=rss",
            "tag": f"tag:s.example,2026:{item.position}",
        }[scheme]
        link = (
            item.link.replace("s.example", "moved.example")
            if move_links and item.link
            else item.link
        )
        return replace(item, key=key, link=link)

    kinds, line = poll(window, [rekey(item) for item in window])
    assert kinds == []
    assert line is not None and line.startswith(f"re-keyed {len(window)} item")


@given(windows(), st.sampled_from(["Points:", "Score", "Rank", "Reads", "Hearts"]), st.data())
def test_changing_only_counters_in_every_item_is_no_edit(
    window: list[ParsedItem], label: str, data: st.DataObject
) -> None:
    counts = data.draw(st.lists(st.integers(0, 10**6), min_size=len(window), max_size=len(window)))
    steps = data.draw(st.lists(st.integers(1, 999), min_size=len(window), max_size=len(window)))

    def counted(item: ParsedItem, value: int) -> ParsedItem:
        text = f"{item.text}\n\n{label} {value:,}"
        return replace(item, text=text, fingerprint=fingerprint(item.title, text))

    before = [counted(item, count) for item, count in zip(window, counts, strict=True)]
    after = [
        counted(item, count + step) for item, count, step in zip(window, counts, steps, strict=True)
    ]
    kinds, line = poll(before, after)
    assert kinds == []
    assert line == f"ignored changed counters on {len(window)} items"


@given(windows(), st.data())
def test_one_changed_word_in_one_item_is_one_edit(
    window: list[ParsedItem], data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, len(window) - 1))
    target = window[index]
    words = target.text.split()
    at = data.draw(st.integers(0, len(words) - 1))
    word = data.draw(WORDS.filter(lambda w: w != words[at].rstrip(".")))
    words[at] = word + ("." if words[at].endswith(".") else "")
    text = " ".join(words)
    after = list(window)
    after[index] = replace(target, text=text, fingerprint=fingerprint(target.title, text))
    kinds, line = poll(window, after)
    assert kinds == [ChangeKind.EDITED]
    assert line is None
