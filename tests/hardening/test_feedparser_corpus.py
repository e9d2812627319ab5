"""feedparser's own test corpus (about 2,240 documents nobody here wrote: well-formed,
ill-formed, odd encodings, entities, sanitizer attacks) through parse → detect → render."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.core.detection.detect import detect
from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import parse_feed
from bot.core.messages.render import render_change
from bot.core.types import FeedInfo
from tests.support.corpus import corpus_dir
from tests.support.databases import IN_CI
from tests.support.telegram_html import assert_valid_telegram_html


def corpus() -> Path:
    """The cached corpus; the install step (`./dev test`) fetched it, the test never does."""
    root = corpus_dir()
    if not root.is_dir():
        message = f"no feedparser corpus in {root}: run `python -m tests.support.corpus` (./dev test does)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return root


@pytest.mark.slow
def test_the_feedparser_corpus_goes_through_the_whole_core() -> None:
    root = corpus()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".py")
    assert len(files) > 2000
    counts = {"documents": len(files), "feeds": 0, "not_feeds": 0, "items": 0, "messages": 0}
    started = time.monotonic()
    for path in files:
        try:
            parsed = parse_feed(path.read_bytes(), {"content-type": "application/xml"})
        except NotAFeed:
            counts["not_feeds"] += 1
            continue
        counts["feeds"] += 1
        counts["items"] += len(parsed.items)
        info = FeedInfo(slug="corpus", title=parsed.title)
        for change in detect(parsed, {}).changes:
            message = render_change(change, info)
            try:
                assert_valid_telegram_html(message)
            except AssertionError as exc:
                raise AssertionError(f"{path.relative_to(root)}: {exc}") from None
            counts["messages"] += 1
    elapsed = time.monotonic() - started
    print(f"\nfeedparser corpus: {counts}, {elapsed:.1f} s")
    assert elapsed < 60
    assert counts["feeds"] > 1500 and counts["messages"] > 1000
