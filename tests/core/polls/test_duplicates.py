"""The cross-feed duplicate rule on real-shaped pairs (issue 46): syndicated copies, planets'
"The post … appeared first on …", tracking parameters; a translated title and two weekly posts
with the same title are not one story."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.polls import duplicates
from bot.core.polls.duplicates import (
    MIN_OPENING,
    OPENING_MIN,
    TITLE_MIN,
    opening_score,
    same_story,
    similarity,
    story_of,
    title_score,
    words,
)

RELEASE = (
    "Corvid Labs, a maker of accelerator chips for training and inference, joins the Lumen "
    "Foundation as a Platinum member. It will help steer the hardware working group and fund "
    "continuous integration for new back ends, starting with two test racks in Oslo this "
    "autumn and a shared benchmark suite for every member."
)

# (new post, sent post, one story?) as (link, title, text)
PAIRS = {
    "same link, tracking parameters": (
        ("https://www.lumen.example/news/corvid/?utm_source=planet&utm_medium=rss", "Corvid", ""),
        ("https://lumen.example/news/corvid", "Welcome Corvid Labs", "Short."),
        True,
    ),
    "syndicated copy on a planet, its own link": (
        (
            "https://planet.example/lumen/corvid-labs-joins",
            "Corvid Labs joins the Lumen Foundation as a Platinum Member",
            RELEASE + " The post Corvid Labs joins the Lumen Foundation appeared first on "
            "Lumen Blog.",
        ),
        (
            "https://blog.lumen.example/corvid-labs-joins-as-platinum-member/",
            "Corvid Labs Joins the Lumen Foundation as a Platinum Member",
            RELEASE,
        ),
        True,
    ),
    "a news site's excerpt of the release": (
        (
            "https://news.example/2026/09/corvid",
            "Corvid Labs joins Lumen Foundation as Platinum member",
            " ".join(RELEASE.split()[:30]) + " […]",
        ),
        (
            "https://blog.lumen.example/corvid-labs-joins-as-platinum-member/",
            "Corvid Labs Joins the Lumen Foundation as a Platinum Member",
            RELEASE,
        ),
        True,
    ),
    "originally published at, opening first": (
        (
            "https://member.example/blog/corvid",
            "Corvid Labs joins the Lumen Foundation as a Platinum Member",
            "Originally published at blog.lumen.example. " + RELEASE,
        ),
        (
            "https://blog.lumen.example/corvid-labs-joins-as-platinum-member/",
            "Corvid Labs Joins the Lumen Foundation as a Platinum Member",
            RELEASE,
        ),
        True,
    ),
    "translated title": (
        (
            "https://blog.lumen.example/es/corvid-labs-se-une/",
            "Corvid Labs se une a la Fundación Lumen como miembro Platino",
            "Corvid Labs, fabricante de chips aceleradores para entrenamiento e inferencia, se "
            "une a la Fundación Lumen como miembro Platino y ayudará a dirigir el grupo de "
            "hardware.",
        ),
        (
            "https://blog.lumen.example/corvid-labs-joins-as-platinum-member/",
            "Corvid Labs Joins the Lumen Foundation as a Platinum Member",
            RELEASE,
        ),
        False,
    ),
    "two weekly posts with the same title": (
        (
            "https://weekly.example/issue-41",
            "This Week in Lumen",
            "Hello and welcome to another issue of This Week in Lumen. The scheduler now "
            "retries failed shards twice, the docs moved to a new theme, and three people "
            "made their first contribution to the compiler.",
        ),
        (
            "https://other.example/twil-40",
            "This Week in Lumen",
            "Hello and welcome to another issue of This Week in Lumen. The release candidate "
            "for 3.2 is out, the benchmark dashboard shows memory per test, and the forum "
            "has a category for hardware questions.",
        ),
        False,
    ),
    "same project, different news": (
        (
            "https://news.example/lumen-3-2",
            "Lumen 3.2 released with a new scheduler",
            "The Lumen project released version 3.2 today, with a scheduler that retries "
            "failed shards and a faster compiler for every back end they support.",
        ),
        (
            "https://blog.lumen.example/lumen-3-1",
            "Lumen 3.1 released with faster builds",
            "Version 3.1 of Lumen is out: builds are a third faster, the documentation has a "
            "new search and the installer asks fewer questions on first run.",
        ),
        False,
    ),
    "same title, no text on either side": (
        ("https://a.example/x", "Release notes", ""),
        ("https://b.example/y", "Release notes", ""),
        False,
    ),
}


def _story(post: tuple[str, str, str]) -> duplicates.Story:
    return story_of(*post)


def test_real_shaped_pairs() -> None:
    for name, (new, sent, expected) in PAIRS.items():
        assert same_story(_story(new), _story(sent)) is expected, name


def test_the_measured_margins() -> None:
    """The thresholds sit between what one story and two stories score on these pairs."""
    scores = {
        name: (title_score(_story(n), _story(s)), opening_score(_story(n), _story(s)))
        for name, (n, s, _) in PAIRS.items()
    }
    # copies: titles ≥ 0.8, openings ≥ 0.9 (the excerpt compares its own length)
    for name in (
        "syndicated copy on a planet, its own link",
        "a news site's excerpt of the release",
        "originally published at, opening first",
    ):
        title, opening = scores[name]
        assert title >= TITLE_MIN + 0.2 and opening >= OPENING_MIN + 0.3, (name, title, opening)
    weekly_title, weekly_opening = scores["two weekly posts with the same title"]
    assert weekly_title == 1.0 and weekly_opening <= OPENING_MIN - 0.2
    assert scores["translated title"][0] <= TITLE_MIN - 0.3
    assert scores["same project, different news"][0] <= TITLE_MIN - 0.2


def test_a_link_alone_decides_and_none_never_matches() -> None:
    a = story_of("https://x.example/p?fbclid=1#top", "One", "")
    b = story_of("http://www.x.example/p/", "Two", "")
    assert a.link is not None and a.link == b.link and same_story(a, b)
    c = story_of(None, "One", "")
    d = story_of("javascript:alert(1)", "One", "")
    assert c.link is None and d.link is None and not same_story(c, d)


def test_words_fold_case_accents_and_split_cjk() -> None:
    assert words("Fundación LUMEN, 2026!") == ["fundacion", "lumen", "2026"]
    assert words("发布新版本 v2") == ["发", "布", "新", "版", "本", "v2"]
    assert words("カナ와한") == ["カ", "ナ", "와", "한"]


def test_similarity_and_short_openings() -> None:
    assert similarity([], []) == 0.0
    assert similarity(["a", "b"], ["b", "c"]) == 1 / 3
    short = " ".join(f"w{i}" for i in range(MIN_OPENING - 1))
    enough = " ".join(f"w{i}" for i in range(MIN_OPENING))
    assert opening_score(story_of(None, "t", short), story_of(None, "t", short)) == 0.0
    assert opening_score(story_of(None, "t", enough), story_of(None, "t", enough)) == 1.0


def test_syndication_lines_are_not_the_opening() -> None:
    told = story_of(None, "t", "The post Hello appeared first on Lumen Blog. Real words here")
    assert told.opening == "real words here"
    told = story_of(None, "t", "This article was originally published on x.example. Body")
    assert told.opening == "body"
    assert story_of(None, "t", " ".join(["w"] * 90)).opening.count("w") == 40


def test_the_thresholds_are_inclusive_and_every_part_counts() -> None:
    """Titles sharing exactly 3 of 5 words (0.6) and openings sharing exactly 6 of 12 word
    pairs (0.5) are one story; one word fewer on either side is not."""
    opening = " ".join(f"w{i}" for i in range(10))
    other = " ".join([*(f"w{i}" for i in range(7)), "x", "y", "z"])
    a = story_of(None, "alpha beta gamma", opening)
    b = story_of(None, "alpha beta gamma delta epsilon", other)
    assert title_score(a, b) == TITLE_MIN and opening_score(a, b) == OPENING_MIN
    assert same_story(a, b)
    assert not same_story(story_of(None, "alpha beta", opening), b)
    shorter = " ".join([*(f"w{i}" for i in range(6)), "q", "x", "y", "z"])
    assert not same_story(a, story_of(None, "alpha beta gamma delta epsilon", shorter))


def test_an_excerpt_compares_its_own_length_either_way() -> None:
    full = story_of(None, "t", " ".join(f"w{i}" for i in range(20)))
    excerpt = story_of(None, "t", " ".join(f"w{i}" for i in range(10)))
    assert opening_score(full, excerpt) == opening_score(excerpt, full) == 1.0


def test_stored_title_words_and_odd_links() -> None:
    assert story_of(None, "Hello, World", "").title == "hello world"
    lone = story_of("https://x.example/\ud800", "t", "")  # a lone surrogate still hashes
    assert lone.link is not None and len(lone.link) == 64


def test_every_cjk_block_is_split() -> None:
    assert words("가나") == ["가", "나"]
    assert words("가x") == ["가", "x"]  # Hangul syllables start at U+AC00
    # compatibility ideographs that stay themselves under NFKD (U+F900 itself becomes U+8C48)
    assert words("\ufa0e\ufa0f") == ["\ufa0e", "\ufa0f"]
    assert words("\u3041\u3042") == ["\u3041", "\u3042"]  # hiragana, near the block's start
    assert words("\ud7a3\ud7a3") == ["\ud7a3", "\ud7a3"]  # the last Hangul syllable
    assert words("\u9fff\u9fff") == ["\u9fff", "\u9fff"]  # the last unified ideograph


UPDATED = (
    '<b>Updated: <a href="{link}">{title}</a></b>\n{feed} · 8 Sep 2026\n\n'
    "<i>A paragraph added: “Corvid Labs will also host the 2027 summit.”</i>\n"
    "<b>Added:</b>\n+ Corvid Labs will also host the 2027 summit."
)


def test_one_change_told_by_two_copies_is_the_same_change() -> None:
    """The original's edit and the planet's republished edit differ only in their header (a
    copy's own link, title, feed and categories); another change, or a message that is all
    header, is not the same change."""
    original = UPDATED.format(link="https://lumen.example/a/", title="Corvid", feed="Lumen")
    planet = UPDATED.format(
        link="https://lumen.example/a/?utm_source=planet", title="Lumen: Corvid", feed="Planet"
    ).replace(" · 8 Sep 2026", " · 8 Sep 2026\n<i>Announcements</i>")
    assert duplicates.same_change(planet, original) and duplicates.same_change(original, planet)
    other = original.replace("2027 summit", "2028 summit")
    assert not duplicates.same_change(other, original)
    notice = '<b>Updated: </b><a href="https://a.example/">Corvid</a> — <i>a paragraph added</i>'
    copy = (
        '<b>Updated: </b><a href="https://b.example/">Planet: Corvid</a> — <i>a paragraph added</i>'
    )
    assert duplicates.same_change(copy, notice)
    assert duplicates.change_of(notice) == "<i>a paragraph added</i>"
    bare = "<b>Updated: Corvid</b>"
    assert duplicates.change_of(bare) == "" and not duplicates.same_change(bare, bare)


def _naive_copies(posts: list[tuple[int, duplicates.Story]]) -> dict[int, int]:
    """The rule `first_copies` must give: each post against every earlier first post."""
    found: dict[int, int] = {}
    firsts: list[int] = []
    for index, (feed, story) in enumerate(posts):
        first = next(
            (f for f in firsts if posts[f][0] != feed and same_story(story, posts[f][1])), None
        )
        if first is None:
            firsts.append(index)
        else:
            found[index] = first
    return found


_WORDS = st.sampled_from(["corvid", "labs", "joins", "lumen", "the", "racks", "oslo", "week"])


@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from([None, "https://a.example/1", "https://a.example/1?utm_source=x",
                             "https://b.example/2"]),
            st.lists(_WORDS, min_size=1, max_size=5),
            st.lists(_WORDS, max_size=14),
        ),
        max_size=12,
    )
)  # fmt: skip
def test_first_copies_is_the_rule_pair_by_pair(
    posts: list[tuple[int, str | None, list[str], list[str]]],
) -> None:
    stories = [(f, story_of(link, " ".join(t), " ".join(o))) for f, link, t, o in posts]
    assert duplicates.first_copies(stories) == _naive_copies(stories)


def test_first_copies_of_one_night() -> None:
    """The foundation's release, the planet's copy (a tracking link), the news site's copy
    (its own link, near title and opening), the same feed's second post and a translation."""
    release = story_of("https://lumen.example/corvid/", "Corvid Labs joins Lumen", RELEASE)
    planet = story_of("https://lumen.example/corvid/?utm_source=planet", "Lumen: Corvid", "")
    news = story_of("https://news.example/c?utm_medium=rss", "Corvid Labs joins Lumen", RELEASE)
    own = story_of("https://lumen.example/corvid-2/", "Corvid Labs joins Lumen", RELEASE)
    spanish = story_of("https://lumen.example/es/", "Corvid Labs se une a Lumen", "Corvid se une")
    posts = [(1, release), (2, planet), (3, news), (1, own), (1, spanish)]
    assert duplicates.first_copies(posts) == {1: 0, 2: 0}
