"""Detection, round 4 (issue 44): real feeds recorded poll after poll. A Hugo blog listing every
post gains a first real post dated before its placeholders; a changelog lists one release twice
under one guid; a whole site moves and its old URLs show in the posts' text; a planet re-issues
its entries. Fixtures in the shapes those generators emit (Hugo, python-feedgen, Perlanet); the
text is ours."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from html import escape

from hypothesis import given
from hypothesis import strategies as st

from bot.core.detection.churn import reissued
from bot.core.detection.detect import detect, new_posts_only
from bot.core.detection.edits import Absorbed, judge
from bot.core.detection.hosts import moved, rehosted, site_moves
from bot.core.detection.identity import identity_of, sort_unseen
from bot.core.feeds.entries import one_per_key
from bot.core.feeds.parse import finish_feed, parse_feed, read_feed
from bot.core.text import FINGERPRINT_VERSION
from bot.core.types import ChangeKind, ParsedFeed, ParsedItem, RawEntry, StoredItem

NOW = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def remember(item: ParsedItem) -> StoredItem:
    return StoredItem(
        item.key,
        item.title,
        item.text,
        item.fingerprint,
        item.content_hash,
        FINGERPRINT_VERSION,
        link=item.link,
        published=item.published,
        identity=identity_of(item.key, item.link, item.title, item.published),
        full=item.full,
        excerpt_hash=item.excerpt_hash,
    )


def stored_of(feed: ParsedFeed) -> dict[str, StoredItem]:
    return {item.key: remember(item) for item in feed.items}


def events(
    feed: ParsedFeed, stored: dict[str, StoredItem], *, full_list: bool = False
) -> list[str]:
    present = {k: v for k, v in stored.items() if k in {i.key for i in feed.items}}
    detection = detect(feed, present, full_list=full_list)
    return [f"{c.kind.value}: {c.item.title}" for c in detection.changes]


# --- 1. a full-list feed gains one backdated post --------------------------------------------


def hugo(posts: list[tuple[str, str, datetime, str]]) -> bytes:
    """Hugo's RSS template: every page of the site, relative links, the path as guid."""
    items = "".join(
        f"\n    <item>\n      <title>{escape(title)}</title>\n      <link>{path}</link>\n"
        f"      <pubDate>{format_datetime(date)}</pubDate>\n      \n"
        f"      <guid>{path}</guid>\n      <description>{escape(html)}</description>\n    </item>"
        for path, title, date, html in posts
    )
    return (
        '<?xml version="1.0" encoding="utf-8" standalone="yes" ?>\n<rss version="2.0" '
        'xmlns:atom="http://www.w3.org/2005/Atom">\n  <channel>\n    <title>Wanderer</title>\n'
        "    <link>/index.xml</link>\n    <description>Recent content on Wanderer</description>\n"
        "    <generator>Hugo -- gohugo.io</generator>\n    <language>en-us</language>\n"
        f'    <atom:link href="/index.xml" rel="self" type="application/rss+xml" />{items}\n'
        "  </channel>\n</rss>"
    ).encode()


SET_UP = NOW - timedelta(days=2)
ABOUT = ("/about/", "About", SET_UP, "<p>Notes from walks through old towns.</p>")
TEST = ("/post/test/", "Test", SET_UP, "<h1>A test</h1><blockquote><p>Hello.</p></blockquote>")
MARKET = (
    "/winter-market/",
    "Winter Market",
    SET_UP - timedelta(days=72),  # written weeks before the site went up
    "<p>Stalls of carved birds and hot cider under the arcades.</p>",
)


def test_a_hugo_blog_s_first_real_post_dated_before_its_placeholders_is_news() -> None:
    stored = stored_of(parse_feed(hugo([ABOUT, TEST])))
    after = parse_feed(hugo([ABOUT, TEST, MARKET]))
    assert events(after, stored, full_list=True) == ["new: Winter Market"]
    # Guard: the same post where an item of the last document dropped out is a window moving
    # into the past, as before: history.
    assert events(after, stored, full_list=False) == []


@st.composite
def known_window(draw: st.DrawFn) -> list[RawEntry]:
    """1-15 known posts, newest first, a few days apart."""
    n = draw(st.integers(1, 15))
    gaps = draw(st.lists(st.floats(0, 5), min_size=n, max_size=n))
    entries, age = [], 0.0
    for position, gap in enumerate(gaps):
        age += gap
        entries.append(entry(f"k{position}", position, NOW - timedelta(days=age)))
    return entries


def entry(key: str, position: int, published: datetime | None) -> RawEntry:
    return RawEntry(key, key, None, None, published, (), "", key, position)


def known(entries: list[RawEntry]) -> dict[str, StoredItem]:
    return {e.key: StoredItem(e.key, e.title, "", "f") for e in entries}


@given(known_window(), st.floats(8, 2000), st.booleans())
def test_a_full_list_gaining_one_backdated_post_announces_it(
    window: list[RawEntry], older_by: float, undated: bool
) -> None:
    oldest = min(e.published for e in window if e.published)
    date = None if undated else oldest - timedelta(days=older_by)
    backdated = entry("back", len(window), date)
    result = sort_unseen([*window, backdated], known(window), None, True, full_list=True)
    assert result.news == ("back",) and result.history == ()


@given(known_window(), st.lists(st.floats(8, 2000), min_size=2, max_size=25), st.booleans())
def test_a_growing_window_s_old_posts_are_history(
    window: list[RawEntry], older_by: list[float], full_list: bool
) -> None:
    oldest = min(e.published for e in window if e.published)
    grown = [
        entry(f"old{n}", len(window) + n, oldest - timedelta(days=RECENT_DAYS + days))
        for n, days in enumerate(older_by)
    ]
    result = sort_unseen([*window, *grown], known(window), None, True, full_list=full_list)
    assert result.news == ()
    assert set(result.history) == {e.key for e in grown}


RECENT_DAYS = 8


@given(known_window(), st.floats(8, 2000))
def test_one_backdated_post_in_a_window_that_lost_an_item_is_history(
    window: list[RawEntry], older_by: float
) -> None:
    newest = max(e.published for e in window if e.published)
    oldest = min(e.published for e in window if e.published)
    backdated = entry("back", len(window), oldest - timedelta(days=older_by))
    result = sort_unseen([*window, backdated], known(window), None, True, full_list=False)
    expected_old = backdated.published is not None and backdated.published < newest - (
        timedelta(days=7)
    )
    assert result.history == (("back",) if expected_old else ())


# --- 2. a site-wide host change with URLs in the text ------------------------------------------


def moved_site(host: str, scheme: str, extra: str = "") -> bytes:
    """A WordPress-like RSS whose posts mention the site's own addresses in their text."""
    items = ""
    for n, topic in enumerate(("tides", "kelp", "gulls")):
        items += (
            f"<item><title>On {topic}</title><link>{scheme}://{host}/research/{topic}/</link>"
            f'<guid isPermaLink="false">lab-post-{n}</guid>'
            f"<pubDate>{format_datetime(NOW - timedelta(days=n))}</pubDate>"
            f"<description>{escape(f'<p>Our notes on {topic} are at {scheme}://{host}/research/. Data sets live on {host} too.</p>')}"
            f"{escape(extra if n == 0 else '')}</description></item>"
        )
    items += (  # a post linking elsewhere: its own link did not move, its text did
        "<item><title>Paper accepted</title><link>https://journal.example/vol/9</link>"
        '<guid isPermaLink="false">lab-post-paper</guid>'
        f"<pubDate>{format_datetime(NOW - timedelta(days=5))}</pubDate>"
        f"<description>{escape(f'<p>Preprint at {scheme}://{host}/research/paper/.</p>')}"
        "</description></item>"
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Lab</title>'
        f"<link>{scheme}://{host}/</link>{items}</channel></rss>"
    ).encode()


def test_a_site_wide_host_move_is_no_edit_in_any_post() -> None:
    stored = stored_of(parse_feed(moved_site("example.com", "http")))
    after = parse_feed(moved_site("blog.example.com", "https"))
    assert [i.fingerprint for i in after.items] != [s.fingerprint for s in stored.values()]
    detection = detect(after, stored)
    assert detection.changes == ()
    assert set(detection.absorbed.values()) == {Absorbed.REHOSTED.value}
    assert len(detection.absorbed) == 4  # the paper's post too: the whole site moved
    # Guard: a real change in the same poll is still an edit, listing only that sentence.
    edited = parse_feed(moved_site("blog.example.com", "https", "<p>We moved the buoys.</p>"))
    (change,) = detect(edited, stored).changes
    assert change.kind is ChangeKind.EDITED and change.diff is not None
    assert change.diff.added == ("We moved the buoys.",) and change.diff.removed == ()


def test_one_post_s_link_moving_is_no_site_move_for_the_others() -> None:
    stored = stored_of(parse_feed(moved_site("example.com", "http")))
    after = parse_feed(moved_site("blog.example.com", "https"))
    pairs = [(stored[i.key], i) for i in after.items]
    assert site_moves(pairs, 2) == [("http", "example.com", "https", "blog.example.com")]
    assert site_moves(pairs, 3) == site_moves(pairs, 2)  # three of the four links moved
    assert site_moves(pairs[:1], 2) == []  # one post of four is no site-wide move
    # Alone, the paper's post (its own link unmoved) is an edit: its URL text changed.
    paper = [(stored[i.key], i) for i in after.items if i.key == "lab-post-paper"]
    (verdict,) = judge(paper, known=4)
    assert verdict.diff is not None


def test_rehosted_rewrites_whole_hosts_with_their_scheme() -> None:
    move = ("http", "example.com", "https", "blog.example.com")
    assert rehosted("See http://example.com/research/ now.", [move]) == (
        "See https://blog.example.com/research/ now."
    )
    assert rehosted("Mail example.com or www.example.com.", [move]) == (
        "Mail blog.example.com or blog.example.com."
    )
    untouched = "Not example.com.au, myexample.com, example.community or blog.example.com."
    assert rehosted(untouched, [move]) == untouched
    assert rehosted("HTTP://Example.com/x", [move]) == "https://blog.example.com/x"
    assert moved("http://a.example/1", "https://a.example/1") == (
        "http",
        "a.example",
        "https",
        "a.example",
    )
    assert moved("https://a.example/1", "https://a.example/2") is None
    assert moved(None, "https://a.example/1") is None
    assert moved("https://a.example/1", "") is None
    assert moved("/relative/", "https://a.example/1") is None
    assert moved("https://a.example/1", "/relative/") is None
    other = ("https", "elsewhere.example", "https", "new.example")
    assert rehosted("See http://example.com/x.", [other, move]) == (
        "See https://blog.example.com/x."
    )


# --- 3. one release listed twice under one guid -------------------------------------------------


def changelog(releases: list[tuple[str, str, str]]) -> bytes:
    """python-feedgen's RSS 2.0 of a changelog: the notes as escaped HTML, guid `…#V#V`."""
    items = "".join(
        f"<item><title>Tool {version}</title><link>https://tool.example/changelog</link>"
        f"<description>{escape(notes)}</description>"
        f'<guid isPermaLink="false">https://tool.example/changelog#{version}#{version}</guid>'
        f"<pubDate>{day}</pubDate></item>"
        for version, day, notes in releases
    )
    return (
        "<?xml version='1.0' encoding='UTF-8'?>\n<rss xmlns:atom=\"http://www.w3.org/2005/Atom\" "
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" version="2.0"><channel>'
        "<title>Tool Changelog</title><link>https://tool.example/changelog</link>"
        "<description>Release notes</description><generator>python-feedgen</generator>"
        f"<lastBuildDate>Mon, 30 Nov 2026 08:00:00 +0000</lastBuildDate>{items}</channel></rss>"
    ).encode()


LATEST = (
    "3.1.4",
    "Mon, 30 Nov 2026 00:00:00 +0000",
    "<h3>Fixes</h3><ul><li>Faster start.</li></ul>",
)
MISLABELLED = (
    "3.1.2",
    "Sun, 29 Nov 2026 00:00:00 +0000",
    "<h3>New model</h3><p>Now available.</p>",
)
REAL = (
    "3.1.2",
    "Tue, 24 Nov 2026 00:00:00 +0000",
    "<h3>Planner</h3><ul><li>Plans switch back to code when you start.</li>"
    "<li>Search reads long files in pieces.</li></ul>",
)


def test_a_release_listed_twice_stays_one_post_when_a_copy_disappears() -> None:
    stored = stored_of(parse_feed(changelog([LATEST, MISLABELLED, REAL])))
    assert stored["https://tool.example/changelog#3.1.2#3.1.2"].text.startswith("Planner")
    fixed = ("3.1.3", MISLABELLED[1], MISLABELLED[2])
    after = parse_feed(changelog([LATEST, fixed, REAL]))
    assert events(after, stored) == ["new: Tool 3.1.3"]  # and no "Updated: Tool 3.1.2"


def test_a_second_copy_appearing_beside_the_stored_one_is_no_edit() -> None:
    first = parse_feed(changelog([LATEST, MISLABELLED]))  # one copy, stored
    stored = stored_of(first)
    raw = read_feed(changelog([LATEST, REAL, MISLABELLED]))  # a longer copy appears above it
    after = finish_feed(raw, stored)
    assert events(after, stored) == []
    # Without the stored copy (a new feed), the longest copy stands.
    assert finish_feed(raw).items[1].text.startswith("Planner")


@given(st.permutations([LATEST, MISLABELLED, REAL, ("3.1.2", REAL[1], "<p>Short.</p>")]))
def test_the_same_copy_stands_for_a_repeated_guid_in_any_order(
    releases: list[tuple[str, str, str]],
) -> None:
    items = {i.key: i for i in parse_feed(changelog(releases)).items}
    assert len(items) == 2
    assert items["https://tool.example/changelog#3.1.2#3.1.2"].text.startswith("Planner")


def test_json_feed_repeats_choose_the_same_way() -> None:
    body = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "Tool",
            "items": [
                {"id": "r1", "content_html": "<p>Short.</p>"},
                {"id": "r1", "content_html": "<p>The longer notes of this release.</p>"},
                "not an item",
            ],
        }
    ).encode()
    raw = read_feed(body, {"content-type": "application/feed+json"})
    (item,) = raw.entries
    assert "longer" in item.html and item.position == 0
    assert [c.html for c in raw.copies["r1"]] == ["<p>Short.</p>"]


def test_one_per_key_keeps_only_copies_that_differ() -> None:
    a = RawEntry("k", "T", None, None, None, (), "<p>a</p>", "ha", 0)
    same = RawEntry("k", "T", None, None, None, (), "<p>a</p>", "ha", 1)
    longer = RawEntry("k", "T", None, None, None, (), "<p>abc</p>", "hb", 2)
    other = RawEntry("j", "T", None, None, None, (), "<p>b</p>", "hc", 3)
    entries, copies = one_per_key([a, same, other])
    assert [e.position for e in entries] == [0, 3] and copies == {}
    entries, copies = one_per_key([a, longer, other])
    assert [(e.content_hash, e.position) for e in entries] == [("hb", 0), ("hc", 3)]
    assert [c.content_hash for c in copies["k"]] == ["ha"]
    tie = RawEntry("k", "T", None, None, None, (), "<p>z</p>", "hz", 1)
    entries, _ = one_per_key([a, tie])
    assert entries[0].content_hash == "ha"  # equal lengths: the first stands


# --- 4. a planet re-issuing its entries ----------------------------------------------------------


def perlanet(entries: list[tuple[str, str, datetime, str]]) -> bytes:
    """Perlanet's Atom: no generator element, each entry as its source gave it."""
    body = "".join(
        f'<entry><title>{escape(title)}</title><link href="{escape(link)}"/>'
        f"<id>{escape(link)}</id><updated>{date.strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>"
        f"<published>{date.strftime('%Y-%m-%dT%H:%M:%SZ')}</published>"
        f'<content type="html">{escape(html)}</content><author><name>Src</name></author></entry>'
        for title, link, date, html in entries
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        '<title>Planet Common</title><link href="https://planet.example/"/>'
        f"<updated>{NOW.strftime('%Y-%m-%dT%H:%M:%SZ')}</updated><id>https://planet.example/</id>"
        f"{body}</feed>"
    ).encode()


def forecast(day: int, built: datetime, sky: str) -> tuple[str, str, datetime, str]:
    return (
        f"Day {day}: {sky}, lowest 14C",
        f"https://weather.example/town-{day}-{built:%Y%m%d}",
        built,
        f"<p>{sky}. Lowest 14C, highest 21C. Wind from the west.</p>",
    )


BLOG = [
    (f"Walk {n}", f"https://walks.example/{n}", NOW - timedelta(days=9 * n), f"<p>Walk {n}.</p>")
    for n in range(1, 5)
]


def test_a_planet_s_entries_stamped_together_within_a_day_are_recognised() -> None:
    built = NOW - timedelta(hours=3)
    news = [
        (f"Snake seen in park ({n})", f"https://news.example/{n}", NOW - timedelta(hours=20), "")
        for n in range(3)
    ]
    planet = [forecast(d, built, "Light rain") for d in range(3)] + news + BLOG
    items = parse_feed(perlanet(planet)).items
    assert reissued(i.published for i in items) == (6, 10)
    # A blog whose posts are days apart, or two posts sharing a theme's default date, is not.
    assert reissued(i.published for i in parse_feed(perlanet(BLOG)).items) == (0, 4)
    assert reissued([SET_UP, SET_UP, SET_UP - timedelta(days=70)]) == (0, 3)
    assert reissued([None, None]) == (0, 2)
    # Three stamped together, the undated counted in the total; a day's edge is inside.
    day = timedelta(days=1)
    assert reissued([NOW, NOW - day, NOW - day, NOW - day, None]) == (3, 5)
    assert reissued([NOW, NOW] + [NOW - day - timedelta(seconds=1)] * 3) == (0, 5)
    # Distinct times (a busy news site), or posts of one day dated at midnight, are not.
    assert reissued([NOW - timedelta(minutes=n) for n in range(30)]) == (0, 30)
    assert reissued([NOW, NOW, NOW - timedelta(hours=6)] * 1 + [NOW - timedelta(hours=6)]) == (
        4,
        4,
    )  # two builds of two items each
    midnight = datetime(2026, 11, 30, tzinfo=UTC)
    assert reissued([midnight] * 4) == (0, 4)
    assert reissued([midnight + timedelta(seconds=1)] * 4) == (4, 4)


def test_new_posts_only_stores_a_planet_s_re_issues_silently() -> None:
    built = NOW - timedelta(hours=6)
    stored = stored_of(parse_feed(perlanet([forecast(0, built, "Light rain"), *BLOG])))
    key = next(iter(stored))
    reissue = forecast(0, built, "Heavy rain")  # same id, the forecast re-issued
    fresh = ("Walk 9", "https://walks.example/9", NOW, "<p>A new walk.</p>")
    after = parse_feed(perlanet([reissue, fresh, *BLOG]))
    detection = detect(after, {k: v for k, v in stored.items()})
    assert sorted(c.kind.value for c in detection.changes) == ["edited", "new"]
    quiet = new_posts_only(detection)
    assert [c.item.title for c in quiet.changes] == ["Walk 9"]
    assert quiet.absorbed == {key: "edits off"}
    assert quiet.notes[-1] == "stored 1 edit silently (edits off)"
    assert new_posts_only(quiet) is quiet  # nothing left to silence
