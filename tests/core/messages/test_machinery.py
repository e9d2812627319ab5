"""A summary adds something to the title (issue 42): the machinery that opens real posts
(aggregator lines, sponsors, series intros, greetings, labels, link lists, sentences that only
repeat the title) is skipped for the next substantive sentence. Fixtures are our own text in
the shapes real feeds have (Hacker News, Reddit, Slashdot, Blogger, newsletters, podcasts,
Ghost, deals posts, GitHub releases)."""

from __future__ import annotations

import html
import re

import pytest

from bot.core.messages import machinery
from bot.core.messages.blocks import Block, Run
from bot.core.messages.machinery import (
    LINK_SHARE,
    MAX_MACHINERY_CHARS,
    SENTENCE_BLOCKS,
    is_link_list,
    is_machinery,
    repeats_title,
    substantive,
)
from bot.core.messages.summary import summarize
from tests.support.telegram_html import assert_valid_telegram_html

_TAG = re.compile(r"<[^>]+>")


def visible(summary: str) -> str:
    assert_valid_telegram_html(summary)
    return html.unescape(_TAG.sub("", summary))


@pytest.mark.parametrize(
    "line",
    [
        "Article URL: https://tools.example/2026/09/fast-grep",
        "Comments URL: https://news.example/item?id=4242",
        "Points: 336",
        "# Comments: 118",
        "submitted by /u/quill_writer to r/selfhosted",
        "[link] [comments]",
        "[1143 comments]",
        "This issue is brought to you by Lanternly, the calm way to ship.",
        "Today's sponsor: Parcelbox keeps your deliveries dry.",
        "This week in Rust tooling:",
        "Related: How we cut our build time in half",
        "You might also like",
        "Click here to read the full interview.",
        "Dear Kestrel fans and users,",
        "Hi everyone!",
        "This is another post in our Testing on the Fjord series.",
        "A version of this post originally appeared in the Station Bulletin.",
        "You can download a printer-friendly version to hang in your office.",
        "Tags: rust, cli, release",
        "Follow-up: the shop owner wrote back.",
        "Show notes:",
        "Use code FJORD20 for 20% off your first box.",
        "Parcelbox: boxes that stay dry. Get $20 off with the code 'FJORD'",
        "Full transcript and show notes at podcast.example",
        "Source: https://wire.example/story/42",
    ],
)
def test_machinery_lines(line: str) -> None:
    assert is_machinery(line)


@pytest.mark.parametrize(
    "line",
    [
        "The council approved the bridge on Tuesday.",
        "Previously, the firm sold only to schools.",
        "Hello Kitty's maker reported record sales.",
        "1983da3 refactoring: continue",
        "1984 by Orwell",
        "Points are awarded for each bug fixed, and the top finder wins a trip.",
        "The festival was sponsored by the city for the first time, " + "and " * 100 + "more.",
    ],
)
def test_content_is_not_machinery(line: str) -> None:
    assert not is_machinery(line)


def test_hacker_news_items_show_no_aggregator_lines() -> None:
    body = (
        '<p>Article URL: <a href="https://tools.example/grep">https://tools.example/grep</a></p>'
        '<p>Comments URL: <a href="https://news.example/item?id=1">https://news.example/item?id=1</a></p>'
        "<p>Points: 336</p><p># Comments: 118</p>"
    )
    assert summarize(body, full=False, title="A faster grep") == ""


def test_reddit_submitted_by_and_counters_are_skipped() -> None:
    body = (
        '<table><tr><td><div class="md"><p>I moved my photo library to a small home server and '
        "it now backs up every night.</p></div> submitted by "
        '<a href="https://social.example/user/quill">/u/quill</a> to '
        '<a href="https://social.example/r/selfhosted">r/selfhosted</a><br>'
        '<span><a href="https://social.example/x">[link]</a></span> '
        '<span><a href="https://social.example/y">[comments]</a></span></td></tr></table>'
    )
    shown = visible(summarize(body, full=False, title="My photo server"))
    assert (
        shown == "I moved my photo library to a small home server and it now backs up every night."
    )


def test_slashdot_submission_reaches_the_news() -> None:
    body = (
        "<p>Ana Ruiz reports: Lighthouses along the coast have guided ships for two centuries. "
        "Keepers once lived in them all year. The Fjord Lighthouse Board said on Monday it will "
        "switch off the last three staffed lighthouses in March. Automated beacons replace "
        "them.</p>"
    )
    shown = visible(
        summarize(body, full=False, title="Fjord Board Switches Off Its Last Staffed Lighthouses")
    )
    assert shown.startswith("The Fjord Lighthouse Board said on Monday")
    assert "reports:" not in shown


def test_blogger_series_intro_is_skipped_for_the_point() -> None:
    body = (
        "<p>This is another post in our Testing on the Fjord series. A version of this post "
        "originally appeared in the Station Bulletin. You can download a printer-friendly "
        "version to hang in your office.</p>"
        "<p>Flaky tests cost us more review time than any other kind of failure. Quarantining "
        "them within an hour halved the waiting.</p>"
    )
    shown = visible(summarize(body, title="Quarantine your flaky tests"))
    assert shown == (
        "Flaky tests cost us more review time than any other kind of failure. Quarantining "
        "them within an hour halved the waiting."
    )


def test_newsletter_sponsor_and_this_week_lines_do_not_use_the_budget() -> None:
    body = (
        "<p>This issue is brought to you by Lanternly, the calm way to ship.</p>"
        "<p>This week in Rust tooling:</p>"
        "<p>The borrow checker got faster. Cargo learned to resume downloads. Clippy has "
        "twelve new lints.</p>"
    )
    shown = visible(summarize(body, title="Tooling weekly 42"))
    assert shown == (
        "The borrow checker got faster. Cargo learned to resume downloads. Clippy has twelve "
        "new lints."
    )


def test_a_greeting_does_not_open_a_release_post() -> None:
    body = "<p>Dear Kestrel fans and users,</p><p>Kestrel 4.2 is out with a new timeline.</p>"
    assert (
        visible(summarize(body, title="Kestrel 4.2")) == "Kestrel 4.2 is out with a new timeline."
    )


def test_a_cross_promotion_paragraph_of_links_is_skipped() -> None:
    links = "".join(f'<a href="https://deals.example/{n}">Deal {n}</a>, ' for n in range(6))
    body = f"<p>More deals: {links}</p><p>The tablet is down to its lowest price yet.</p>"
    shown = visible(summarize(body, title="Tablet deal"))
    assert shown == "The tablet is down to its lowest price yet."


def test_show_note_link_lists_are_skipped() -> None:
    items = "".join(
        f'<li><a href="https://pod.example/{n}">Link title {n}</a></li>' for n in range(8)
    )
    body = (
        f"<p>We talk about repairing old radios with a restorer.</p><p>Links:</p><ul>{items}</ul>"
    )
    shown = visible(summarize(body, title="Episode 12"))
    assert shown == "We talk about repairing old radios with a restorer."
    assert is_link_list(Block("li", (Run("Link title", "https://pod.example/1"),)))
    assert not is_link_list(
        Block("li", (Run("e26e750", "https://git.example/c"), Run(" fix: tests")))
    )


def test_a_sentence_that_only_repeats_the_title_is_skipped() -> None:
    assert repeats_title("Kestrel 4.2 released!", "Kestrel 4.2 Released")
    assert not repeats_title("Kestrel 4.2 released with a new timeline.", "Kestrel 4.2 Released")
    body = "<p>Kestrel 4.2 released! It brings a new timeline and faster export.</p>"
    assert visible(summarize(body, title="Kestrel 4.2 Released")) == (
        "It brings a new timeline and faster export."
    )


def test_labels_are_never_a_summary_line_or_item() -> None:
    body = "<p>We fixed the sync bug.</p><p>Tags: sync, bugs</p><ul><li>Follow-up: none</li></ul>"
    assert visible(summarize(body)) == "We fixed the sync bug."


def test_a_label_item_s_sub_items_go_with_it_and_the_topics_stay() -> None:
    body = (
        "<ul><li>Follow-up:<ul><li>Readers on the old mixer</li><li>More on mixer hum</li>"
        '<li><a href="https://mix.example/a">Hum notes</a></li></ul></li>'
        "<li>Is a tube preamp worth it?<ul><li>Cheap ones hiss</li></ul></li>"
        '<li><a href="https://mix.example/b">Tape hiss, explained</a><ul><li>Its source</li>'
        '</ul></li><li><a href="https://mix.example/c">A bare link</a></li>'
        "<li>Post-show:<ul><li>Casey's new car</li></ul></li>"
        "<li>Which tape to buy</li></ul>"
    )
    shown = visible(summarize(body, title="Episode 311: Hum"))
    assert shown == (  # a linked item over sub-items is a topic; a bare link a show note
        "• Is a tube preamp worth it?\n• Cheap ones hiss\n• Tape hiss, explained\n"
        "• Its source\n• Which tape to buy"
    )
    for name in ("Post-show:", "Pre-show", "After show:"):
        assert is_machinery(name)


def test_only_a_skipped_item_s_deeper_items_go_with_it() -> None:
    body = (
        "<ul><li>Tags: audio<ul><li>gone with it</li></ul></li><li>Next topic kept</li></ul>"
        "<p>Tags: loose</p><ul><li>A top item after a skipped paragraph stays</li></ul>"
    )
    shown = visible(summarize(body, title="Episode"))
    assert "gone with it" not in shown
    assert "• Next topic kept" in shown and "A top item after a skipped paragraph" in shown


def test_list_items_are_never_dropped_for_how_they_start() -> None:
    body = (
        "<ul><li>1983da3 refactoring: continue</li><li>1984 by Orwell</li>"
        "<li>2026-09-08 notes</li><li>Sep 8 talk</li></ul>"
    )
    shown = visible(summarize(body))
    for item in (
        "1983da3 refactoring: continue",
        "1984 by Orwell",
        "2026-09-08 notes",
        "Sep 8 talk",
    ):
        assert f"• {item}" in shown


def test_substantive_keeps_styles_and_links_of_kept_sentences() -> None:
    block = Block(
        "p",
        (
            Run("Hi all! "),
            Run("The release", bold=True),
            Run(" is on the "),
            Run("site", "https://k.example/"),
            Run("."),
        ),
    )
    (kept,) = substantive([block])
    assert kept.text == "The release is on the site."
    assert kept.runs[0].bold and kept.runs[2].href == "https://k.example/"


def test_a_quick_summary_label_introduces_the_author_s_summary() -> None:
    body = (
        "<p>We added a payment type.</p><p>Quick summary</p>"
        "<p>Every user can now pay in a second currency.</p>"
    )
    assert visible(summarize(body)) == "Every user can now pay in a second currency."


def test_machinery_is_a_line_of_at_most_300_characters() -> None:
    sponsor = "This issue is brought to you by Lanternly, the calm way to ship"
    exact = sponsor + "." * (MAX_MACHINERY_CHARS - len(sponsor))
    assert len(exact) == MAX_MACHINERY_CHARS
    assert is_machinery(exact)
    assert not is_machinery(exact + ".")


def p(*runs: Run, kind: str = "p") -> Block:
    return Block(kind, runs)


def link(text: str, n: int = 1) -> Run:
    return Run(text, f"https://deals.example/{n}")


def test_three_links_that_are_most_of_a_paragraph_are_a_link_list() -> None:
    three = p(
        link("Tablet deal", 1), Run(", "), link("Phone deal", 2), Run(", "), link("TV deal", 3)
    )
    assert is_link_list(three)
    two = p(link("Tablet deal", 1), Run(" and "), link("Phone deal", 2))
    assert not is_link_list(two)


def test_a_link_list_needs_links_to_be_at_least_sixty_percent_of_its_text() -> None:
    runs = (link("Mugs", 1), Run(" "), link("Pens", 2), Run(" "), link("Hats", 3), Run(" deals"))
    block = p(*runs)
    assert block.text == "Mugs Pens Hats deals" and LINK_SHARE == 0.6  # 12 of 20 linked
    assert is_link_list(block)
    assert not is_link_list(p(*runs, Run("!")))


def test_one_address_linked_in_several_runs_is_one_link() -> None:
    styled = p(link("The ", 1), Run("big", "https://deals.example/1", bold=True), link(" sale", 1))
    assert not is_link_list(styled)
    word_by_word = p(link("Kestrel", 1), Run(" "), link("4.2", 1), Run(" "), link("notes", 1))
    assert not is_link_list(word_by_word)


def test_links_within_the_page_are_not_a_link_list() -> None:
    assert not is_link_list(p(Run("Jump to the results", "#results"), kind="li"))
    parts = (Run("Intro", "#intro"), Run(", "), Run("Method", "#method"), Run(", "))
    contents = p(*parts, Run("Results", "#results"))
    assert not is_link_list(contents)


def test_a_list_item_of_links_and_separators_is_a_show_note() -> None:
    runs = (link("Radio repair", 1), Run(", "), link("Valve tester", 2), Run(" ("))
    item = p(*runs, link("manual", 3), Run(")"), kind="li")
    assert is_link_list(item)
    assert not is_link_list(p(link("Radio repair", 1), Run(" and how we did it"), kind="li"))
    assert not is_link_list(p(link("Mastodon", 1), Run(", "), Run("X"), kind="li"))


def test_short_words_count_when_comparing_with_the_title() -> None:
    assert repeats_title("New app!", "A new app")
    assert not repeats_title("The new app", "App")


def test_machinery_blocks_are_skipped_and_reading_goes_on() -> None:
    blocks = [p(Run("Points: 336")), p(Run("The bridge opened on Tuesday."))]
    assert [b.text for b in substantive(blocks)] == ["The bridge opened on Tuesday."]


def test_list_items_and_headings_are_kept_whole() -> None:
    blocks = [
        p(Run("Hi all! We fixed the sync bug."), kind="li"),
        p(Run("Hi all! Release notes"), kind="h"),
    ]
    assert substantive(blocks) == blocks


def test_a_quote_loses_its_machinery_sentences_like_a_paragraph() -> None:
    (kept,) = substantive([p(Run("Hi all! We fixed the sync bug."), kind="quote")])
    assert kept == p(Run("We fixed the sync bug."), kind="quote")


def test_only_the_first_eight_paragraphs_are_read_sentence_by_sentence() -> None:
    filler = [p(Run(f"Paragraph {n} says something.")) for n in range(SENTENCE_BLOCKS)]
    ninth = p(Run("Hi all! We fixed the sync bug."))
    assert substantive([*filler, ninth])[-1] == ninth
    assert substantive([*filler[:-1], ninth])[-1].text == "We fixed the sync bug."


def test_only_the_opening_paragraph_loses_a_sentence_repeating_the_title() -> None:
    title = "Bridge opened"
    second = p(Run("Bridge opened! Traffic flows again."))
    shown = substantive([p(Run("The mayor cut the ribbon at noon.")), second], title)
    assert shown[1] == second
    idle_then = [p(Run("Points: 3")), p(Run("Tags: city")), second]
    assert substantive(idle_then, title) == [second]
    assert substantive([second], title)[0].text == "Traffic flows again."


def test_a_paragraph_only_repeating_the_title_is_dropped_even_alone() -> None:
    only = p(Run("Kestrel 4.2 released!"))
    assert substantive([only], "Kestrel 4.2 Released") == []
    assert substantive([only], "") == [only]


def test_without_a_submitter_line_no_sentence_is_skipped_for_the_title() -> None:
    block = p(
        Run(
            "Keepers once lived in them all year. Ships still pass at night. "
            "The Fjord board switched off the last staffed lighthouses."
        )
    )
    assert substantive([block], "Fjord Board Switches Off Last Staffed Lighthouses") == [block]


def test_after_a_submitter_line_the_news_must_share_two_more_title_words() -> None:
    title = "Fjord Board Closes Harbour Lighthouse"

    def shown(sentences: str) -> str:
        (kept,) = substantive([p(Run(f"Ana Ruiz writes: {sentences}"))], title)
        return kept.text

    # the opening shares one word (board), the news three: the news is shown first
    assert shown("The board met. Boats pass. The board closes the harbour.") == (
        "The board closes the harbour."
    )
    # the opening shares one word, the best only two: all of it is kept
    assert shown("The board met. Boats pass. The board closes.") == (
        "The board met. Boats pass. The board closes."
    )
    # the opening already shares two: the news shares only one more
    assert shown("The board met at the harbour. The board closes the harbour.") == (
        "The board met at the harbour. The board closes the harbour."
    )


def test_three_letter_title_words_lead_to_the_news() -> None:
    (kept,) = substantive(
        [p(Run("Ana writes: I like birds. The zoo got a red owl."))], "Zoo gets red owl"
    )
    assert kept.text == "The zoo got a red owl."


def test_an_ellipsis_in_the_submitter_line_does_not_lose_the_paragraph() -> None:
    (kept,) = substantive([p(Run("A reader… writes: The ferry now runs at night."))])
    assert kept.text == "The ferry now runs at night."


def test_kept_sentences_keep_every_run_s_link_and_style() -> None:
    block = p(
        Run("Hi all! "),
        Run("Kestrel 4.2", "https://k.example/42", bold=True, italic=True),
        Run(" ships "),
        Run("sync", italic=True, code=True),
        Run(" and "),
        Run("kestrel export", "https://k.example/x", bold=True, code=True),
    )
    (kept,) = substantive([block])
    assert kept == p(
        Run("Kestrel 4.2", "https://k.example/42", bold=True, italic=True),
        Run(" ships "),
        Run("sync", italic=True, code=True),
        Run(" and "),
        Run("kestrel export", "https://k.example/x", bold=True, code=True),
    )
    (kept,) = substantive([p(Run("Hi all! "), Run("kestrel sync", code=True), Run(" is faster."))])
    assert kept == p(Run("kestrel sync", code=True), Run(" is faster."))


def test_a_skipped_middle_sentence_leaves_one_space_between_its_neighbours() -> None:
    block = p(
        Run("We shipped "),
        Run("Kestrel 4.2. Tags: sync, export. It adds", bold=True),
        Run(" a timeline."),
    )
    (kept,) = substantive([block])
    assert kept == p(
        Run("We shipped "),
        Run("Kestrel 4.2.", bold=True),
        Run(" It adds", bold=True),
        Run(" a timeline."),
    )


def test_a_linked_headline_of_exactly_headline_chars_with_its_source_is_a_cluster_item() -> None:
    """A news cluster's item is a headline of at least `HEADLINE_CHARS` and its source; a
    shorter linked name with a word after it is a note ("Sync now")."""
    exact = "Ferries sail on Monday"[: machinery.HEADLINE_CHARS]
    assert len(exact) == machinery.HEADLINE_CHARS
    item = Block("li", (Run(exact, "https://n.example/1"), Run(" Harbour Post")))
    assert is_link_list(item)
    shorter = Block("li", (Run(exact[:-1], "https://n.example/1"), Run(" Harbour Post")))
    assert not is_link_list(shorter)


def para(text: str) -> Block:
    return Block("p", (Run(text),))


def test_a_title_repeat_is_dropped_only_before_anything_was_kept() -> None:
    """After a kept first block, even a list item or a heading, a sentence that repeats the
    title is the post's own and stays."""
    title = "Big launch day"
    after_item = [Block("li", (Run("Alpha build notes"),)), para("Big launch day. We shipped.")]
    assert [b.text for b in substantive(after_item, title)] == [
        "Alpha build notes",
        "Big launch day. We shipped.",
    ]
    first = [para("Big launch day. We shipped.")]
    assert [b.text for b in substantive(first, title)] == ["We shipped."]


def test_a_lone_link_card_between_paragraphs_is_skipped_but_a_link_post_keeps_it() -> None:
    body = (
        "<p>Wild herbs keep well when dried.</p>"
        '<p><a href="https://blog.example/herbs-1">Herbs All Year Round</a></p>'
        "<p>Salt them, sugar them, or blend them into spice mixes.</p>"
    )
    shown = visible(summarize(body, title="Dry infusions"))
    assert shown == (
        "Wild herbs keep well when dried.\n\nSalt them, sugar them, or blend them into spice mixes."
    )
    alone = '<p><a href="https://news.example/story">A long read on drying herbs</a></p>'
    assert "A long read on drying herbs" in visible(summarize(alone, title="Link: herbs"))
    last = '<p>Wild herbs keep well.</p><p><a href="https://b.example/x">More on herbs</a></p>'
    assert "More on herbs" in visible(summarize(last, title="Herbs"))  # nothing after it
    sentence = (
        '<p>Wild herbs keep well.</p><p><a href="https://b.example/x">Dried herbs last a '
        "year.</a></p><p>Salt them.</p>"
    )
    assert "Dried herbs last a year." in visible(summarize(sentence, title="Herbs"))
    long_name = "<p>Intro here.</p>" + (
        f'<p><a href="https://b.example/y">{"word " * 30}</a></p><p>Then this.</p>'
    )
    assert "word word" in visible(summarize(long_name, title="Herbs"))


def test_only_an_item_over_deeper_items_is_a_topic() -> None:
    stray = (  # a paragraph inside a nested list (invalid HTML) is no sub-item
        '<p>Intro.</p><ul><li><a href="https://t.example/1">Bare topic</a><ul><p>stray</p>'
        "</ul></li></ul>"
    )
    assert "Bare topic" not in visible(summarize(stray, title="Show"))
    links = "".join(f'<a href="https://t.example/{n}">Link {n}</a> ' for n in range(3))
    promo = f"<p>Intro.</p><p>{links}</p><ul><li><ul><li>deep item</li></ul></li></ul>"
    assert "Link 0" not in visible(summarize(promo, title="Show"))


def test_a_link_card_is_one_outside_link_without_a_sentence_s_end() -> None:
    def shown(card: str) -> str:
        body = f"<p>Intro here.</p><p>{card}</p><p>Then this.</p>"
        return visible(summarize(body, title="Herbs"))

    exact = "x" * 120
    assert exact not in shown(f'<a href="https://b.example/y">{exact}</a>')
    longer = "x" * 121
    assert longer in shown(f'<a href="https://b.example/y">{longer}</a>')
    assert "Herbs in winter" in shown('<a href="#winter">Herbs in winter</a>')
    for end in ("!", "?", "…", "。"):
        assert f"Herbs in winter{end}" in shown(
            f'<a href="https://b.example/w">Herbs in winter{end}</a>'
        )
    two = '<a href="https://b.example/a">Herbs</a> <a href="https://b.example/b">in winter</a>'
    assert "in winter" in shown(two)


def test_a_skipped_item_s_depth_stays_when_items_are_renumbered() -> None:
    body = (
        "<ol><li>Harbour reopens</li><li>Tags: port<ol><li>sub of the label</li></ol></li>"
        "<li>Ferries resume at dawn</li></ol>"
    )
    shown = visible(summarize(body, title="Harbour reopens"))
    assert "sub of the label" not in shown and "Ferries resume at dawn" in shown
    for before in ("", "<p>Tags: port</p>"):  # nothing skipped yet, or a paragraph
        deep_first = (
            f"{before}<ul><ul><li>A nested first item</li></ul><li>Then a top one</li></ul>"
        )
        shown = visible(summarize(deep_first, title="Port"))
        assert "A nested first item" in shown and "Then a top one" in shown
