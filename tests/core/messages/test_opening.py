"""The ranked digest's opening (core/messages/opening.py): the model's paragraph is shown only
when every sentence cites posts of the digest and names nothing they do not; else the
extractive one. And `explain.grounded_in`, which both the edit line and this use."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.core.messages.explain import grounded_in
from bot.core.messages.opening import OPENING_TASK, accepted, extractive, prompt
from bot.core.messages.ranked import Candidate, Entry
from bot.core.polls.duplicates import story_of
from bot.runtime.i18n import translator

AT = datetime(2026, 9, 8, tzinfo=UTC)


def entry(title: str, text: str, *feeds: str) -> Entry:
    post = Candidate(
        item_id=len(title),
        title=title,
        link=f"https://example.org/{len(title)}",
        feed_id=1,
        feed_title=feeds[0],
        categories=(),
        summary=f"<i>{text[:40]}</i>",
        text=text,
        story=story_of(None, title, text),
        at=AT,
    )
    return Entry(post, feeds, tuple(range(1, len(feeds) + 1)), False)


TOP = [
    entry(
        "Corvid Labs joins Lumen", "Corvid Labs joins as a Platinum member for $49,000.", "Lumen"
    ),
    entry("Racks in Oslo", "Two test racks arrive in Oslo in October.", "News", "Planet"),
    entry("Board minutes", "The board met twice.", "Lumen"),
]


def answer(text: str) -> str:
    return json.dumps({"summary": text})


def test_a_paragraph_whose_sentences_cite_their_posts_is_shown() -> None:
    text = "Corvid Labs joins Lumen as a Platinum member [1]. Two racks arrive in Oslo [2][3]."
    assert accepted(answer(text), TOP, "") == text
    assert accepted(text, TOP, "") == text  # an answer that ignored the JSON format
    spaced = "Corvid Labs joins for $49,000. [1] The board met twice [3]."
    assert accepted(answer(spaced), TOP, "") == spaced


def test_a_sentence_without_a_citation_or_citing_a_post_not_in_the_digest_is_refused() -> None:
    assert accepted(answer("Corvid Labs joins Lumen [1]. Racks arrive."), TOP, "") is None
    assert accepted(answer("Corvid Labs joins Lumen [4]."), TOP, "") is None
    assert accepted(answer("Corvid Labs joins Lumen [0]."), TOP, "") is None
    assert accepted(answer("Corvid Labs joins Lumen [1][9]."), TOP[:2], "") is None


def test_a_name_or_number_the_cited_posts_do_not_hold_is_refused() -> None:
    assert accepted(answer("Corvid Labs joins with Zorblax [1]."), TOP, "") is None
    assert accepted(answer("Corvid Labs pays $59,000 [1]."), TOP, "") is None
    assert accepted(answer("Two racks arrive in Oslo [1]."), TOP, "") is None  # Oslo is [2]'s
    assert accepted(answer("Racks arrive in Oslo, says Planet [2]."), TOP, "") is not None


def test_nothing_usable_is_refused() -> None:
    assert accepted("", TOP, "") is None
    assert accepted(answer("<b></b>"), TOP, "") is None
    assert accepted("{not json", TOP, "") is None
    assert accepted(answer("See https://evil.example/x [1]."), TOP, "") == "See [1]."  # no link


def test_the_extractive_opening_names_the_first_three() -> None:
    text = extractive(TOP + TOP)
    assert text == "Top stories: Corvid Labs joins Lumen [1]; Racks in Oslo [2]; Board minutes [3]."
    assert extractive([]) == ""
    assert extractive(TOP[:1], translator("es")).startswith("Lo más destacado: Corvid")


def test_the_prompt_numbers_the_posts_as_the_digest_does() -> None:
    system, user = prompt(TOP[:2], "es")
    assert system["role"] == "system" and system["content"] == OPENING_TASK.format(target="Spanish")
    assert user["content"].startswith("[1] Title: Corvid Labs joins Lumen\nSource: Lumen\nText: ")
    assert "\n\n[2] Title: Racks in Oslo\nSource: News, Planet\n" in user["content"]
    long = entry("Long", "word " * 1000, "F")
    assert len(prompt([long], "en")[1]["content"]) < 700


def test_grounded_in() -> None:
    assert grounded_in("The price rose to 1.299,00 euros", "costs 1,299.00 now")
    assert not grounded_in("The price rose to 1.300", "costs 1,299.00 now")
    assert grounded_in("Corvid joins", "corvid labs")  # the first word is grammar
    assert not grounded_in("It joins Corvid", "labs")
    assert grounded_in("it joins Corvid", "CORVID")


def test_the_prompts_roles_an_unknown_language_and_a_title_of_ninety_characters() -> None:
    system, user = prompt(TOP[:1], "fr")
    assert system["content"] == OPENING_TASK.format(target="fr")
    assert user["role"] == "user"
    title = "word " * 17 + "last"  # 89 characters, then 91
    assert extractive([entry(title + "s", "x", "F")]) == f"Top stories: {title}s [1]."
    assert extractive([entry(title + "s!", "x", "F")]).startswith("Top stories: word word")
    assert len(extractive([entry(title + "s!", "x", "F")])) < len(f"Top stories: {title}s! [1].")


def test_links_the_digest_was_sent_may_stay_and_names_span_posts_by_spaces() -> None:
    sent = "[1] Title: Corvid\nText: see blog.corvid.example/post"
    said = "Corvid Labs joins Lumen, see blog.corvid.example/post [1]."
    assert accepted(answer(said), TOP, sent) == said  # in what the model was sent
    assert accepted(answer(said), TOP, "") == "Corvid Labs joins Lumen, see [1]."
    # a name whose parts end one cited post and begin the next is not in either
    glued = [entry("Alpha", "Alpha", "F"), entry("Beta", "Beta", "G")]
    assert accepted(answer("It is Alpha Beta [1][2]."), glued, "") is not None
    assert accepted(answer("It is AlphaXX [1][2]."), glued, "") is None
    chinese = [entry("Lumen 基金会", "Lumen 基金会 新成员", "F")]
    assert accepted(answer("Lumen 基金会有新成员 [1]。Lumen 发布 [1]。"), chinese, "") is not None
    assert accepted(answer("Lumen 基金会有新成员 [1]。Lumen 发布。"), chinese, "") is None
