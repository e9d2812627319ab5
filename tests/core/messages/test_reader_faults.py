"""The faults a blind reader found in 74 real posts (issue 42, third pass), one test per rule:
words glued by markup, a news aggregator's headline list, "read this article in full" lines,
a description that is the title and the site's name, an automatic excerpt that flattens the
body, a list cut before its first item, and relative links. Fixtures are our own text in the
shapes of those feeds (Blogger, Google News, Medium, Hugo, Hexo, WordPress)."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.blocks import read_blocks
from bot.core.messages.links import resolved
from bot.core.messages.machinery import is_link_list, is_machinery, repeats_title
from bot.core.messages.render import render_change
from bot.core.messages.sentences import columns
from bot.core.messages.summary import summarize, whole_post
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.telegram_html import assert_valid_telegram_html, visible

_ANCHOR = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.DOTALL)


def test_two_links_that_touch_are_two_words() -> None:
    body = (
        '<p>Last spring we <a href="https://a.example/">announced</a><a href="https://b.'
        'example/">Fuzzbox</a>, a tool for testing parsers.</p>'
    )
    assert "announced Fuzzbox, a tool" in visible(summarize(body))
    same = '<p><a href="https://a.example/">Fuzz</a><a href="https://a.example/">box</a>.</p>'
    assert visible(summarize(same)) == "Fuzzbox."  # one link split in two runs stays one word
    plural = '<p>Three <a href="https://a.example/">parser</a>s were tested.</p>'
    assert visible(summarize(plural)) == "Three parsers were tested."


def test_table_cells_and_block_tags_are_apart() -> None:
    table = "<table><tr><th>surfboard</th><th>Surfboard Pro</th></tr></table>"
    assert [b.text for b in read_blocks(table)] == ["surfboard Surfboard Pro"]
    details = "<details><summary>What changed</summary>Faster sync.</details>"
    assert [b.text for b in read_blocks(details)] == ["What changed", "Faster sync."]


def test_a_row_s_header_cell_names_its_value() -> None:
    table = (
        "<table><tr><th>Opened</th><td>Mon, 2 Dec 2024 09:10</td></tr>"
        "<tr><th>Plan</th><th>Price</th></tr><tr><th>Note:</th><td>late</td></tr></table>"
    )
    assert [b.text for b in read_blocks(table)] == [
        "Opened: Mon, 2 Dec 2024 09:10",
        "Plan Price",
        "Note: late",
    ]
    spaced = "<table>\n <tr>\n  <th>Opened</th>\n  <td>Monday</td>\n </tr>\n</table>"
    assert [b.text for b in read_blocks(spaced)] == ["Opened: Monday"]
    inside = (
        "<table><tr><th>Opened </th><td>Monday</td></tr><tr><th>Note: </th><td>late</td></tr>"
        "<tr><th>備考：</th><td>遅い</td></tr><tr><td>a</td><th>B</th><td>c</td></tr></table>"
    )
    assert [b.text for b in read_blocks(inside)] == [
        "Opened: Monday",
        "Note: late",
        "備考： 遅い",
        "a B: c",
    ]


def test_a_changeset_s_key_value_tags_and_their_label_are_not_a_summary() -> None:
    body = (
        "<table><tr><th>Opened</th><td>Mon, 2 Dec 2024 09:10</td></tr>"
        "<tr><th>Closed</th><td>Mon, 2 Dec 2024 09:12</td></tr>"
        "<tr><th>Tags</th><td><table><tr><td>edit_count = 812</td></tr>"
        "<tr><td>closed:note = 4401;4402;4409</td></tr>"
        "<tr><td>comment = fixed the river crossing</td></tr></table></td></tr></table>"
    )
    shown = visible(summarize(body, title="Changeset 42 - fixed the river crossing"))
    assert shown == "Opened: Mon, 2 Dec 2024 09:10\n\nClosed: Mon, 2 Dec 2024 09:12"
    for line in ("created_by = Mapper 2.3", "source:date = 2024", "locale=pl"):
        assert is_machinery(line)
    for line in ("Total = price + tax", "Set it to 5 = done", "the sum = ", "a == b holds"):
        assert not is_machinery(line)


def test_a_headline_list_with_sources_is_not_a_summary_but_a_list_of_notes_is() -> None:
    cluster = read_blocks(
        '<ul><li><a href="https://n.example/1">Ferry strike ends after two weeks</a>'
        "&nbsp;&nbsp;<font>Harbour Post</font></li>"
        '<li><a href="https://n.example/2">Ferries sail again on Monday</a> tide.example</li></ul>'
    )
    assert all(is_link_list(b) for b in cluster)
    notes = read_blocks(
        '<ul><li><a href="https://g.example/c/1">Fix a crash when opening big files</a> (#812)'
        '</li><li>Maria\'s <a href="https://g.example/c/2">new keyboard shortcuts panel</a></li>'
        '<li><a href="https://g.example/c/3">Sync</a> now retries after a network error.</li></ul>'
    )
    assert not any(is_link_list(b) for b in notes)


def test_a_read_in_full_line_is_machinery() -> None:
    assert is_machinery("To read this article in full, please click here")
    assert is_machinery("Read the full story, visit our site")
    assert not is_machinery("To read this article in full you need about ten minutes.")


def test_a_description_that_is_the_title_and_the_site_s_name_says_nothing() -> None:
    title = "Ferry strike ends after two weeks"
    assert repeats_title("Ferry strike ends after two weeks - Harbour Post", title)
    assert repeats_title("Ferry strike ends after two weeks | The Harbour Blog", title)
    assert not repeats_title("Ferry strike ends - crews accept a new contract", title + " ok")
    body = "<p>Ferry strike ends after two weeks - Harbour Post</p>"
    assert summarize(body, title=title, full=False) == ""


def test_an_excerpt_flattening_the_body_is_the_body_s_beginning() -> None:
    body = (
        "<p>A new background</p><p>I drew a tiling pixel art background for the site. It "
        "should load fast, I tuned the compression for days.</p><p>Write to me at "
        "&lt;this address&gt; to say hi.</p>"
    )
    flat = (
        "A new background I drew a tiling pixel art background for the site. It should load "
        "fast, I tuned the compression for days. Write to me at <this address> to say hi."
    )
    shown = visible(summarize(body, excerpt_html=flat, title="A new background"))
    assert shown.startswith("I drew a tiling pixel art background")


def test_a_medium_description_of_only_its_machinery_gives_the_content_or_nothing() -> None:
    machinery = '<p>Continue reading on <a href="https://medium.example/p/1">Medium</a> »</p>'
    content = "<p>We moved our builds to a cache that every branch shares.</p>"
    shown = visible(summarize(content, excerpt_html=machinery, title="Shared build cache"))
    assert shown == "We moved our builds to a cache that every branch shares."
    assert summarize(machinery, full=False, title="Shared build cache") == ""


def test_a_long_first_item_shows_its_opening_after_its_intro() -> None:
    body = (
        "<p>The update brings three things:</p><ul><li>"
        + "Offline maps for every region you saved, kept for a month. " * 6
        + "</li><li>Dark mode.</li><li>Faster search.</li></ul>"
    )
    shown = visible(summarize(body, rows=6))
    assert shown.startswith("The update brings three things:\n• Offline maps for every region")
    assert shown.endswith("… and 2 more")


def test_a_post_opening_with_a_long_item_shows_its_opening_not_its_heading() -> None:
    body = (
        "<h2>Announcements</h2><ul><li><p>The Lantern plugin is now open source. "
        + "You can add your own rules and share them with everyone who searches. " * 4
        + "</p></li><li>Sidekick alpha.</li></ul>"
    )
    shown = visible(summarize(body, rows=3))  # under a picture and a long title
    assert shown == "• The Lantern plugin is now open source.\n… and 1 more"
    roomier = visible(summarize(body, rows=6))
    assert roomier.startswith("• The Lantern plugin is now open source. You can add")


def test_after_the_post_s_sentence_a_list_ends_whole_or_not_at_all() -> None:
    body = (
        "<div>From March, the Kettle client only runs on Python 3.10 and later.<br><br>"
        '<font size="4">Why the change</font><br>The main reasons are:<ul><li>'
        + "Python 3.9 is old and its security fixes end this autumn, by the calendar. " * 2
        + "</li><li>Newer syntax.</li><li>Few users.</li></ul></div>"
    )
    shown = visible(summarize(body, rows=8))
    assert shown == "From March, the Kettle client only runs on Python 3.10 and later."
    roomy = visible(summarize(body, rows=20))  # room for the whole first item: it shows
    assert "• Python 3.9 is old" in roomy and "…" not in roomy.split("• Python")[1][:140]


def test_relative_links_resolve_against_the_post_s_address() -> None:
    body = '<p>We walked to <a href="../bridge/">the bridge</a> and <a href="#map">back</a>.</p>'
    base = "https://walks.example/post/river/"
    sent = summarize(body, base=base)
    assert '<a href="https://walks.example/post/bridge/">the bridge</a>' in sent
    assert "#map" not in sent and "back" in visible(sent)
    assert "https://walks.example/post/bridge/" in whole_post(body, base=base)[0]
    assert "<a " not in summarize(body)  # no address: the text, never a broken link


def test_a_message_s_inline_relative_link_works() -> None:
    item = ParsedItem(
        "k", "River walk", "https://walks.example/post/river/", None, None, (), "We walked.",
        "f", 0, html='<p>We walked to <a href="/post/bridge/">the bridge</a>.</p>',
    )  # fmt: skip
    message = render_change(Change(ChangeKind.NEW, item), FeedInfo(slug="s", title="Walks"))
    assert '<a href="https://walks.example/post/bridge/">the bridge</a>' in message


_HREF = st.sampled_from(
    ["/a/", "../b", "#top", "https://c.example/d", "mailto:e@f.example", "javascript:x()", "", " "]
)


@given(st.lists(st.tuples(st.text(min_size=0, max_size=8), _HREF), min_size=1, max_size=6))
def test_resolved_links_are_absolute_web_links_and_never_empty(
    parts: list[tuple[str, str]],
) -> None:
    body = "<p>" + " ".join(f'<a href="{html.escape(h)}">{html.escape(t)}</a>' for t, h in parts)
    sent = summarize(body + " end.</p>", base="https://walks.example/post/")
    assert_valid_telegram_html(sent)
    for href, inner in _ANCHOR.findall(sent):
        assert href.startswith(("https://", "http://")) and inner.strip()
    for _, href in parts:
        link = resolved(href, "https://walks.example/post/")
        assert link is None or link.startswith("https://walks.example/") or href == link


def test_short_lines_before_a_long_paragraph_do_not_use_up_the_message() -> None:
    body = (
        "<p>ANA TORRES</p><p>HARBOUR DAILY</p><p>(Sunday, Port Town) – "
        + "The harbour board voted to reopen the ferry pier after two years of repairs, " * 6
        + "</p>"
    )
    shown = visible(summarize(body, rows=8))
    assert shown.startswith("ANA TORRES\n\nHARBOUR DAILY\n\n(Sunday, Port Town) – The harbour")
    assert shown.endswith("…")
    sentence_first = "<p>The pier reopens.</p><p>" + "Long words without end " * 40 + "</p>"
    assert visible(summarize(sentence_first, rows=8)) == "The pier reopens."


def test_a_published_by_line_is_a_byline() -> None:
    body = "<p>Publicado por Agencia Sur</p><p>El muelle reabre el lunes tras dos años.</p>"
    assert visible(summarize(body)) == "El muelle reabre el lunes tras dos años."


def test_resolved_links_one_by_one() -> None:
    base = "https://walks.example/post/river/"
    assert resolved("https://c.example/d", base) == "https://c.example/d"
    assert resolved("https://c.example/d", "") == "https://c.example/d"
    assert resolved("/bridge/", base) == "https://walks.example/bridge/"
    assert resolved(" ../hill/ ", base) == "https://walks.example/post/hill/"
    assert resolved("/bridge/", "") is None
    assert resolved("#map", base) is None
    assert resolved("mailto:ana@walks.example", base) is None
    assert resolved("javascript:alert(1)", base) is None
    assert resolved("//[bad", base) is None  # a malformed reference is refused, not raised
    assert resolved(None, base) is None and resolved("", base) is None


def test_text_after_short_lines_never_goes_past_the_limit() -> None:
    body = "<ul><li>:</li></ul><p><b>::::::::::::寒寒</b> ::::::::::::寒寒</p><p>:</p>"
    shown = visible(summarize(body, full=False, limit=40))  # found by hypothesis: 41 columns
    assert columns(shown) <= 40  # the last ":" line introduces nothing: the text looks cut
    assert "::::::::::::寒寒 ::::::::::::寒寒" in shown  # whole, not cut at a word
    item = "<p>It has:</p><ul><li>" + "word " * 60 + "</li></ul>"
    assert "word" not in visible(summarize(item, limit=30))  # no room for a line of the item


def test_an_ellipsis_is_a_pause_and_the_few_words_after_it_are_shown() -> None:
    body = "<p>Installing the update just before leaving. Wait… for… it… now.</p>"
    assert visible(summarize(body)).endswith("Wait… for… it… now.")
    longer = "<p>One thing. Wait… for… it… and then much more text follows here.</p>"
    assert visible(summarize(longer)) == "One thing. Wait… for…"  # no pause: a count of three
    stop = "<p>One. Two. Three. Four.</p>"  # a full stop is an end: three sentences
    assert visible(summarize(stop)) == "One. Two. Three."
    dots = "<p>Loading... please... wait... done.</p>"
    assert visible(summarize(dots)).endswith("done.")


def test_the_words_after_an_ellipsis_fit_at_twelve_columns() -> None:
    twelve = "<p>One. Two… three… four plus two.</p>"  # "four plus two." is 14; trim to 12
    assert visible(summarize("<p>One. Two… three… four + two.</p>")).endswith("four + two.")
    assert visible(summarize(twelve)).endswith("three…")
    exactly = "<p>One. Two… three… four + twos.</p>"  # 12 columns
    assert visible(summarize(exactly)).endswith("four + twos.")


def test_an_item_s_relative_link_resolves_against_the_post() -> None:
    body = '<ul><li><a href="/notes/1">First note</a> and its text</li></ul>'
    shown = summarize(body, base="https://blog.example/post/")
    assert 'href="https://blog.example/notes/1"' in shown


def test_a_bare_label_then_a_long_item_shows_the_item_s_opening() -> None:
    body = (
        "<p><strong>Models</strong></p><ul><li>"
        + "Cascade gains a faster model for every paid plan and each tool call " * 5
        + "</li><li>Short one.</li></ul>"
    )
    shown = visible(summarize(body, rows=5))
    assert shown.startswith("Models\n\n• Cascade gains a faster model")
    assert shown.endswith("… and 1 more")
    sentence = "<p>We shipped it today.</p><ul><li>" + "A long item goes on " * 30 + "</li></ul>"
    assert visible(summarize(sentence, rows=4)) == "We shipped it today."  # a sentence, no label
