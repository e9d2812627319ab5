"""A message's header (issue 42): an untitled post is named by its first words everywhere
(single message, flood list, digest), never an empty anchor nor "(untitled)"; the author is
left out when it repeats the feed or the title, addresses stripped; at most 4 categories
without the generic, status, keyword-list or repeated ones."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messages.digest import DigestEntry, render_digest, render_new_list
from bot.core.messages.header import (
    MAX_CATEGORIES,
    NAME_CHARS,
    post_name,
    shown_author,
    shown_categories,
)
from bot.core.messages.render import render_change
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.telegram_html import assert_valid_telegram_html

_ANCHOR = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.DOTALL)
TOOT = (
    "Went to the harbour at dawn to count the herons, and there were eleven of them "
    "standing in a row like a committee."
)


def toot(n: int = 1) -> ParsedItem:
    return ParsedItem(
        f"k{n}", "", f"https://social.example/@ana/{n}", None, None, (), TOOT,
        "f", 0, html=f"<p>{TOOT}</p>",
    )  # fmt: skip


def test_an_untitled_post_is_named_by_its_first_words() -> None:
    name = post_name("", TOOT)
    assert name.startswith("Went to the harbour at dawn") and name.endswith("…")
    assert len(name) <= NAME_CHARS
    assert post_name("", "See https://x.example/a now") == "See now"
    assert post_name("  ", "", "https://social.example/@ana/1") == "https://social.example/@ana/1"
    assert post_name("Real title", TOOT) == "Real title"


def test_untitled_posts_have_a_tappable_name_in_every_message() -> None:
    single = render_change(Change(ChangeKind.NEW, toot()), FeedInfo("ana", "Ana"))
    assert single.startswith('<b><a href="https://social.example/@ana/1">Went to the harbour')
    assert "(untitled)" not in single
    (flood,) = render_new_list("Ana", [toot(1), toot(2)])
    (digest,) = render_digest("Ana", [DigestEntry("", "https://social.example/@ana/3", ())])
    for message in (single, flood, digest):
        assert_valid_telegram_html(message)
        anchors = _ANCHOR.findall(message)
        assert anchors and all(inner.strip() for _, inner in anchors)
    assert "Went to the harbour" in flood
    assert ">https://social.example/@ana/3</a>" in digest


def test_the_author_is_left_out_when_it_repeats_the_feed_or_the_title() -> None:
    assert shown_author("Rain Maker", "Rain Maker") is None
    assert shown_author("rain-maker", "Rain Maker") is None
    assert shown_author("Kestrel 4.2", "Blog", "Kestrel 4.2") is None
    assert shown_author("noreply@blogger.com (Ana Ruiz)", "Blog") == "Ana Ruiz"
    assert shown_author("Ana Ruiz (noreply@blogger.com)", "Blog") == "Ana Ruiz"
    assert shown_author("noreply@blogger.com", "Blog") is None
    assert shown_author("Ana Ruiz", "Blog") == "Ana Ruiz"
    assert (
        shown_author("Ana (now), Ben and Cy (earlier)", "Blog") == "Ana (now), Ben and Cy (earlier)"
    )
    item = ParsedItem("k", "Post", None, "Rain Maker", None, (), "Hi.", "f", 0)
    message = render_change(Change(ChangeKind.NEW, item), FeedInfo("rm", "Rain Maker"))
    assert message.split("\n")[1] == "Rain Maker"


def test_at_most_four_categories_without_generic_status_or_repeated_ones() -> None:
    tags = (
        "Uncategorized", "Sin categoría", "Blog", "Done", "Rust", "rust",
        "apple, iphone, podcast, tech", "Kestrel", "Tooling", "Releases", "Linux", "Boats",
    )  # fmt: skip
    shown = shown_categories(tags, title="Kestrel 4.2 is out", feed_title="Notes")
    assert shown == ["Rust", "Tooling", "Releases", "Linux"]
    assert len(shown) <= MAX_CATEGORIES == 4
    assert shown_categories(("Notes", "Ana", "Maps"), feed_title="Notes", author="Ana") == ["Maps"]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=40), st.text(max_size=200), st.booleans())
def test_every_message_has_an_href_to_the_post_and_no_empty_anchor(
    title: str, text: str, linked: bool
) -> None:
    link = "https://blog.example/p/1" if linked else None
    item = ParsedItem("k", title.strip(), link, None, None, (), text, "f", 0)
    for form in Format:
        message = render_change(Change(ChangeKind.NEW, item), FeedInfo("b", "B"), form=form)
        assert_valid_telegram_html(message)
        anchors = _ANCHOR.findall(message)
        assert all(inner.strip() for _, inner in anchors)
        if linked:
            assert anchors and anchors[0][0] == link


def test_a_long_title_leaves_fewer_summary_lines_so_the_message_fits_one_screen() -> None:
    import html as html_lib

    title = "TIL the only character to appear in ten different series " * 4
    body = "".join(
        f"<p>Sentence number {n} is here to fill the phone screen.</p>" for n in range(9)
    )
    item = ParsedItem(
        "k", title.strip(), "https://r.example/1", "ana", None, ("til",), "", "f", 0, html=body
    )
    message = render_change(Change(ChangeKind.NEW, item), FeedInfo("r", "R"))
    shown = html_lib.unescape(re.sub(r"<[^>]+>", "", message))
    rows = sum(max(1, -(-len(line) // 38)) for line in shown.split("\n"))
    assert rows <= 20
    assert "Sentence number 0" in shown  # still a summary under it


def test_an_untitled_post_with_no_words_is_named_by_its_address() -> None:
    assert post_name("", link="https://social.example/@ana/7") == "https://social.example/@ana/7"
    assert post_name("") == ""


def test_first_words_that_fit_are_the_whole_name() -> None:
    exact = "w" * (NAME_CHARS - 1) + "."
    assert post_name("", exact) == exact


def test_a_name_cut_inside_one_long_word_fills_the_limit() -> None:
    assert post_name("", "x" * 200) == "x" * (NAME_CHARS - 1) + "…"


def test_a_name_ends_at_the_last_whole_word_without_its_punctuation() -> None:
    text = (
        "We watched the rocket launch from the beach and the crowd cheered for SpaceX, "
        "unsurprisingly loudly and for a long time after it was gone"
    )
    assert post_name("", text) == (
        "We watched the rocket launch from the beach and the crowd cheered for SpaceX…"
    )


def test_a_name_is_not_cut_back_to_half_a_line_or_less_for_a_whole_word() -> None:
    half = "Morning walk along the river with a view"  # its space after is the middle
    assert len(half) == NAME_CHARS // 2
    long_word = "Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichen"
    name = post_name("", f"{half} {long_word} {long_word}")
    assert name == f"{half} {long_word}"[: NAME_CHARS - 1] + "…"


def test_an_author_keeps_its_own_brackets_and_loses_leftover_punctuation() -> None:
    assert shown_author("Ana Ruiz (Madrid)", "Blog") == "Ana Ruiz (Madrid)"
    assert shown_author("(Ana) and (Ben)", "Blog") == "(Ana) and (Ben)"
    assert shown_author("noreply@blogger.com, Ana Ruiz", "Blog") == "Ana Ruiz"
    assert shown_author("Ana Ruiz · ana@example.org", "Blog") == "Ana Ruiz"
    assert shown_author("Xavier Roux", "Blog") == "Xavier Roux"


def test_a_tag_with_two_commas_is_a_keyword_list() -> None:
    assert shown_categories(("apple, iphone, ipad", "Gardening")) == ["Gardening"]
    assert shown_categories(("Salt, Pepper",)) == ["Salt, Pepper"]


def test_emoji_tags_are_compared_as_they_are() -> None:
    assert shown_categories(("🚀 🌕",), title="🚀 🌕 🎉") == []
    assert shown_categories(("🚀 🌕", "🎉"), title="Launch day") == ["🚀 🌕", "🎉"]
    assert shown_categories(("🚀", "🚀")) == ["🚀"]


def test_a_site_s_address_or_a_bot_account_is_no_author() -> None:
    for account in ("www.qq.com", "news.example.com", "https://blog.example.org/",
                    "Example.COM", "github-actions[bot]", "renovate[bot]"):  # fmt: skip
        assert shown_author(account, "Feed") is None, account
    for person in ("Ana Ruiz", "J. R. Smith", "john.doe", "St.Louis Team", "node.js"):
        assert shown_author(person, "Feed") == person


def test_a_tag_s_quote_escaped_twice_is_shown_as_written() -> None:
    shown = shown_categories(["angie\\'s list", 'the \\"best\\" tools', "C:\\\\ drive"])
    assert shown == ["angie's list", 'the "best" tools', "C:\\\\ drive"]


def test_a_tag_a_longer_tag_already_says_is_left_out() -> None:
    tags = ("ACM算法", "字符串", "ACM", "字符串匹配", "Linux", "Linux kernel")
    assert shown_categories(tags) == ["ACM算法", "字符串匹配", "Linux kernel"]
    assert shown_categories(("comics", "webcomics")) == ["comics", "webcomics"]  # a word's inside
    assert shown_categories(("Go", "Gopher"), title="x") == ["Go", "Gopher"]


def test_the_feed_s_or_author_s_name_written_without_spaces_is_no_topic() -> None:
    tags = ("GiantBomb", "Jeff Gerstmann", "video games")
    shown = shown_categories(tags, feed_title="Giant Bombcast", author="Giant Bomb")
    assert shown == ["Jeff Gerstmann", "video games"]


def test_a_one_word_site_s_initials_are_no_topic_but_another_name_s_may_be() -> None:
    assert shown_categories(("TC", "Startups"), feed_title="TechCrunch") == ["Startups"]
    assert shown_categories(("TC", "Apps"), feed_title="TechCrunch - Startups") == ["Apps"]
    assert shown_categories(("AN", "AI"), feed_title="Apple News") == ["AN", "AI"]
    assert shown_categories(("T", "AWS"), feed_title="Tech") == ["T", "AWS"]
