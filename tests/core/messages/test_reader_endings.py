"""How a summary ends and what it never shows (issue 42, session 21): a message ended on the
lead-in of the part it leaves out ("Media." before "We all consume it …", "Still no
connection?" before the answer), and on a permalink glyph ("★") or an elision mark ("[…]").
Fixtures are our own text in the shapes of those feeds (Typepad, Ghost, Daring Fireball)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.blocks import Block, Run
from bot.core.messages.machinery import idle, without_credits
from bot.core.messages.summary import summarize
from tests.support.telegram_html import visible

_LONG = "<p>" + " ".join(f"Step {n} of the setup is described at length here." for n in range(9))


def test_a_word_that_opens_a_paragraph_the_message_cuts_is_not_its_last_line() -> None:
    body = (
        "<p>The sidebar series shows one trick a week. This one is about lists.</p>"
        "<p>Media. We all read it and we all share it on our pages.</p>"
        "<p>The simplest way to share it is a list in the sidebar.</p>"
    )
    shown = visible(summarize(body))
    assert shown == "The sidebar series shows one trick a week. This one is about lists."


def test_a_short_question_before_the_answer_is_not_the_last_line() -> None:
    body = (
        "<p>Our radios drop the link twice a day, and we traced it to the relay firmware.</p>"
        "<p>A reboot fixed it for a week.</p><p>Still no link?</p>" + _LONG + "</p>"
    )
    shown = visible(summarize(body))
    assert not shown.endswith("Still no link?")
    assert shown.endswith("A reboot fixed it for a week.")


def test_a_short_whole_verdict_stays_and_so_does_a_post_that_ends_on_a_question() -> None:
    verdict = (
        "<p>The museum posted the panel on the first phone. It runs an hour.</p>"
        "<p>Fascinating stories.</p>"
    )
    assert visible(summarize(verdict + _LONG + "</p>")).endswith("Fascinating stories.")
    ends = "<p>We moved the build to a new runner this week.</p><p>Worth it?</p>"
    assert visible(summarize(ends)).endswith("Worth it?")  # the whole post: nothing is cut


def test_chinese_is_never_taken_for_a_few_words() -> None:
    # a third sentence of five characters opening a paragraph the message cuts: a sentence
    body = "<p>一套五百二十元。价格很好。</p><p>包真包老。后面还有很多说明。</p>" + _LONG + "</p>"
    assert visible(summarize(body)).endswith("包真包老。")


def test_a_paragraph_of_symbols_only_is_never_shown() -> None:
    body = (
        '<p>The panel is worth an hour of anyone’s time.</p><p><a href="https://df.example/'
        'p/1">★</a></p><p>* * *</p><p>[…]</p>'
    )
    assert visible(summarize(body)) == "The panel is worth an hour of anyone’s time."


@given(st.text(alphabet="★*-~[]…·#◉ ", min_size=1, max_size=12))
def test_a_block_without_letters_or_digits_is_idle(text: str) -> None:
    assert idle(Block("p", (Run(text),)))
    assert not idle(Block("p", (Run(text + " Saturn V"),)))


def test_a_series_continuation_and_its_way_in_are_skipped_for_the_post_s_own_words() -> None:
    body = (
        "<p>This is a continuation of my home server tutorial series. You can start at the "
        'beginning <a href="https://a.example/1">here</a> if you’d like!</p>'
        "<p>In this tutorial, I’ll cover how to back up the server to a second disk.</p>"
    )
    shown = visible(summarize(body))
    assert shown == "In this tutorial, I’ll cover how to back up the server to a second disk."


def test_an_excerpt_of_the_body_s_first_words_is_the_body_s_even_when_they_are_machinery() -> None:
    body = (
        '<figure><img src="https://a.example/d.png" alt="Disks!"><figcaption>Disks!</figcaption>'
        "</figure><p>This is a continuation of my home server tutorial series.</p>"
        "<p>In this tutorial, I’ll cover how to back up the server to a second disk. It takes "
        "an hour. You need a spare disk. You also need a cable.</p>"
    )
    excerpt = (
        "Disks!\n\nThis is a continuation of my home server tutorial series.\n\nIn this tutorial, I’ll "
        "cover how to back up the server to a second disk. It takes an hour."
    )
    shown = visible(summarize(body, excerpt_html=excerpt))
    assert shown.startswith("In this tutorial, I’ll cover how to back up the server")
    assert "You need a spare disk." in shown  # the body's, which goes on past the excerpt


def test_a_changelog_item_s_credits_are_not_shown() -> None:
    body = (
        "<p>Fixes in this release:</p><ul>"
        '<li>Search keeps the lens on page two <a href="https://f.example/d/41">#41</a> '
        '<a href="https://f.example/u/ana">@ana</a></li>'
        "<li>Faster cold start by @bo-r in #52</li><li>Dark theme contrast (#60)</li></ul>"
    )
    shown = visible(summarize(body))
    assert "• Search keeps the lens on page two\n" in shown
    assert "• Faster cold start\n" in shown
    assert shown.endswith("• Dark theme contrast")
    assert "@" not in shown and "#" not in shown


@given(st.sampled_from(["Reporting to security@corp.example", "Or tweet: @ana", "#41 @ana"]))
def test_an_address_an_introduced_handle_or_credits_alone_stay(text: str) -> None:
    block = Block("li", (Run(text),))
    assert without_credits(block) == block


def test_a_link_card_s_words_are_the_linked_page_s_not_the_post_s() -> None:
    body = (
        "<p>I needed a feed parser that is fast and strict.</p>"
        '<figure class="kg-card kg-bookmark-card"><a class="kg-bookmark-container" '
        'href="https://pkg.example/feedy"><div class="kg-bookmark-title">feedy</div><div '
        'class="kg-bookmark-description">Bindings for feedy. Latest version: 0.1.0.</div>'
        '<figure><img src="https://pkg.example/i.png"></figure></a></figure>'
        "<p>So I wrote bindings for a Rust parser.</p>"
    )
    shown = visible(summarize(body))
    assert (
        shown
        == "I needed a feed parser that is fast and strict.\n\nSo I wrote bindings for a Rust parser."
    )
    figure = '<figure class="wp-block-image"><figcaption>Our new office.</figcaption></figure>'
    assert visible(summarize(figure)) == "Our new office."  # only a card's figure is skipped


def test_a_card_ends_where_its_figure_ends_nested_or_not_and_inside_skipped_markup() -> None:
    plain = (
        '<p>First we tried the cache.</p><figure class="bookmark-card"><a href="https://x.'
        'example/">Cache docs. Read them.</a></figure><p>Then it was fast.</p>'
    )
    assert visible(summarize(plain)) == "First we tried the cache.\n\nThen it was fast."
    nested = plain.replace(
        "Read them.</a>", 'Read them.<figure><img src="i.png"></figure> More.</a>'
    )
    assert visible(summarize(nested)) == "First we tried the cache.\n\nThen it was fast."
    aside = plain.replace('<figure class="bookmark-card">', '<aside><figure class="link-card">')
    aside = aside.replace("</figure>", "</figure>Aside words.</aside>")
    assert visible(summarize(aside)) == "First we tried the cache.\n\nThen it was fast."


def test_credits_go_by_handle_alone_and_an_ordered_item_keeps_its_number() -> None:
    body = "<ol><li>Fix the crash on start thanks to @ana</li><li>Faster sync @bo</li></ol>"
    assert visible(summarize(body)) == "1. Fix the crash on start\n2. Faster sync"
