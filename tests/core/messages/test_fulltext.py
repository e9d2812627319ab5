"""Full text's pure rules (issue 27): which feeds look excerpt-only, which pages a poll reads,
how an article joins its post, and what counts as an article on a page."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.article import (
    MIN_WORDS,
    Article,
    _inner,
    _without_title,
    extract_article,
    failed,
)
from bot.core.messages.fulltext import excerpt_only, is_excerpt, with_article
from bot.core.messages.render import render_change
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.fixtures.article_pages import (
    CRANES,
    ORCHARD,
    news_page,
    sign_in_page,
    wordpress_page,
)
from tests.support.telegram_html import assert_valid_telegram_html

LONG = " ".join(f"word{n}" for n in range(200)) + "."


def item(text: str, *, full: bool = True, key: str = "k", image: str | None = None) -> ParsedItem:
    return ParsedItem(
        key, "Title", "https://a.example/p", None, None, (), text, "f", 0, image=image, full=full
    )


# --- excerpt-only feeds ------------------------------------------------------------------------


def test_cut_marks_and_wordpress_footers_are_excerpts() -> None:
    for text in (
        "The council met on Monday to talk about the bridge […]",
        "The council met on Monday to talk about the bridge …",
        "The council met on Monday. Read more",
        "The council met on Monday. Continue reading →",
        f"{LONG}\n\nThe post Bridge news appeared first on Town Notes.",
    ):
        assert is_excerpt(item(text)), text


def test_only_the_last_paragraph_carries_the_cut_mark() -> None:
    assert not is_excerpt(item(f"The post Bridge news appeared first on Town Notes.\n{LONG}"))
    assert not is_excerpt(item(f"It was a long day …\n{LONG}"))
    assert not is_excerpt(item(f"Intro.\nThe post X appeared first on Y.\n{LONG}"))
    assert is_excerpt(item(f"{LONG}\nRead more   \n\n"))


def test_a_short_description_alone_is_an_excerpt_but_a_short_full_post_is_not() -> None:
    assert is_excerpt(item("The council met on Monday.", full=False))
    assert not is_excerpt(item("The council met on Monday.", full=True))
    assert not is_excerpt(item(LONG, full=False))  # a long description is the post itself
    assert not is_excerpt(item("", full=False))
    assert not is_excerpt(item("  \n ", full=False))
    words = [f"w{n}" for n in range(120)]
    assert not is_excerpt(item(" ".join(words), full=False))  # SHORT_WORDS: short is fewer
    assert is_excerpt(item(" ".join(words[:-1]), full=False))


def test_a_feed_is_excerpt_only_when_every_item_is() -> None:
    cut = item("The council met on Monday [...]")
    assert excerpt_only([cut, cut])
    assert not excerpt_only([cut, item(LONG)])
    assert not excerpt_only([])


# --- the article joins its post ----------------------------------------------------------------


def test_the_article_replaces_the_excerpt_and_lends_its_image() -> None:
    post = item("The council met [...]", full=False)
    joined = with_article(
        post, Article(html="<p>The whole story.</p>", image="https://a.example/i.jpg")
    )
    assert (joined.html, joined.full, joined.image) == (
        "<p>The whole story.</p>",
        True,
        "https://a.example/i.jpg",
    )
    assert (joined.title, joined.link, joined.text, joined.fingerprint) == (
        post.title,
        post.link,
        post.text,
        post.fingerprint,
    )
    own = item("x", image="https://a.example/own.jpg")
    assert (
        with_article(own, Article(html="<p>y</p>", image="https://a.example/i.jpg")).image
        == own.image
    )
    assert with_article(post, failed("HTTP 403")) is post
    assert with_article(post, Article(html="", image="https://a.example/i.jpg")) is post


@given(st.text(max_size=300))
def test_any_article_text_renders_as_valid_telegram_html(body: str) -> None:
    post = with_article(item("teaser [...]", full=False), Article(html=f"<p>{body}</p>"))
    for form in (Format.SUMMARY, Format.FULL):
        assert_valid_telegram_html(
            render_change(Change(ChangeKind.NEW, post), FeedInfo("s", "Site"), form=form)
        )


# --- what counts as an article -----------------------------------------------------------------


def test_a_news_page_gives_its_article_without_the_furniture() -> None:
    found = extract_article(
        news_page(CRANES, "https://p.example"), "https://p.example/cranes/", CRANES.title
    )
    assert found.ok and found.error is None
    assert found.html.startswith("<p>The port authority switched its last four diesel cranes")
    assert "<h1>" not in found.html  # the title, which the message already shows
    for furniture in (
        "cookies",
        "Advertisement",
        "Related posts",
        "Great news",
        "By Mara",
        "Photo:",
    ):
        assert furniture not in found.html, furniture
    assert found.image == "https://p.example/img/cranes.jpg"


def test_a_wordpress_page_gives_its_entry_content() -> None:
    found = extract_article(
        wordpress_page(ORCHARD, "https://v.example"), "https://v.example/o/", ORCHARD.title
    )
    assert ORCHARD.paragraphs[1][:40] in found.html
    for furniture in ("Leave a Reply", "Recent Posts", "Share this", "Archives", "powered by"):
        assert furniture not in found.html, furniture


def test_a_sign_in_wall_an_empty_page_and_garbage_are_no_article() -> None:
    assert "too few words" in (
        extract_article(sign_in_page(), "https://p.example/x", "T").error or ""
    )
    assert not extract_article(b"", "https://p.example/x").ok
    assert not extract_article(b"\x00\xff" * 500, "https://p.example/x").ok
    few = b"<html><body><article><p>" + b"word " * (MIN_WORDS - 5) + b"</p></article></body></html>"
    assert not extract_article(few, "https://p.example/x").ok


def test_an_image_that_is_no_web_address_is_dropped() -> None:
    page = news_page(CRANES, "javascript:")
    assert extract_article(page, "https://p.example/cranes/", CRANES.title).image is None


RICH = news_page(CRANES, "https://p.example").replace(
    b"<h2>What changes</h2>",
    b"<p>Figures by <b>berth</b>, see <a href='/data'>the data page</a>:</p><table><tr>"
    b"<th>Berth</th><th>Cranes</th></tr><tr><td>Four</td><td>Two electric</td></tr></table>"
    b"<img src='/img/berth.jpg'><h2>What changes</h2>",
)


def test_tables_and_emphasis_are_kept_links_and_images_are_not() -> None:
    found = extract_article(RICH, "https://p.example/cranes/", CRANES.title)
    assert "<table>" in found.html and "<td>Two electric</td>" in found.html
    assert "<strong>berth</strong>" in found.html
    assert "<a " not in found.html and "the data page" in found.html  # our own link checks
    assert "<img" not in found.html and "graphic" not in found.html


def test_the_title_is_found_on_the_page_when_not_given() -> None:
    found = extract_article(news_page(CRANES, "https://p.example"), "https://p.example/c/")
    assert "<h1>" not in found.html


def test_what_no_article_says() -> None:
    for page in (b"", b"<html><body></body></html>", b"<p></p>"):
        assert (
            extract_article(page, "https://p.example/x").error
            == "no article text found on the page"
        )
    assert len(failed("x" * 400).error or "") == 300
    wall = extract_article(sign_in_page(), "https://p.example/x", "T").error
    assert wall == "no article text found on the page (too few words: a login or an index?)"


def test_a_heading_is_dropped_only_when_it_is_the_title() -> None:
    assert _without_title("<h1>Harbour\n  cranes</h1><p>x</p>", "harbour cranes") == "<p>x</p>"
    assert _without_title("<h1>Other</h1><p>x</p>", "Harbour cranes").startswith("<h1>")
    assert _inner("<html><body><p>x</p></body></html>") == "<p>x</p>"
    assert _inner("<body><p>x</p></body>") == "<p>x</p>"
    assert _inner("<body>\n<p>x</p>\n<p>y</p>\n</body>") == "<p>x</p>\n<p>y</p>"
    assert _inner("  <p>x</p> ") == "<p>x</p>"


def test_exactly_the_minimum_of_words_is_an_article_and_cjk_characters_count() -> None:
    def page(text: str) -> bytes:
        return f"<html><body><article><p>{text}</p></article></body></html>".encode()

    enough = " ".join(f"word{n}" for n in range(MIN_WORDS)) + "."
    assert extract_article(page(enough), "https://p.example/x").ok
    fewer = " ".join(f"word{n}" for n in range(MIN_WORDS - 1)) + "."
    assert not extract_article(page(fewer), "https://p.example/x").ok
    chinese = "港口管理局周一将最后四台柴油起重机改为电力驱动，使港口的燃料消耗减少了三分之一。"
    assert extract_article(page(chinese), "https://p.example/x").ok  # 2 runs, 38 characters


def test_a_relative_image_is_made_absolute_and_no_image_is_none() -> None:
    page = (
        b"<html><head><meta property='og:image' content='img/a.jpg'></head><body><article><p>"
        + b"word " * 60
        + b".</p></article></body></html>"
    )
    assert (
        extract_article(page, "https://p.example/post/").image == "https://p.example/post/img/a.jpg"
    )
    plain = wordpress_page(ORCHARD, "https://v.example")
    assert extract_article(plain, "https://v.example/o/", ORCHARD.title).image is None
