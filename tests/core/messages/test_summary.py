"""The summary a message shows (issue 25): the author's own summary first, else the lede
without boilerplate, cut only where a sentence ends, the post's structure kept as Telegram HTML.

Fixtures are written here in the shapes real generators emit (WordPress, Ghost, Substack,
Medium, Hugo, Blogger, GitHub releases, podcasts, Mastodon, Chinese and Japanese blogs); the
text is our own.
"""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messages.sentences import columns, sentence_ends
from bot.core.messages.summary import MAX_COLUMNS, summarize
from tests.support.telegram_html import assert_valid_telegram_html

_TAG = re.compile(r"<[^>]+>")


def visible(summary: str) -> str:
    return html.unescape(_TAG.sub("", summary))


def check(summary: str) -> str:
    """What every summary must be: valid Telegram HTML within the limit, ending at a
    sentence end or a word with "…", never at a heading or a line ending in ":"."""
    assert_valid_telegram_html(summary)
    shown = visible(summary)
    assert columns(shown) <= MAX_COLUMNS, shown
    assert not shown.rstrip().endswith(":"), shown
    return summary


# --- the author's own summary ------------------------------------------------------------------


def test_a_tldr_paragraph_is_the_summary_without_its_label() -> None:
    post = (
        "<p><strong>TL;DR:</strong> Two hundred engineers met in Pune to land their first "
        "compiler patches.</p><p>The day started with a keynote on the roadmap.</p>"
    )
    assert check(summarize(post)) == (
        "Two hundred engineers met in Pune to land their first compiler patches."
    )


def test_a_bare_tldr_line_introduces_the_next_paragraph() -> None:
    post = "<p><b>TL;DR</b></p><p>We moved the build to a new runner. It is twice as fast.</p>"
    assert check(summarize(post)) == "We moved the build to a new runner. It is twice as fast."


def test_a_summary_list_near_the_top_is_shown_as_items_without_its_label() -> None:
    """The press-release shape of the seed: an italic subtitle, a bold "Summary" line, a list."""
    post = (
        "<p><em>Three companies join to grow the open model stack</em></p>"
        "<p><strong>Summary</strong></p>"
        "<ul><li>Acme Compute and Corvid Labs join as Platinum members.</li>"
        "<li>Borealis AI joins as a Gold member.</li></ul>"
        "<p>LISBON – The foundation announced the new memberships Sept. 8 at LumenConf.</p>"
    )
    assert check(summarize(post)) == (
        "• Acme Compute and Corvid Labs join as Platinum members.\n"
        "• Borealis AI joins as a Gold member."
    )


def test_key_takeaways_heading_and_a_numbered_list() -> None:
    post = (
        "<h2>Key takeaways</h2><ol><li>Upgrade before June.</li><li>Back up first.</li></ol>"
        "<h2>Details</h2><p>Long text.</p>"
    )
    assert check(summarize(post)) == "1. Upgrade before June.\n2. Back up first."


def test_a_hand_written_excerpt_wins_over_the_lede() -> None:
    """Ghost's custom excerpt and WordPress's manual excerpt: a description that is not the
    body's first words."""
    body = "<p>It was a cold morning in March when the first bug report came in.</p>"
    excerpt = "How a one-line fix cut our cloud bill in half. It took a week to find."
    assert check(summarize(body, excerpt_html=excerpt)) == excerpt


def test_an_excerpt_that_is_the_body_s_beginning_is_not_preferred() -> None:
    body = "<p>The release adds three features. It also fixes bugs.</p><p>More.</p>"
    excerpt = "The release adds three features. It also fixes [&hellip;]"
    assert summarize(body, excerpt_html=excerpt) == (
        "The release adds three features. It also fixes bugs.\n\nMore."
    )


# --- the lede without boilerplate --------------------------------------------------------------


def test_bylines_credits_captions_and_share_lines_are_skipped() -> None:
    post = (
        "<p>By Maria Lopez</p><p>Listen to this article</p>"
        '<figure><img src="https://a.example/x.jpg"><figcaption>The new lab in Porto.'
        "</figcaption></figure><p>Photo: Ana Silva / Lumen</p>"
        "<p>Share this:</p><p>The lab opens on Monday with forty researchers.</p>"
    )
    assert check(summarize(post)) == "The lab opens on Monday with forty researchers."


def test_a_table_of_contents_code_and_headings_are_skipped() -> None:
    post = (
        "<h2>Table of Contents</h2><ul><li><a href='#install'>Install</a></li>"
        "<li><a href='#use'>Use</a></li></ul><h2 id='install'>Install</h2>"
        "<pre><code>1  pip install widget\n2  widget --help</code></pre>"
        '<p>Widget turns <a href="https://widget.example/docs">logs</a> into charts.</p>'
    )
    assert check(summarize(post)) == (
        'Widget turns <a href="https://widget.example/docs">logs</a> into charts.'
    )


def test_medium_and_substack_furniture_is_skipped() -> None:
    post = (
        "<p>Subscribe now</p><p>This post is for paid subscribers</p>"
        "<p>Our team spent a year rebuilding the search index.</p>"
        "<p>Originally published at https://blog.example on May 2.</p>"
    )
    assert check(summarize(post)) == "Our team spent a year rebuilding the search index."


def test_read_more_and_appeared_first_on_are_not_the_post() -> None:
    post = (
        "<p>The council approved the new bridge on Tuesday.</p>"
        '<p><a href="https://n.example/bridge">Read more</a></p>'
        "<p>The post Bridge approved appeared first on City News.</p>"
    )
    assert check(summarize(post)) == "The council approved the new bridge on Tuesday."


def test_blogger_paragraphs_split_by_line_breaks() -> None:
    post = "First paragraph here.<br><br>Second paragraph here.<br>Third line."
    assert check(summarize(post)) == (
        "First paragraph here.\n\nSecond paragraph here.\n\nThird line."
    )


def test_github_release_notes_keep_their_list() -> None:
    post = (
        "<h2>What's Changed</h2><ul><li>Faster startup by @ana in #12</li>"
        "<li>Fix crash on empty config by @bo in #13</li></ul>"
        "<p><strong>Full Changelog</strong>: v1.1...v1.2</p>"
    )
    summary = check(summarize(post))
    assert summary == "• Faster startup\n• Fix crash on empty config"  # no credits, no compare line


# --- cut only where a sentence ends ------------------------------------------------------------


def test_abbreviations_and_decimals_are_not_sentence_ends() -> None:
    text = (
        "The U.S. office opened Sept. 8 with Dr. Chen, e.g. for No. 5 of the series. "
        "It runs 3.5 times faster. Next."
    )
    ends = [text[:e] for e in sentence_ends(text)]
    assert ends[0].endswith("No. 5 of the series.")
    assert ends[1].endswith("3.5 times faster.")


def test_at_most_three_sentences_and_never_mid_sentence() -> None:
    post = "<p>" + " ".join(f"Fact {n} holds." for n in range(10)) + "</p>"
    assert check(summarize(post)) == "Fact 0 holds. Fact 1 holds. Fact 2 holds."


def test_a_paragraph_end_is_a_sentence_end() -> None:
    post = "<p>A heading-like first paragraph without a full stop</p><p>Then text.</p>"
    assert check(summarize(post)) == (
        "A heading-like first paragraph without a full stop\n\nThen text."
    )


def test_only_a_first_sentence_too_long_alone_is_cut_at_a_word() -> None:
    post = "<p>" + " ".join(["word"] * 400) + ".</p>"
    summary = check(summarize(post))
    assert summary.endswith("word…") and columns(summary) <= MAX_COLUMNS


def test_an_excerpt_the_site_cut_shows_its_whole_sentences() -> None:
    excerpt = "The firm raised money. It will hire forty engineers in the next [&#8230;]"
    assert check(summarize(excerpt, full=False)) == "The firm raised money."
    single = "The firm raised a round to hire forty engineers over the next two..."
    assert check(summarize(single, full=False)) == (
        "The firm raised a round to hire forty engineers over the next two…"
    )


def test_chinese_and_japanese_sentences_end_at_full_width_marks_and_count_double() -> None:
    post = "<p>寒武纪加入基金会。它将参与硬件工作组！第三句话在这里？第四句。</p>"
    assert check(summarize(post)) == "寒武纪加入基金会。它将参与硬件工作组！第三句话在这里？"
    long = "<p>" + "这是一个很长的句子没有标点" * 40 + "。</p>"
    summary = check(summarize(long))
    assert columns(visible(summary)) <= MAX_COLUMNS and summary.endswith("…")
    assert (
        check(summarize("<p>今日は晴れです。明日は雨です。</p>"))
        == "今日は晴れです。明日は雨です。"
    )


def test_a_short_post_is_sent_whole_and_a_colon_line_is_never_last() -> None:
    assert check(summarize("<p>Shipped.</p>")) == "Shipped."
    post = (
        "<p>Here is what changed:</p><ul>"
        + "".join(f"<li>{'x' * 200} {n}</li>" for n in range(5))
        + "</ul>"
    )
    summary = check(summarize(post))
    assert summary.startswith("Here is what changed:\n• ") and summary.count("• ") == 1
    assert summary.endswith("\n<i>… and 4 more</i>")  # 200 columns take six phone lines
    only_intro = "<p>Here is what changed:</p><ul><li>" + "y " * 400 + "</li></ul>"
    opening = check(summarize(only_intro))  # the intro is not last: its item's first words are
    assert opening.startswith("Here is what changed:\n• y y") and opening.endswith("y…")
    assert summarize(only_intro, rows=2) == ""  # no two lines left for the item: nothing


# --- structure and safety ----------------------------------------------------------------------


def test_links_are_kept_only_when_absolute_http_and_markup_is_escaped() -> None:
    post = (
        '<p>See <a href="javascript:alert(1)">this</a>, <a href="/rel">that</a> and '
        '<a href="https://ok.example/?a=1&amp;b=&quot;2&quot;">the docs</a> &lt;now&gt; &amp; '
        "<b>bold</b> <i>it</i>.</p>"
    )
    assert check(summarize(post)) == (
        'See this, that and <a href="https://ok.example/?a=1&amp;b=&quot;2&quot;">the docs</a> '
        "&lt;now&gt; &amp; <b>bold</b> <i>it</i>."
    )


def test_plain_text_from_storage_keeps_paragraphs_and_items() -> None:
    text = "First paragraph. Still first.\n\n- one\n- two\n\nLast paragraph."
    assert check(summarize("", text)) == (
        "First paragraph. Still first.\n\n• one\n• two\n\nLast paragraph."
    )


_WORDS = st.text(st.sampled_from("abcdé寒武纪 .,!?:;&<>\"'-…"), min_size=0, max_size=80)
_BLOCK = st.one_of(
    _WORDS.map(lambda t: f"<p>{html.escape(t)}</p>"),
    _WORDS.map(lambda t: f"<li>{html.escape(t)}</li>"),
    _WORDS.map(lambda t: f"<h2>{html.escape(t)}</h2>"),
    _WORDS.map(
        lambda t: f'<p><a href="https://x.example/{abs(hash(t)) % 99}">{html.escape(t)}</a></p>'
    ),
    _WORDS.map(lambda t: f"<p><b>{html.escape(t)}</b> {html.escape(t)}</p>"),
    st.just("<br>"),
    st.just("<pre>code()</pre>"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, max_size=30), st.booleans(), st.integers(min_value=40, max_value=900))
def test_any_post_gives_a_valid_summary_within_the_limit(
    blocks: list[str], full: bool, limit: int
) -> None:
    summary = summarize("".join(blocks), full=full, limit=limit)
    assert_valid_telegram_html(summary)
    shown = visible(summary)
    assert columns(shown) <= limit
    assert not shown.rstrip().endswith(":")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.sampled_from("abc xyz寒"), min_size=1, max_size=60), max_size=15))
def test_summaries_end_at_a_sentence_end_or_a_word_with_an_ellipsis(parts: list[str]) -> None:
    text = " ".join(f"{part.strip() or 'x'}." for part in parts)
    summary = visible(summarize(f"<p>{html.escape(text)}</p>"))
    assert summary == "" or summary.endswith((".", "…"))
    if summary.endswith("."):
        assert " ".join(text.split()).startswith(summary)  # whole sentences from the start


def test_an_automatic_excerpt_cut_inside_a_tag_is_the_body_s_beginning() -> None:
    """Hexo and others cut the description from the body's HTML, sometimes inside a tag."""
    body = (
        '<h1 id="kmp">Extended KMP</h1><p><a href="https://ref.example/kmp">Extended KMP</a>'
        "</p><pre>1\n2</pre><p>The algorithm finds every prefix match in linear time.</p>"
    )
    excerpt = '<h1 id="kmp">Extended KMP</h1><p><a href="https://ref.example/kmp" targ'
    summary = check(summarize(body, excerpt_html=excerpt))
    assert "targ" not in summary and "href=" not in visible(summary)
    assert summary.endswith("The algorithm finds every prefix match in linear time.")


def test_a_post_of_furniture_only_still_says_something() -> None:
    """A post that is only an image with its caption (and a byline) is summarised by the
    caption rather than sent without a word."""
    post = "<p>By Jane Doe</p><figure><img src='x'><figcaption>A cat asleep on a keyboard.</figcaption></figure>"
    assert check(summarize(post)) == "A cat asleep on a keyboard."
