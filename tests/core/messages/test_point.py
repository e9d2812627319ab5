"""The post's point first (`point.py`): hooks, looking back and background before the news are
skipped, only when a sentence carrying the point follows. Fixtures are our own text in the
shapes real posts open with: a games site's "Hey, remember …?", a company's "Last week we …",
a release post's thanks, a hand-written excerpt that is a hook."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.blocks import Block, Run, read_blocks
from bot.core.messages.point import (
    is_hook,
    is_meta,
    is_past,
    point_start,
    states_news,
    tail_runs,
    title_words,
    to_the_point,
)
from bot.core.messages.summary import summarize
from tests.support.telegram_html import assert_valid_telegram_html

_TAG = re.compile(r"<[^>]+>")


def visible(summary: str) -> str:
    assert_valid_telegram_html(summary)
    return html.unescape(_TAG.sub("", summary))


def first_words(body: str, title: str) -> str:
    return visible(summarize(body, title=title))


def test_a_short_exclamation_before_the_point_is_skipped() -> None:
    body = "<p>Oops! When I shipped Kettle 1.4, I forgot to mention its new timer.</p>"
    assert first_words(body, "Kettle's timer").startswith("When I shipped Kettle 1.4")


def test_an_exclamation_that_names_the_title_or_states_news_stays() -> None:
    words = title_words("Kettle 2.0 with Bun")
    assert not is_hook("Bun shipped its version 1.0!", words)
    assert not is_hook("Kettle is here!", words)
    assert not is_hook("Hooray, we are on holiday for two weeks!", words)  # more than a few words
    assert is_hook("Video games!", words)


def test_a_line_announcing_news_and_a_hook_question_are_skipped() -> None:
    body = (
        "<p>Hey, remember Lanternfish? It has been over a year since its name was revealed. "
        "Today the studio released a second teaser with a date for the full reveal.</p>"
    )
    assert first_words(body, "Lanternfish gets a second teaser").startswith(
        "Today the studio released"
    )
    assert is_hook("Here is the big news.")
    assert not is_hook("Here is how the cache works in detail, step by step.")


def test_looking_back_at_an_earlier_post_and_thanks_are_skipped() -> None:
    body = (
        "<p>In my last post I set up the build server. This time the tests run on every "
        "commit, in about four minutes.</p>"
    )
    assert first_words(body, "Tests on every commit").startswith("This time the tests run")
    thanks = "<p>First of all, thanks to everyone who sent patches! Version 3 adds dark mode.</p>"
    assert first_words(thanks, "Version 3").startswith("Version 3 adds dark mode.")
    assert is_meta("We'd like to thank our translators.")


def test_history_is_skipped_only_for_a_sentence_naming_the_title_better() -> None:
    news = (
        "<p>Last week we heard that the map tiles load slowly. We are replacing the tile "
        "server with a cached one in every region.</p>"
    )
    assert first_words(news, "Faster map tiles").startswith("We are replacing the tile server")
    story = (
        "<p>Last year I bought a small tablet for reading. I find it fine for that, though "
        "typing on it is slow.</p>"
    )
    assert first_words(story, "Where did data plans go?").startswith("Last year I bought")
    assert is_past("As you may know, the old API closes in May.")


def test_the_news_three_sentences_in_is_where_the_summary_starts() -> None:
    body = (
        "<p>Security bugs hide in most apps people use every day. No company can find all "
        "of them alone. Today Google announced that its Play bug bounty for Android apps "
        "is closing at the end of the month.</p>"
    )
    shown = first_words(body, "Google Play closes its Android apps bug bounty")
    assert shown.startswith("Today Google announced")


def test_background_that_already_names_the_title_is_kept() -> None:
    sentences = [
        "Google Play paid researchers for Android app bugs for years.",
        "Today Google announced that the Play bounty for Android apps is closing.",
    ]
    assert point_start(sentences, "Google Play closes Android app bounty") == 0


def test_news_words_are_verbs_not_a_capitalised_noun() -> None:
    assert states_news("Version 5 is now available for download.")
    assert states_news("We're excited to announce the beta.")
    assert not states_news("Release: the following signatures were invalid.")


def test_the_summary_never_starts_at_a_sentence_that_leans_on_a_skipped_one() -> None:
    body = (
        "<p>Last week I decided to clean up my servers. That is, I moved three sites onto "
        "a single machine.</p>"
    )
    assert first_words(body, "Moving sites").startswith("Last week I decided")


def test_a_stop_inside_a_link_s_name_is_not_a_sentence_to_skip() -> None:
    body = (
        '<p>For <a href="https://conf.example/">try! Swift NYC</a>, we print a code on every '
        "badge. Scanning it adds the contact to your phone.</p>"
    )
    assert first_words(body, "Badges with codes").startswith("For try! Swift NYC")


def test_a_post_of_one_sentence_is_never_skipped() -> None:
    assert first_words("<p>Wow!</p>", "Our trip") == "Wow!"
    assert first_words("<p>Check it out if you like fun! 🐙🦑</p>", "Comic").startswith("Check")


def test_a_hook_excerpt_gives_way_but_one_about_the_title_stays() -> None:
    body = (
        "<p>With billions of devices coming, Japan plans to create 10 billion new 14-digit "
        "phone numbers by 2021.</p><p>Carriers agreed to the plan.</p>"
    )
    title = "Japan plans 10 billion 14-digit phone numbers"
    hook = "A surge of gadgets is on its way."
    shown = visible(summarize(body, excerpt_html=hook, title=title))
    assert shown.startswith("With billions of devices coming") and hook not in shown
    deck = "Japan's 14-digit phone numbers start with 020."
    shown = visible(summarize(body, excerpt_html=deck, title=title))
    assert shown.startswith(deck)


def test_tail_runs_keep_styles_and_drop_leading_spaces() -> None:
    runs = (Run("Oops! "), Run("Kettle", href="https://k.example/", bold=True), Run(" is out."))
    assert tail_runs(runs, 5) == (Run("Kettle", "https://k.example/", True), Run(" is out."))
    assert tail_runs(runs, 8)[0] == Run("ttle", "https://k.example/", True)


_SENTENCE = st.sampled_from(
    [
        "Oops!",
        "Hey, remember the old app?",
        "Last year we moved the servers.",
        "In my last post I set up the build.",
        "Today we launch the new app for phones.",
        "The app is now available in twelve languages.",
        "That is, it works offline.",
        "Here is the big news.",
        "Tabs load a third faster.",
    ]
)
_BLOCK = st.one_of(
    st.lists(_SENTENCE, min_size=1, max_size=4).map(lambda s: Block("p", (Run(" ".join(s)),))),
    _SENTENCE.map(lambda s: Block("li", (Run(s),))),
)


@given(st.lists(_BLOCK, max_size=6), st.sampled_from(["The new app", "Servers", ""]))
def test_only_the_opening_is_ever_skipped_and_no_list_item_is_lost(
    blocks: list[Block], title: str
) -> None:
    kept = to_the_point(blocks, title)
    before = " ".join(b.text for b in blocks)
    after = " ".join(b.text for b in kept)
    assert before.endswith(after)
    assert [b for b in blocks if b.kind == "li"] == [b for b in kept if b.kind == "li"]
    assert len(kept) <= len(blocks) and kept[1:] == blocks[len(blocks) - len(kept) + 1 :]


@given(st.lists(_SENTENCE, min_size=1, max_size=5))
def test_every_summary_keeps_a_sentence_with_words(sentences: list[str]) -> None:
    body = "<p>" + " ".join(sentences) + "</p>"
    shown = first_words(body, "The new app")
    assert shown and any(ch.isalpha() for ch in shown)
    assert read_blocks(body)  # the fixture is a paragraph


def test_a_preamble_about_the_post_itself_and_a_hook_give_way_to_the_point() -> None:
    body = (
        "<p>Short blogpost, since I have no energy for a long one, but I wanted to say what "
        "keeps me busy at night.</p><p><strong>Yay! It's a kiln controller.</strong></p>"
        "<p>The old firmware stopped getting fixes in 2021, so I forked it and wrote a new "
        "scheduler.</p>"
    )
    shown = first_words(body, "Working on Emberline")
    assert shown.startswith("It's a kiln controller.")  # "it" names the title, past the hook
    assert "forked it" in shown
    assert is_meta("A quick post because I was asked twice this week.")
    assert is_meta("Just a little update, nothing big.")


def test_a_short_post_that_states_its_news_or_names_its_subject_is_not_a_preamble() -> None:
    assert not is_meta("A quick post: Kettle 2.0 is now available.")
    assert not is_meta("A short post about the new cache in Kettle.")
    assert not is_meta("Short posts are easier to read on a phone.")
    body = "<p>A quick update: we released Kettle 2.0. It brews twice as fast.</p>"
    assert first_words(body, "Kettle 2.0").startswith("A quick update: we released Kettle 2.0.")


def test_a_sentence_leaning_on_a_skipped_background_still_never_opens() -> None:
    body = (
        "<p>In my last post I set up the build server. It was slow. "
        "Now the tests run on every commit in four minutes.</p>"
    )
    assert first_words(body, "Tests on every commit").startswith("In my last post")


def test_after_a_question_that_leans_on_it_the_opening_stays() -> None:
    body = (
        "<p>So you want to bake your own bread? GREAT! That is a fine plan. Baking at home "
        "takes a starter, flour and patience.</p>"
    )
    assert first_words(body, "Baking bread at home").startswith("So you want to bake")
    assert point_start(["Yay!", "It is a kiln."], "Emberline") == 1
    assert point_start(["Yay!", "That is a kiln."], "Emberline") == 0  # only "it" names the title
