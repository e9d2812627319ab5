"""Identity beyond the key: canonical links and ids, reconciling re-keyed posts, history."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.detection.identity import (
    RECENT,
    Match,
    Rekey,
    alike,
    canonical_id,
    canonical_url,
    identity_of,
    reconcile,
    sort_unseen,
    title_date,
)
from bot.core.types import RawEntry, StoredItem

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("https://www.Example.org/post/", "example.org/post"),
        ("http://example.org/post", "example.org/post"),
        ("HTTPS://EXAMPLE.ORG./post#comments", "example.org/post"),
        ("https://example.org:443/post", "example.org/post"),
        ("http://example.org:80/post", "example.org/post"),
        ("http://example.org:443/post", "example.org:443/post"),
        ("https://example.org:8443/post", "example.org:8443/post"),
        ("https://example.org/?p=12&utm_source=rss&utm_medium=feed", "example.org?p=12"),
        ("https://example.org/a?fbclid=x&gclid=y&b=2&a=1", "example.org/a?a=1&b=2"),
        ("https://example.org/a?mc_cid=1&_hsenc=2&pk_campaign=3&mtm_source=4", "example.org/a"),
        ("https://example.org/a?v=2", "example.org/a?v=2"),
        ("https://example.org/a?q=", "example.org/a?q="),
        ("https://example.org", "example.org"),
        ("https://wwwexample.org/x", "wwwexample.org/x"),
    ],
)
def test_canonical_url(url: str, canonical: str) -> None:
    assert canonical_url(url) == canonical


@pytest.mark.parametrize(
    "url", [None, "", "tag:example.org,2026:1", "ftp://example.org/x", "https:///x", "http://[::1"]
)
def test_canonical_url_of_what_is_no_web_address(url: str | None) -> None:
    assert canonical_url(url) is None


def test_canonical_id_normalises_url_like_ids_and_keeps_others() -> None:
    assert canonical_id("http://www.example.org/?p=7") == "example.org?p=7"
    assert canonical_id("  tag:example.org,2026:post-7 ") == "tag:example.org,2026:post-7"


def test_title_date_needs_both_and_folds_case_and_spaces() -> None:
    day = datetime(2026, 3, 4, 23, 59, tzinfo=UTC)
    assert title_date("  Hello   World ", day) == "hello world\x1f2026-03-04"
    assert title_date("HELLO WORLD", day.replace(hour=0)) == title_date("hello world", day)
    assert title_date("Hello", None) is None
    assert title_date("   ", day) is None


def test_identity_of_hashes_each_part() -> None:
    one = identity_of("http://a.example/?p=1", "https://a.example/x/", "T", NOW)
    two = identity_of("https://www.a.example/?p=1", "http://a.example/x", "t", NOW)
    assert one == two
    assert len(one.canon_key) == 64 and one.canon_link and one.canon_title
    bare = identity_of("id-1", None, "", None)
    assert bare.canon_link is None and bare.canon_title is None and bare.canon_key


def raw(
    key: str,
    *,
    link: str | None = None,
    title: str = "",
    pos: int = 0,
    published: datetime | None = None,
) -> RawEntry:
    return RawEntry(key, title, link, None, published, (), "", "", pos)


def kept(
    key: str, *, link: str | None = None, title: str = "", published: datetime | None = None
) -> StoredItem:
    return StoredItem(
        key, title, "", "f", published=published, identity=identity_of(key, link, title, published)
    )


def test_reconcile_by_id_then_link_then_title_and_date() -> None:
    entries = [
        raw("https://www.s.example/?p=1", link="https://s.example/one?v=9"),
        raw("new-2", link="https://s.example/two/?utm_source=rss"),
        raw("new-3", link="https://moved.example/three", title="Three", published=NOW),
        raw("new-4", link="https://s.example/four", title="Four", published=NOW),
    ]
    candidates = [
        kept("http://s.example/?p=1", link="https://s.example/one"),
        kept("old-2", link="http://s.example/two"),
        kept("old-3", link="https://s.example/three", title=" three ", published=NOW),
        kept("old-4", link="https://s.example/other", title="Four", published=NOW - RECENT),
    ]
    assert reconcile(entries, {}, candidates) == [
        Rekey("http://s.example/?p=1", "https://www.s.example/?p=1", Match.ID),
        Rekey("old-2", "new-2", Match.LINK),
        Rekey("old-3", "new-3", Match.TITLE_DATE),
    ]


def test_reconcile_ignores_shared_identities_and_present_posts() -> None:
    shared = "https://s.example/"
    entries = [
        raw("a", link=shared),
        raw("b", link=shared),
        raw("c", link="https://s.example/c"),
        raw("d", link="https://s.example/d"),
    ]
    candidates = [
        kept("old-a", link=shared),  # the feed's two entries share it: proves nothing
        kept("old-c1", link="https://s.example/c"),  # two stored posts share it
        kept("old-c2", link="https://s.example/c"),
        kept("d", link="https://s.example/d"),  # present under its own key
        StoredItem("old-x", "", "", "f"),  # no identity stored
    ]
    assert reconcile(entries, {"d": candidates[3]}, candidates) == []
    assert reconcile(entries, {}, []) == []


def test_reconcile_takes_each_stored_post_once() -> None:
    entries = [
        raw("n1", link="https://s.example/p", title="P", published=NOW),
        raw("n2", link="https://s.example/q", title="P", published=NOW + timedelta(hours=1)),
    ]
    candidates = [kept("o", link="https://s.example/p", title="P", published=NOW)]
    # n1 takes o by link; n2 would match o by title and date, but o is taken.
    assert reconcile(entries, {}, candidates) == [Rekey("o", "n1", Match.LINK)]


def test_reconcile_leaves_weekly_posts_with_the_same_title_distinct() -> None:
    week = timedelta(days=7)
    entries = [raw("w2", link="https://s.example/w2", title="This Week", published=NOW)]
    candidates = [kept("w1", link="https://s.example/w1", title="This Week", published=NOW - week)]
    assert reconcile(entries, {}, candidates) == []


def known(*entries: RawEntry) -> dict[str, StoredItem]:
    return {e.key: StoredItem(e.key, e.title, "", "f") for e in entries}


def dated(key: str, pos: int, days: float) -> RawEntry:
    return raw(key, pos=pos, published=NOW - timedelta(days=days))


def test_history_is_older_than_the_known_window_and_a_week() -> None:
    window = [dated(f"k{n}", n, n) for n in range(10)]  # 0..9 days old
    old = dated("old", 10, 40)
    recent_low = dated("recent", 11, 2)
    just_older = dated("just", 12, 9.5)  # older than the window and 8.5 days before the newest
    fresh = dated("fresh", 0, 0)
    result = sort_unseen(
        [fresh, *window[1:], old, recent_low, just_older], known(*window[1:]), None, True
    )
    assert result.news == ("fresh", "recent")
    assert result.history == ("old", "just")
    assert not result.migration


def test_a_post_older_than_the_window_but_within_the_week_is_news() -> None:
    window = [dated(f"k{n}", n, n / 10) for n in range(5)]  # a busy feed: hours apart
    backdated = dated("back", 5, 3)
    result = sort_unseen([*window, backdated], known(*window), None, True)
    assert result.news == ("back",) and result.history == ()
    boundary = dated("edge", 5, RECENT.days)
    assert sort_unseen([*window, boundary], known(*window), None, True).news == ("edge",)


def test_history_is_judged_by_the_feeds_own_dates_not_the_clock() -> None:
    years = 3 * 365  # a feed whose posts are all years old: a few days back is still news
    window = [dated(f"k{n}", n, years + n / 10) for n in range(5)]
    backdated, old = dated("back", 5, years + 3), dated("old", 6, years + 60)
    result = sort_unseen([*window, backdated, old], known(*window), None, True)
    assert result.news == ("back",) and result.history == ("old",)
    undated_known = [raw("u", pos=0)]
    assert sort_unseen([*undated_known, old], known(*undated_known), None, True).news == ("old",)


def test_undated_posts_below_every_known_post_are_history() -> None:
    first, second = raw("a", pos=0), raw("b", pos=1)
    top, bottom = raw("top", pos=0), raw("bottom", pos=3)
    moved = [top, replace(first, position=1), replace(second, position=2), bottom]
    result = sort_unseen(moved, known(first, second), None, True)
    assert result.news == ("top",) and result.history == ("bottom",)


def test_a_window_that_changed_identity_entirely_is_a_migration() -> None:
    newest = NOW - timedelta(days=1)
    entries = [
        dated("x1", 0, 0),
        dated("x2", 1, 1),  # exactly as new as the newest stored post: not news
        dated("x3", 2, 5),
        raw("undated", pos=3),
    ]
    result = sort_unseen(entries, {}, newest, True)
    assert result.migration
    assert result.news == ("x1",)
    assert result.history == ("x2", "x3", "undated")
    assert sort_unseen(entries, {}, None, True).news == ("x1", "x2", "x3")


def test_a_feed_with_nothing_stored_announces_everything() -> None:
    entries = [dated("x1", 0, 0), raw("u", pos=1), dated("x2", 2, 90)]
    result = sort_unseen(entries, {}, None, False)
    assert result.news == ("x1", "u", "x2") and not result.migration
    assert sort_unseen([], {}, None, True).news == ()


def test_canonical_url_keeps_the_path_case_and_drops_only_trailing_slashes() -> None:
    assert canonical_url("https://e.example/BOX/") == "e.example/BOX"
    assert canonical_url("https://e.example/a//") == "e.example/a"


def test_identity_of_survives_lone_surrogates_and_blank_keys() -> None:
    assert (
        identity_of("\ud800", None, "", None).canon_key
        == identity_of("\ud800", None, "", None).canon_key
    )
    assert len(identity_of("\ud800", None, "", None).canon_key) == 64
    assert identity_of("   ", None, "", None).canon_key == ""


def test_a_present_entry_never_takes_a_stored_post() -> None:
    link = "https://s.example/d"
    entries = [raw("d", link=link), raw("e", link="https://s.example/e")]
    candidates = [kept("old-d", link=link), kept("old-e", link="https://s.example/e")]
    present = {"d": StoredItem("d", "", "", "f")}
    assert reconcile(entries, present, candidates) == [Rekey("old-e", "e", Match.LINK)]


def test_an_entry_matched_by_id_is_not_matched_again_by_link() -> None:
    entries = [raw("https://s.example/?p=1", link="https://s.example/one"), raw("z")]
    candidates = [
        kept("http://s.example/?p=1", link="https://s.example/elsewhere"),
        kept("other", link="https://s.example/one"),
    ]
    assert reconcile(entries, {}, candidates) == [
        Rekey("http://s.example/?p=1", "https://s.example/?p=1", Match.ID)
    ]


def test_a_failed_match_does_not_stop_the_entries_after_it() -> None:
    shared = "https://s.example/home"
    entries = [
        raw("a", link=shared),
        raw("b", link=shared),
        raw("c", link="https://s.example/c"),
        raw("d", link="https://s.example/nothing"),
        raw("e", link="https://s.example/e"),
    ]
    candidates = [
        kept("old-c1", link="https://s.example/c"),
        kept("old-c2", link="https://s.example/c"),
        kept("old-e", link="https://s.example/e"),
    ]
    assert reconcile(entries, {}, candidates) == [Rekey("old-e", "e", Match.LINK)]


def test_a_stored_post_taken_by_link_is_not_taken_again_by_title() -> None:
    entries = [
        raw("n1", link="https://s.example/p", title="Renamed", published=NOW),
        raw("n2", link="https://s.example/q", title="P", published=NOW + timedelta(hours=1)),
        raw("n3", link="https://s.example/r", title="R", published=NOW),
    ]
    candidates = [
        kept("o", link="https://s.example/p", title="P", published=NOW),
        kept("o3", link="https://s.example/old-r", title="R", published=NOW),
    ]
    assert reconcile(entries, {}, candidates) == [
        Rekey("o", "n1", Match.LINK),
        Rekey("o3", "n3", Match.TITLE_DATE),
    ]


def test_undated_posts_at_the_lowest_known_place_or_above_are_news() -> None:
    first = raw("a", pos=2)
    result = sort_unseen([raw("x", pos=0), first, raw("y", pos=3)], known(first), None, True)
    assert result.news == ("x",) and result.history == ("y",)


def test_a_post_exactly_as_old_as_the_oldest_known_one_is_news() -> None:
    window = [dated("k0", 0, 0), dated("k1", 1, 30)]
    same = dated("same", 2, 30)
    assert sort_unseen([*window, same], known(*window), None, True).news == ("same",)
    assert sort_unseen([], {}, None, True).history == ()


def test_a_planet_decoy_with_the_same_title_and_date_is_another_post() -> None:
    """Issue 23, item 12: in an aggregated feed a withdrawn post's decoy (same title, same day,
    another blog, other words) does not take the stored post over."""
    real = replace(
        kept(
            "planet:alice:1", link="https://alice.example/p/1", title="Release notes", published=NOW
        ),
        text="Alice explains the new scheduler and its benchmarks on four machines.",
    )
    decoy = RawEntry(
        "planet:mallory:9",
        "Release notes",
        "https://mallory.example/x",
        None,
        NOW,
        (),
        "<p>Buy cheap watches today, limited offer, click the link now.</p>",
        "",
        0,
    )
    assert reconcile([decoy], {}, [real]) == []
    moved = RawEntry(
        "planet:alice:new",
        "Release notes",
        "https://alice.example/2026/p/1",
        None,
        NOW,
        (),
        "<p>Alice explains the new scheduler and its benchmarks on five machines.</p>",
        "",
        0,
    )
    assert reconcile([moved], {}, [real]) == [
        Rekey("planet:alice:1", "planet:alice:new", Match.TITLE_DATE)
    ]


def test_texts_are_alike_by_their_shared_words() -> None:
    stored = replace(kept("k"), text="one two three four")
    assert alike(raw("a"), stored)  # no text on one side: nothing tells them apart
    half = RawEntry("a", "", None, None, None, (), "<p>one two five six</p>", "", 0)
    assert not alike(half, stored)  # 2 shared of 6 words
    most = RawEntry("a", "", None, None, None, (), "<p>one two three five</p>", "", 0)
    assert alike(most, stored)  # 3 of 5
    edge = RawEntry("a", "", None, None, None, (), "<p>one two three four five six</p>", "", 0)
    assert alike(edge, replace(stored, text="one two three"))  # exactly half (3 of 6) is alike


def test_same_title_and_day_on_another_page_of_the_site_is_another_post() -> None:
    """Issue 26: a second listing with the same title and day, after the first slid out of
    the window, is a new post (classifieds, "Daily thread" posts) even when their texts are
    alike; a permalink restructure keeps the slug and is still the same post."""
    text = "Daily discussion thread. Be kind. Stay on topic."
    first = replace(
        kept("t3_aaa", title="Daily thread", published=NOW),
        link="https://forum.example/r/x/comments/aaa/daily_thread/",
        text=text,
    )
    second = RawEntry(
        "t3_bbb",
        "Daily thread",
        "https://forum.example/r/x/comments/bbb/daily_thread_2/",
        None,
        NOW,
        (),
        f"<p>{text}</p>",
        "",
        0,
    )
    assert reconcile([second], {}, [first]) == []
    moved = replace(first, key="https://s.example/?p=1", link="https://s.example/2026/09/my-post/")
    restructured = RawEntry(
        "https://s.example/?p=9",
        "Daily thread",
        "https://s.example/blog/my-post/",
        None,
        NOW,
        (),
        f"<p>{text}</p>",
        "",
        0,
    )
    assert reconcile([restructured], {}, [moved]) == [
        Rekey("https://s.example/?p=1", "https://s.example/?p=9", Match.TITLE_DATE)
    ]
