"""The ranked digest's rule (core/messages/ranked.py): stories folded across feeds, scored by
keywords, carriers, weights and recency, rendered top first then links, `top N` parsed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.digest import DigestSyntaxError
from bot.core.messages.ranked import (
    CARRIED,
    DEFAULT_TOP,
    MATCHED,
    MAX_REST,
    RECENT,
    WEIGHT,
    Candidate,
    Entry,
    Weights,
    is_all,
    rank,
    render_ranked,
    score,
    split_top,
    stories,
)
from bot.core.polls.duplicates import story_of
from bot.runtime.i18n import translator

NOW = datetime(2026, 9, 8, 8, tzinfo=UTC)


def post(
    n: int,
    feed: int = 1,
    *,
    title: str = "",
    link: str | None = None,
    matched: bool = False,
    hours: float = 30,
    categories: tuple[str, ...] = (),
) -> Candidate:
    title = title or f"Post number {n} about topic {n}"
    link = link if link is not None else f"https://example.org/{n}"
    text = f"Body {n} says something of its own, word {n} and another word {n * 7} here."
    return Candidate(
        item_id=n,
        title=title,
        link=link,
        feed_id=feed,
        feed_title=f"Feed {feed}",
        categories=categories,
        summary=f"Summary {n} &amp; more",
        text=text,
        story=story_of(link, title, text),
        at=NOW - timedelta(hours=hours),
        matched=matched,
    )


def test_the_same_story_from_two_feeds_is_one_entry_naming_both() -> None:
    copy = post(9, feed=2, link="https://example.org/1?utm_source=planet", matched=True)
    entries = stories([post(1), post(2), copy])
    assert [e.post.item_id for e in entries] == [1, 2]
    assert entries[0].feeds == ("Feed 1", "Feed 2") and entries[0].feed_ids == (1, 2)
    assert entries[0].matched  # the copy matched a keyword
    same_feed = stories([post(1), post(9, link="https://example.org/1")])
    assert len(same_feed) == 2  # one feed's two posts are never one story


def test_stories_come_in_the_periods_order_not_the_feeds() -> None:
    """The held posts are read feed by feed: the planet's copy (held a poll later) must not
    tell the story GitHub told first, and two unrelated posts keep the order they came in."""
    release = post(1, feed=1, title="v3.2.0", hours=30)
    planet = post(2, feed=2, title="GitHub: v3.2.0", link="https://example.org/1?utm_source=p",
                  hours=29)  # fmt: skip
    weekly_late, weekly = post(3, feed=2, hours=20), post(4, feed=1, hours=25)
    entries = stories([planet, weekly_late, release, weekly])
    assert [e.post.item_id for e in entries] == [1, 4, 3]
    assert entries[0].feeds == ("Feed 1", "Feed 2")
    ranked = rank([weekly_late, weekly], Weights(), NOW - timedelta(days=2))
    assert [e.post.item_id for e in ranked] == [4, 3]  # equal scores: the earlier first


def test_score_adds_keywords_carriers_weights_and_recency() -> None:
    entry = Entry(post(1, categories=("Chips", "Events")), ("A", "B", "C"), (1, 2, 3), True)
    weights = Weights({1: -2, 2: 6}, {"chips": 3, "events": -1})
    expected = MATCHED + 2 * CARRIED + WEIGHT * 6 + WEIGHT * 2 + 0
    assert score(entry, weights, NOW) == pytest.approx(expected)
    fresh = Entry(post(2, hours=6), ("A",), (1,), False)
    assert score(fresh, Weights(), NOW) == pytest.approx(RECENT * 0.75)
    future = Entry(post(3, hours=-2), ("A",), (1,), False)
    assert score(future, Weights(), NOW) == pytest.approx(RECENT)
    disliked = Entry(post(4), ("A", "B"), (1, 2), False)
    assert score(disliked, Weights({1: -8, 2: 3}), NOW) == pytest.approx(CARRIED - WEIGHT * 8)


def test_rank_puts_keyword_and_widely_carried_posts_first_ties_in_order() -> None:
    posts = [
        post(1),
        post(2, matched=True),
        post(3),
        post(4, feed=2, link="https://example.org/3"),
        post(5),
    ]
    ranked = rank(posts, Weights(), NOW)
    assert [e.post.item_id for e in ranked] == [2, 3, 1, 5]
    liked = rank(posts, Weights({}, {"news": 10}), NOW)
    assert liked[0].post.item_id == 2
    ten = rank([post(1), post(2, feed=2)], Weights({2: 10}), NOW)
    assert [e.post.item_id for e in ten] == [2, 1]


@given(st.lists(st.booleans(), min_size=1, max_size=12))
def test_a_matched_post_always_outranks_an_unmatched_single_one(flags: list[bool]) -> None:
    posts = [post(n, feed=n, matched=m, hours=n) for n, m in enumerate(flags, 1)]
    ranked = rank(posts, Weights(), NOW)
    seen_unmatched = False
    for entry in ranked:
        seen_unmatched |= not entry.matched
        assert not (entry.matched and seen_unmatched)
    assert sorted(e.post.item_id for e in ranked) == list(range(1, len(flags) + 1))


def test_render_numbers_the_top_with_summaries_and_lists_the_rest() -> None:
    entries = rank(
        [post(1, matched=True), post(2), post(3, feed=2, link="https://example.org/1")],
        Weights(),
        NOW,
    )
    [text] = render_ranked(entries, 1, "Opening <b> & [1].")
    assert text.startswith(
        "<b>Your digest</b> — 2 stories from 2 feeds\n\nOpening &lt;b&gt; &amp; [1]."
    )
    assert '<b>[1]</b> <a href="https://example.org/1">Post number 1 about topic 1</a>' in text
    assert "<i>Feed 1 · also in Feed 2</i>\nSummary 1 &amp; more" in text
    assert text.endswith(
        '<b>Also</b>\n• <a href="https://example.org/2">Post number 2 about topic 2</a> — Feed 1'
    )
    assert "Summary 2" not in text
    [single] = render_ranked(entries[:1], 5, "")
    assert single.startswith("<b>Your digest</b> — 1 story from 2 feeds\n\n<b>[1]</b>")
    assert "<b>Also</b>" not in single


def test_render_caps_the_rest_and_splits_past_the_limit() -> None:
    many = [post(n, title=f"A rather long title for post {n} " + "x" * 150) for n in range(1, 80)]
    messages = render_ranked(rank(many, Weights(), NOW), 3, "")
    joined = "\n".join(messages)
    assert joined.count("• ") == MAX_REST
    assert f"… and {79 - 3 - MAX_REST} more" in joined
    assert len(messages) > 1 and "(continued)" in messages[1]
    untitled = post(5, title=" ", link="https://example.org/only-a-link")
    [text] = render_ranked([Entry(untitled, ("F",), (1,), False)], 1, "")
    assert '<a href="https://example.org/only-a-link">https://example.org/only-a-link</a>' in text
    unlinked = Entry(post(6, link=""), ("F",), (1,), False)
    assert "<b>[1]</b> Post number 6 about topic 6\n" in render_ranked([unlinked], 1, "")[0]


def test_render_speaks_the_chats_language() -> None:
    entries = [Entry(post(1), ("A", "B"), (1, 2), False), Entry(post(2), ("A",), (1,), False)]
    [text] = render_ranked(entries, 1, "", translator("es"))
    assert "historias" in text and "también en B" in text


def test_split_top_and_all() -> None:
    assert split_top("daily 08:00 top 3") == ("daily 08:00", 3)
    assert split_top("diario 8:00 primeros 7") == ("diario 8:00", 7)
    assert split_top("每天 8:00 前10") == ("每天 8:00", 10)
    assert split_top(" daily 08:00 ") == ("daily 08:00", DEFAULT_TOP)
    assert split_top("daily 08:00 top 20") == ("daily 08:00", 20)
    assert split_top("daily 08:00 top 1") == ("daily 08:00", 1)
    for wrong in ("daily 08:00 top 0", "daily 08:00 top 21"):
        with pytest.raises(DigestSyntaxError):
            split_top(wrong)
    assert is_all("ALL") and is_all("todos") and is_all("全部") and not is_all("lumen")
