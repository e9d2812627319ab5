"""Golden parse tests (as lemon24/reader's `tests/data/*.rss` + `*.rss.py`): each fixture feed in
`tests/data/`, modelled on what a real generator emits, sits beside the items it must produce.

The expected files pin keys, titles, links, authors, dates, categories, the visible text and its
fingerprint, with the fingerprint version they were made under, so a parser or html2text change
that would alter them shows up here. `ghost-rendering.rss` holds the cases the fingerprint is
most fragile on: entities, tables, lists, headings, CRLF inside content, Chinese and Japanese;
`*.feed.json` are JSON Feeds.

A fingerprint that changes form without a new `FINGERPRINT_VERSION` would announce every stored
post as edited after an upgrade, so: after a deliberate change, bump `_ALGORITHM` in
`bot/core/text.py` (an html2text upgrade bumps the version by itself), regenerate with
`GOLDEN_WRITE=1 ./dev test tests/core/feeds/test_golden_parse.py` and read the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.core.feeds.parse import parse_feed
from bot.core.text import FINGERPRINT_VERSION

DATA = Path(__file__).resolve().parents[2] / "data"
FIXTURES = sorted(
    p for p in DATA.iterdir() if p.suffix in (".rss", ".atom") or p.name.endswith(".feed.json")
)


def produced(path: Path) -> dict[str, object]:
    headers = {"Content-Type": "application/feed+json"} if path.suffix == ".json" else None
    feed = parse_feed(path.read_bytes(), headers)
    return {
        "fingerprint_version": FINGERPRINT_VERSION,
        "title": feed.title,
        "link": feed.link,
        "items": [
            {
                "key": item.key,
                "title": item.title,
                "link": item.link,
                "author": item.author,
                "published": item.published.isoformat() if item.published else None,
                "categories": list(item.categories),
                "text": item.text,
                "fingerprint": item.fingerprint,
                "image": item.image,
            }
            for item in feed.items
        ],
    }


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_feed_produces_its_golden_items(path: Path) -> None:
    expected_path = path.with_name(path.name + ".json")
    got = produced(path)
    if os.environ.get("GOLDEN_WRITE"):
        expected_path.write_text(json.dumps(got, ensure_ascii=False, indent=2) + "\n")
    expected = json.loads(expected_path.read_text())
    assert got["fingerprint_version"] == expected["fingerprint_version"], (
        "the fingerprint version changed: regenerate the goldens (see the module docstring)"
    )
    assert got == expected, (
        "the text or fingerprint changed under the same FINGERPRINT_VERSION: bump _ALGORITHM"
    )


def test_there_are_golden_fixtures() -> None:
    assert len(FIXTURES) >= 5
    assert all(p.with_name(p.name + ".json").exists() for p in FIXTURES)
