"""`boilerplate`: which opening blocks are the author's summary, the lede, or noise.

The summary tests (`test_summary.py`) see these rules only through `summarize`, where the lede
often hides a wrong answer (a label's paragraph is also the lede's first one). These pin each
rule on its own, with blocks shaped like the ones real generators emit; the text is our own.
"""

from __future__ import annotations

from bot.core.messages.blocks import Block, Run
from bot.core.messages.boilerplate import (
    SUMMARY_WITHIN,
    author_summary,
    is_label,
    is_noise,
    lede,
    looks_cut,
    without_cut_marks,
    without_hanging_intros,
)


def p(*runs: str | Run) -> Block:
    return Block("p", tuple(Run(r) if isinstance(r, str) else r for r in runs))


def h(text: str) -> Block:
    return Block("h", (Run(text),))


def li(text: str, href: str | None = None, number: int | None = None) -> Block:
    return Block("li", (Run(text, href),), number)


BODY = [p("The quick brown fox jumps over the lazy dog."), p("Then it ran home for tea.")]


# --- labels ------------------------------------------------------------------------------------


def test_labels_are_headings_or_short_paragraphs_with_a_known_word() -> None:
    assert is_label(h("Summary"))
    assert is_label(p("Key takeaways:"))
    assert is_label(p(" TL;DR. "))
    assert is_label(p("要点："))
    assert is_label(p("ＴＬ；ＤＲ"))  # full-width, folded by NFKC
    assert not is_label(li("Summary"))
    assert not is_label(p("Summary of the results"))
    assert not is_label(p(":Summary"))  # only a trailing colon or stop is dropped
    assert not is_label(p("Overview X"))  # a sentence about a product called X


# --- noise -------------------------------------------------------------------------------------


def test_code_captions_empty_blocks_and_bare_links_are_noise() -> None:
    assert is_noise(Block("pre", (Run("print('The point of the post.')"),)))
    assert is_noise(Block("caption", (Run("The team at the meetup in Pune."),)))
    assert is_noise(p("  "))
    assert is_noise(p("https://blog.example/2026/12/post"))
    assert is_noise(p("www.example.com/post"))
    assert not is_noise(p("Read about it at https://blog.example/post today."))
    assert not is_noise(BODY[0])
    assert not is_noise(Block("quote", (Run("We measured it twice."),)))


def test_bylines_credits_and_prompts_are_noise_up_to_300_characters() -> None:
    assert is_noise(p("By Jane Doe"))
    assert is_noise(p("Photo by Sam Lee on Unsplash"))
    assert is_noise(p("Originally published at the author's site"))
    assert is_noise(p("5 min read"))
    assert is_noise(p("Continue reading"))
    long = "Originally published at " + "x" * (300 - 24)
    assert len(long) == 300 and is_noise(p(long))
    assert not is_noise(p(long + "x"))  # a long paragraph is the post, whatever it opens with


def test_a_bare_date_is_noise_but_not_a_sentence_or_a_long_line() -> None:
    assert is_noise(p("March 3, 2026"))
    assert is_noise(p("2026"))
    assert not is_noise(p("March 3, 2026."))
    forty = "Tuesday 1 December 2026, 10:20 CET updat"
    assert len(forty) == 40 and is_noise(p(forty))
    assert not is_noise(p(forty + "e"))


def test_a_list_item_linking_only_within_the_page_is_a_table_of_contents_entry() -> None:
    assert is_noise(li("Why we moved", "#why"))
    entry = Block("li", (Run("  "), Run("How", "#how"), Run("it works", "#how")))
    assert is_noise(entry)  # runs of spaces between the links do not count
    assert not is_noise(Block("li", (Run("How", "#how"), Run(" it works"))))
    assert not is_noise(li("Read the paper", "https://papers.example/1"))
    assert not is_noise(li("A plain item"))
    assert not is_noise(Block("p", (Run("Why we moved", "#why"),)))


# --- the lede ----------------------------------------------------------------------------------


def test_the_lede_skips_headings_noise_and_labels() -> None:
    blocks = [h("Release notes"), p("By Jane Doe"), p("Summary"), *BODY]
    assert lede(blocks) == BODY


def test_a_post_opening_with_a_list_keeps_it() -> None:
    items = [li("Faster builds.", number=1), li("Smaller images.", number=2)]
    assert lede([*items, BODY[0]]) == [*items, BODY[0]]


def test_a_table_of_contents_is_skipped_until_the_next_paragraph() -> None:
    toc = [li("Why we moved"), li("How it works")]  # plain items: some themes link nothing
    after = [BODY[0], li("A real item.")]
    assert lede([h("Table of contents"), *toc, *after]) == after
    assert lede([p("Contents"), *toc, *after]) == after
    assert lede([h("Background"), *toc, *after]) == [*toc, *after]  # not a contents heading
    assert lede([p("Contents:"), *after]) == after


# --- the author's summary ----------------------------------------------------------------------


def test_a_tldr_paragraph_is_the_summary_without_its_prefix() -> None:
    chosen, cut = author_summary([p("TL;DR: okay then."), *BODY], [])
    assert chosen == [p("okay then.")] and cut is False


def test_a_tldr_with_three_characters_or_fewer_after_it_is_a_label() -> None:
    assert author_summary([p("TL;DR: abcd"), *BODY], []) == ([p("abcd")], False)
    assert author_summary([p("TL;DR: abc"), *BODY], []) == ([BODY[0]], False)


def test_a_labelled_paragraph_is_the_summary_but_not_a_labelled_heading() -> None:
    item = Block("li", (Run("Summary: we shipped it."),), 2)
    assert author_summary([item, *BODY], []) == ([Block("li", (Run("we shipped it."),), 2)], False)
    assert author_summary([p("In short: it works."), *BODY], []) == ([p("it works.")], False)
    assert author_summary([h("Summary: the numbers"), *BODY], []) == ([], False)


def test_a_label_introduces_the_list_after_it_else_the_next_paragraph() -> None:
    items = [li("One."), li("Two.")]
    assert author_summary([h("Key takeaways"), *items, BODY[0], li("Three.")], []) == (
        items,
        False,
    )
    assert author_summary([p("Summary"), p("By Jane Doe"), *BODY], []) == ([BODY[0]], False)
    quote = Block("quote", (Run("It works."),))
    assert author_summary([p("Summary"), quote, *BODY], []) == ([quote], False)
    pre = Block("pre", (Run("x = 1"),))
    assert author_summary([p("Summary"), pre, BODY[0]], []) == ([BODY[0]], False)


def test_a_label_followed_by_a_heading_introduces_nothing() -> None:
    assert author_summary([p("Summary"), h("Background"), *BODY], []) == ([], False)


def test_the_summary_is_looked_for_among_the_first_content_blocks_only() -> None:
    noise = [p("By Jane Doe")] * 10  # noise does not count
    fillers = [p(f"Paragraph {n}.") for n in range(SUMMARY_WITHIN)]
    tldr = p("TL;DR: the point of it.")
    assert author_summary([*noise, *fillers[:-1], tldr], []) == ([p("the point of it.")], False)
    assert author_summary([*fillers, tldr], []) == ([], False)


def test_a_tldr_in_a_caption_or_code_is_not_the_author_s_summary() -> None:
    caption = Block("caption", (Run("TL;DR: a cat on a keyboard."),))
    assert author_summary([caption, *BODY], []) == ([], False)


def test_the_prefix_is_cut_across_runs_and_keeps_the_rest_s_styles() -> None:
    link = "https://a.example/"
    block = Block(
        "p",
        (Run("TL;DR: ", bold=True), Run("Ship", italic=True), Run(" it ", link), Run("now.")),
    )
    chosen, _ = author_summary([block, *BODY], [])
    assert chosen == [Block("p", (Run("Ship", italic=True), Run(" it ", link), Run("now.")))]
    spaced = Block("p", (Run(" TL;DR: The", bold=True), Run(" point", italic=True)))
    chosen, _ = author_summary([spaced, *BODY], [])
    assert chosen == [Block("p", (Run("The", bold=True), Run(" point", italic=True)))]
    split = Block("p", (Run("TL;"), Run("DR:  Keep ", link), Run("this.")))
    chosen, _ = author_summary([split, *BODY], [])
    assert chosen == [Block("p", (Run("Keep ", link), Run("this.")))]


def test_a_hand_written_excerpt_is_the_summary_and_says_whether_the_site_cut_it() -> None:
    written = [p("A dog and a fox, and what they taught us. Both were patient.")]
    assert author_summary(BODY, written) == (written, False)
    cut = [p("By Jane Doe"), p("A dog and a fox, and what they")]
    assert author_summary(BODY, cut) == ([cut[1]], True)
    assert author_summary([], written) == ([], False)
    assert author_summary(BODY, [p("By Jane Doe")]) == ([], False)  # nothing left: no summary


def test_an_excerpt_of_the_body_s_first_words_is_not_a_summary_of_its_own() -> None:
    def own(*excerpt: Block, body: list[Block] = BODY) -> bool:
        return author_summary(body, list(excerpt)) == ([], False)

    assert own(p("The quick brown fox jumps over the lazy dog."))
    assert own(p("THE QUICK brown"))  # case aside
    assert own(p("The quick brown fox leaps"))  # its last two words may be cut
    assert not own(p("The quick red fox jumps"))  # not a third
    assert own(p("The snail"))  # one word is all that must match of two
    assert own(p("— …"))  # no words at all
    assert own(p("The quick brown fox"), p("jumps over the lazy dog. Then it ran home"))
    assert own(p("brown fox jumps over the lazy dog"))  # starting after a byline the body kept
    assert own(p("Then it ran home for tea."))  # the second paragraph, as some themes cut


def test_only_the_body_s_first_forty_blocks_are_compared() -> None:
    fillers = [p(f"Filler {n}.") for n in range(40)]
    late = p("A sentence far down the post. It says more.")
    assert author_summary([*fillers, late], [late]) == ([late], False)
    assert author_summary([*fillers[:-1], late], [late]) == ([], False)


# --- cut marks ---------------------------------------------------------------------------------


def test_a_text_looks_cut_when_its_last_block_ends_in_a_mark_or_mid_sentence() -> None:
    assert not looks_cut([])
    assert not looks_cut([p("Ends here. ")])
    assert not looks_cut([p("And mid"), p("Ends here.")])  # only the last block counts
    assert not looks_cut([p("")])
    for end in ".!?。！？\"'”’)]」』）】:":
        assert not looks_cut([p("A sentence" + end)]), end
    assert looks_cut([p("A sentence that stops")])
    assert looks_cut([p("A sentence…")])
    assert looks_cut([p("It runs on Windows X")])
    assert looks_cut([p("Ends here. [&hellip;]")])
    assert looks_cut([p("Ends here. (more…)")])
    assert looks_cut([p("Ends here. Continue reading →")])
    assert looks_cut([p("Ends here..."), p("Ends here. Read more")])


def test_the_site_s_cut_mark_is_taken_off_the_runs() -> None:
    runs = (Run("Ends ", bold=True), Run("here"), Run(" […]"))
    assert without_cut_marks(runs) == (Run("Ends ", bold=True), Run("here"))
    link = "https://a.example/"
    linked = (Run("Ends here. "), Run("Read more", link))
    assert without_cut_marks(linked) == (Run("Ends here."),)
    plain = (Run("Ends "), Run("here."))
    assert without_cut_marks(plain) == plain


def test_a_summary_s_lede_has_no_headings_or_code_the_whole_post_s_has_them() -> None:
    """A summary reads the post's prose; the whole post (`structure`) keeps its sections and
    code after the first paragraph."""
    blocks = [
        p("We moved the build to a new runner."),
        Block("h", (Run("How to try it"),)),
        Block("pre", (Run("make build --fast"),)),
        p("It takes half the time."),
    ]
    assert [b.text for b in lede(blocks)] == [
        "We moved the build to a new runner.",
        "It takes half the time.",
    ]
    assert [b.kind for b in lede(blocks, structure=True)] == ["p", "h", "pre", "p"]


def test_quotes_right_after_code_are_its_output_and_left_out_with_it() -> None:
    """A tutorial shows a program, then what it prints as quotes ("who are you?", "Hello,
    tim!"): without the code, the printout reads as the post's words."""
    blocks = [
        p("input() waits for the user to type a line."),
        Block("pre", (Run('name = input("who are you?")'),)),
        Block("quote", (Run("who are you?"),)),
        Block("quote", (Run("Hello, tim!"),)),
        p("The prompt is shown first."),
        Block("quote", (Run("A quote of the author's, kept."),)),
    ]
    assert [b.text for b in lede(blocks)] == [
        "input() waits for the user to type a line.",
        "The prompt is shown first.",
        "A quote of the author's, kept.",
    ]
    assert [b.kind for b in lede(blocks, structure=True)] == [
        "p", "pre", "quote", "quote", "p", "quote"
    ]  # fmt: skip


def test_a_sentence_introducing_what_is_not_shown_goes_and_its_paragraph_stays() -> None:
    def kept(*blocks: Block) -> list[tuple[str, str]]:
        return [(b.kind, b.text) for b in without_hanging_intros(blocks)]

    quote = Block("quote", (Run("Quoted."),))
    code = Block("pre", (Run("make"),))
    assert kept(p("We shipped it. Here is the screen:"), p("Next.")) == [
        ("p", "We shipped it."),
        ("p", "Next."),
    ]
    assert kept(p("One. Two. Three:"), p("Next.")) == [("p", "One. Two."), ("p", "Next.")]
    assert kept(p("Look:"), p("Next.")) == [("p", "Next.")]
    assert kept(p("It ends. See: ")) == [("p", "It ends.")]  # the last block introduces nothing
    assert kept(p("它有三个。见下图："), p("下一段。")) == [("p", "它有三个。"), ("p", "下一段。")]
    for following in (li("item"), quote, code):
        assert kept(p("It has:"), following) == [("p", "It has:"), (following.kind, following.text)]
    assert kept(li("An item ending in a colon:"), p("Next.")) == [
        ("li", "An item ending in a colon:"),
        ("p", "Next."),
    ]


def test_a_quote_that_opens_the_post_is_its_words_not_a_program_s_output() -> None:
    blocks = [Block("quote", (Run("Ship small, ship often."),)), p("So we did.")]
    assert [b.text for b in lede(blocks)] == ["Ship small, ship often.", "So we did."]
