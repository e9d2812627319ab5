"""Read by eye (issue 42, second pass): what a subscriber saw twice or never needed.

Fixtures are our own text in the shapes real feeds have: a Mastodon status (no title), a
company news feed whose description is its title, a Ghost custom excerpt that rephrases the
title, a forum post whose first line is its title."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.blocks import Block, Run, read_blocks
from bot.core.messages.header import (
    NAME_CHARS,
    OWN_MESSAGE_NAME_CHARS,
    SENTENCE_NAME_CHARS,
    post_name,
    shown_author,
    shown_categories,
)
from bot.core.messages.machinery import repeats_title, substantive
from bot.core.messages.render import render_change
from bot.core.messages.sentences import sentence_ends
from bot.core.messages.summary import HEADING_COLUMNS, summarize
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.telegram_html import visible

_TAG = re.compile(r"<[^>]+>")


def item(title: str, body: str) -> ParsedItem:
    text = html.unescape(_TAG.sub(" ", body))
    link = "https://social.example/@ana/1"
    return ParsedItem("k", title, link, None, None, (), text, "f", 0, html=body)


def message(it: ParsedItem) -> str:
    return render_change(Change(ChangeKind.NEW, it), FeedInfo(slug="s", title="Ana"))


def test_an_untitled_post_is_named_by_its_short_first_sentence() -> None:
    text = "Page 40 of the comic is up! The lizards finally reach the salt flats tonight."
    assert post_name("", text) == "Page 40 of the comic is up!"


def test_a_first_sentence_longer_than_the_limit_falls_back_to_first_words() -> None:
    sentence = "word " * (SENTENCE_NAME_CHARS // 5) + "end."
    name = post_name("", sentence + " Next.")
    assert name.endswith("…") and len(name) <= NAME_CHARS


def test_an_untitled_status_does_not_repeat_its_first_sentence() -> None:
    body = (
        '<p>Page 40 of the comic is up! <a href="https://social.example/tags/comic">#comic</a></p>'
        "<p>The lizards finally reach the salt flats tonight.</p>"
    )
    shown = visible(message(item("", body)))
    assert shown.count("Page 40 of the comic is up!") == 1
    assert "The lizards finally reach the salt flats tonight." in shown


def test_an_untitled_status_of_one_sentence_is_its_name_alone() -> None:
    body = "<p>Have you noticed how quiet the harbour is in November?</p>"
    shown = visible(message(item("", body)))
    assert shown.count("quiet the harbour") == 1


def test_a_description_that_is_the_title_is_not_shown_again() -> None:
    title = "Harbour Lines opens a second office in Porto"
    shown = visible(message(item(title, title)))
    assert shown.count("second office") == 1
    assert summarize(title, title=title) == ""


def test_a_first_paragraph_that_is_the_title_gives_way_to_the_next() -> None:
    title = "建国纪念币，华表，和平鸽"
    body = f"<p>{title}</p><p>一套五枚，品相如图，欢迎联系。</p>"
    assert visible(summarize(body, title=title)) == "一套五枚，品相如图，欢迎联系。"


def test_an_excerpt_rephrasing_the_title_with_function_words_gives_way_to_the_lede() -> None:
    title = "How To Run Kestrel with Deno [Short Guide]"
    body = "<p>Deno shipped its 2.0 release.</p><p>Most Kestrel plugins load unchanged.</p>"
    shown = visible(summarize(body, excerpt_html="You can run Kestrel with Deno", title=title))
    assert shown.startswith("Deno shipped its 2.0 release.")
    assert repeats_title("You can run Kestrel with Deno", title)
    assert not repeats_title("You can run Kestrel faster", title)
    assert not repeats_title("The new app", "App")  # "new" is no function word


@given(st.text(min_size=1, max_size=300))
def test_a_name_is_never_empty_for_text_with_words(text: str) -> None:
    name = post_name("", text)
    assert name.strip() or not " ".join(text.split())


@given(
    st.lists(
        st.text(st.characters(categories=["L"]), min_size=3, max_size=9), min_size=2, max_size=8
    )
)
def test_an_untitled_post_always_links_to_itself_and_has_no_empty_anchor(words: list[str]) -> None:
    body = "<p>" + html.escape(" ".join(words)) + ".</p>"
    rendered = message(item("", body))
    assert 'href="https://social.example/@ana/1"' in rendered
    assert not re.search(r"<a [^>]*>\s*</a>", rendered)


def test_the_list_under_a_sponsors_line_is_sponsor_reads_even_without_a_code() -> None:
    body = (
        "<p>This week we compare three ways to back up a laptop.</p>"
        "<p><strong>This episode of Desk Hours is sponsored by:</strong></p>"
        '<ul><li><a href="https://mattress.example/dh">Restwell</a>: Sleep better tonight.</li>'
        '<li><a href="https://router.example/">Meshly</a>: Fast Wi-Fi in every room.</li></ul>'
        "<p>Next week: printers.</p>"
    )
    shown = visible(summarize(body, title="Desk Hours 12: Backups"))
    assert "Restwell" not in shown and "Meshly" not in shown
    assert shown.startswith("This week we compare three ways")
    assert "Next week: printers." in shown


def test_a_list_under_an_ordinary_label_is_kept() -> None:
    body = "<p>We fixed three bugs:</p><ul><li>Sync stalls.</li><li>Crash on start.</li></ul>"
    assert "Crash on start." in visible(summarize(body, title="Kestrel 4.3"))


def test_a_merchandise_or_store_pitch_is_promotion() -> None:
    body = (
        "<p>We look back on the year with our five favourite racing games. "
        "Want some branded tee-shirts, mugs and hoodies? "
        "Check out our store: https://store.example</p>"
    )
    assert visible(summarize(body, title="Best of the year")) == (
        "We look back on the year with our five favourite racing games."
    )


def test_a_footnote_marker_after_a_full_stop_leaves_one_full_stop() -> None:
    body = '<p>Press the shortcut, like Ctrl-P.<sup><a href="#fn1">1</a></sup>. Then it prints.</p>'
    assert visible(summarize(body)) == "Press the shortcut, like Ctrl-P. Then it prints."


def test_a_heading_written_as_a_line_is_never_the_last_line() -> None:
    body = (
        "<div>After March, the client library needs Java 11 or later.<br><br>"
        '<font size="4">Why this is happening</font><br>The main reasons are:'
        "<ul><li>" + "Old runtimes are slow to patch and hard to test. " * 6 + "</li></ul></div>"
    )
    shown = visible(summarize(body, title="The client library will need Java 11", rows=6))
    assert shown == "After March, the client library needs Java 11 or later."


def test_a_run_of_short_section_lines_keeps_its_last_one() -> None:
    body = (
        "<p>Review: Kestrel OS 2.0</p><p>News: faster boot, a new installer</p>"
        "<p>Questions: dual boot with encryption</p>" + "<p>More.</p>" * 40
    )
    shown = visible(summarize(body, title="Weekly, issue 12", rows=6))
    assert shown.endswith("Questions: dual boot with encryption")


def test_an_intro_without_its_list_keeps_the_news_before_it() -> None:
    body = (
        "<p>We rolled out a faster image search. This release includes:</p>"
        "<ul><li>" + "Two more sources of pictures from around the web. " * 8 + "</li></ul>"
    )
    assert visible(summarize(body, title="Release notes", rows=3)) == (
        "We rolled out a faster image search."
    )
    shown = visible(summarize(body, title="Release notes", rows=6))  # the list's opening fits
    assert shown.startswith("We rolled out a faster image search. This release includes:\n• Two")
    assert shown.endswith("web.") and shown.count("Two more") < 8


def test_a_news_cluster_of_headlines_and_their_sources_is_not_a_summary() -> None:
    title = "Harbour bridge reopens after repairs - Daily Tide"
    body = (
        '<ol><li><a href="https://tide.example/1">Harbour bridge reopens after repairs</a> '
        'Daily Tide</li><li><a href="https://coast.example/2">Traffic flows again over the '
        "harbour</a> Coast News</li></ol>"
    )
    assert visible(summarize(body, title=title)) == ""  # the title says it; the rest are links
    story = body.replace("Coast News", "and more traffic news from the coast, by our reporter.")
    assert "Traffic flows again" in visible(summarize(story, title=title))


def test_a_contact_line_and_a_live_blog_time_stamp_are_machinery() -> None:
    body = (
        "<ul><li>Latest updates from the 8pm kick-off</li><li>And email Ana here</li></ul>"
        "<p>8.13pm GMT</p><p>13 min: Rovers hit the post from twenty yards.</p>"
    )
    shown = visible(summarize(body, title="Rovers v United – live!"))
    assert "email" not in shown and "8.13pm" not in shown
    assert "Rovers hit the post" in shown
    assert "Latest updates from the 8pm kick-off" in shown


def test_a_picture_credit_and_a_bare_continue_reading_are_not_the_post() -> None:
    body = (
        '<p><a href="https://cdn.example/p.jpg">Enlarge</a> / A river at dawn. '
        "(credit: Ana Ruiz)</p><p>Ferries will run every ten minutes from May.</p>"
    )
    assert visible(summarize(body, excerpt_html="", title="More ferries")) == (
        "Ferries will run every ten minutes from May."
    )
    only = '<p><a href="https://blog.example/p">Continue reading on »</a></p>'
    assert summarize(only, title="Side quest: drawing") == ""


def test_a_one_sentence_note_is_named_whole_in_its_own_message() -> None:
    sentence = (
        "This week's show is out with a talk about old and new phones, the rumours about a "
        "car, and a follow-up on browsers for television sets."
    )
    assert SENTENCE_NAME_CHARS < len(sentence) <= OWN_MESSAGE_NAME_CHARS
    assert post_name("", sentence).endswith("…")  # a list of posts: its first words
    assert post_name("", sentence, sentence=OWN_MESSAGE_NAME_CHARS) == sentence
    shown = visible(message(item("", f"<p>{sentence}</p>")))
    assert shown.count("rumours about a car") == 1


def test_a_cluster_without_its_first_headline_is_numbered_from_one() -> None:
    title = "Harbour bridge reopens after repairs - Daily Tide"
    body = (
        "<ol><li>Harbour bridge reopens after repairs Daily Tide</li>"
        "<li>Traffic flows again over the harbour</li><li>Ferries keep their timetable</li>"
        "</ol><p>More coverage.</p><ol><li>First of another list</li></ol>"
    )
    shown = visible(summarize(body, title=title))
    assert shown.startswith(
        "1. Traffic flows again over the harbour\n2. Ferries keep their timetable"
    )
    assert "1. First of another list" in shown


def test_a_letter_glued_to_a_symbol_ends_a_sentence_an_initial_does_not() -> None:
    text = "Press ⌘P. Then it prints. J. Ruiz agreed. (A. Ruiz) too. Ctrl+P. Done."
    ends = [text[:end].rsplit(" ", 1)[-1] for end in sentence_ends(text)]
    assert ends == ["⌘P.", "prints.", "agreed.", "too.", "Ctrl+P.", "Done."]
    assert sentence_ends("A. Ruiz wrote it.") == [17]


def test_an_author_that_is_the_feed_s_name_with_a_motto_is_left_out() -> None:
    assert shown_author("Harbour Lines-Independent news from the coast", "Harbour Lines") is None
    assert shown_author("Harbour Linesman", "Harbour Lines") == "Harbour Linesman"
    assert shown_author("Ana Ruiz", "") == "Ana Ruiz"


def test_a_category_that_is_a_word_of_the_feed_s_name_is_left_out() -> None:
    shown = shown_categories(["Changelog", "Editor"], "Kestrel 2.3", "Kestrel Changelog")
    assert shown == ["Editor"]
    assert shown_categories(["Log"], "Kestrel 2.3", "Kestrel Changelog") == ["Log"]


def test_first_words_that_fit_are_the_whole_name_whatever_the_sentence_limit() -> None:
    exact = "w" * (NAME_CHARS - 1) + "."
    assert post_name("", exact, sentence=10) == exact
    longer = exact + "w"
    assert post_name("", longer, sentence=10) == "w" * (NAME_CHARS - 1) + "…"


def test_a_first_sentence_of_exactly_the_limit_names_the_post_whole() -> None:
    sentence = "w" * (SENTENCE_NAME_CHARS - 1) + "!"
    assert post_name("", f"{sentence} More words follow here.") == sentence


def test_defaults_compare_with_nothing() -> None:
    assert shown_author("Xxxx", "Blog") == "Xxxx"
    assert shown_categories(["Xxxx"]) == ["Xxxx"]


def test_a_heading_line_of_exactly_the_heading_width_is_not_last() -> None:
    heading = "H" * HEADING_COLUMNS
    body = (
        f"<div>The client library needs Java 11 or later.<br><br>{heading}<br>"
        "The main reasons are:<ul><li>"
        + "Old runtimes are hard to patch. " * 12
        + "</li></ul></div>"
    )
    shown = visible(summarize(body, title="Java 11", rows=6))
    assert shown == "The client library needs Java 11 or later."
    longer = body.replace(heading, heading + "H")
    assert visible(summarize(longer, title="Java 11", rows=6)).endswith(heading + "H")


def test_a_number_outside_a_superscript_is_text() -> None:
    blocks = read_blocks("<p>Page <b>12</b> of the book.</p>")
    assert blocks[0].text == "Page 12 of the book."


def test_only_a_stop_or_comma_after_a_footnote_marker_is_dropped() -> None:
    assert read_blocks("<p>Type X<sup>1</sup>X marks.</p>")[0].text == "Type XX marks."
    assert read_blocks("<p>A, B<sup>2</sup>, C.</p>")[0].text == "A, B, C."
    assert read_blocks("<p>Wait.<b>.</b></p>")[0].text == "Wait.."  # no marker: both kept


def test_reading_stops_at_the_character_limit_counted_over_every_run() -> None:
    body = "<p>" + "<b>ab</b> " * 30 + "</p><p>Later paragraph.</p>"
    assert "Later paragraph." not in [b.text for b in read_blocks(body, 60, 40)]
    assert read_blocks(body, 60, 10_000)[-1].text == "Later paragraph."


def test_lists_keep_their_numbers_unless_a_title_headline_was_skipped() -> None:
    shown = visible(summarize("<ol><li>Alpha ships.</li><li>Beta ships.</li></ol>", title="X"))
    assert shown == "1. Alpha ships.\n2. Beta ships."
    bullets = "<ul><li>Harbour bridge reopens</li><li>Traffic flows again</li></ul>"
    assert visible(summarize(bullets, title="Harbour bridge reopens")) == "• Traffic flows again"


def test_only_the_first_two_blocks_may_be_a_title_headline() -> None:
    third = p_block("Harbour bridge reopens", "li")
    idle_first = [p_block("Points: 3"), p_block("Tags: city"), third]
    assert substantive(idle_first, "Harbour bridge reopens") == [third]
    assert substantive([p_block("Xxxx.")]) == [p_block("Xxxx.")]
    later = [p_block("One."), p_block("Two."), p_block("Xxxx.")]
    assert substantive(later) == later


def test_a_time_as_a_list_item_is_kept() -> None:
    assert visible(summarize("<ul><li>8.13pm GMT</li><li>9.02pm GMT</li></ul>")) == (
        "• 8.13pm GMT\n• 9.02pm GMT"
    )


def p_block(text: str, kind: str = "p") -> Block:
    return Block(kind, (Run(text),))
