"""`blocks.py`: nesting, limits and edges that `./dev mutate bot/core/messages/blocks.py` found
no test pinning down: what kind, number, style and text each block a reader sees has."""

from __future__ import annotations

import pytest

from bot.core.messages.blocks import Block, LazyBlocks, Run, read_blocks, text_blocks

UNLIMITED = 10**6


def shapes(html: str, **limits: int) -> list[tuple[str, int | None, str]]:
    return [(b.kind, b.number, b.text) for b in read_blocks(html, **limits)]


def styled(html: str) -> list[list[tuple[str, bool, bool, bool]]]:
    """Each block's runs: text, bold, italic, inline code."""
    return [[(r.text, r.bold, r.italic, r.code) for r in b.runs] for b in read_blocks(html)]


# --- nesting: an inner element closing does not end the outer one's style or kind ---


def test_nested_emphasis_stays_italic_until_the_outer_one_closes() -> None:
    assert styled("<p><i>Outer <em>inner</em> still</i> plain</p>") == [
        [("Outer ", False, True, False), ("inner", False, True, False),
         (" still", False, True, False), (" plain", False, False, False)]
    ]  # fmt: skip


def test_nested_inline_code_stays_code_until_the_outer_one_closes() -> None:
    assert styled("<p><code>run <kbd>q</kbd> now</code> then</p>") == [
        [("run ", False, False, True), ("q", False, False, True),
         (" now", False, False, True), (" then", False, False, False)]
    ]  # fmt: skip


def test_a_quote_inside_a_quote_keeps_the_outer_quote_after_it() -> None:
    html = "<blockquote><p>Outer.</p><blockquote>Inner.</blockquote><p>Outer again.</p></blockquote><p>Mine.</p>"
    assert shapes(html) == [
        ("quote", None, "Outer."),
        ("quote", None, "Inner."),
        ("quote", None, "Outer again."),
        ("p", None, "Mine."),
    ]


def test_every_paragraph_of_a_quote_is_quoted_and_the_next_quote_too() -> None:
    html = (
        "<blockquote><p>One.</p><p>Two.</p></blockquote><p>Me.</p><blockquote>Three.</blockquote>"
    )
    assert shapes(html) == [
        ("quote", None, "One."),
        ("quote", None, "Two."),
        ("p", None, "Me."),
        ("quote", None, "Three."),
    ]


def test_a_caption_inside_a_caption_keeps_the_outer_caption_after_it() -> None:
    html = (
        "<figure><figcaption>Sales <table><caption>by year</caption></table> in euros"
        "</figcaption></figure><p>Body.</p>"
    )
    assert shapes(html) == [
        ("caption", None, "Sales"),
        ("caption", None, "by year"),
        ("caption", None, "in euros"),
        ("p", None, "Body."),
    ]


def test_a_table_caption_is_a_caption_and_the_cells_after_it_are_not() -> None:
    html = (
        "<table><caption>Prices</caption><tr><td>Tea 2</td></tr></table>"
        "<table><caption>Hours</caption></table><p>Open daily.</p>"
    )
    assert shapes(html) == [
        ("caption", None, "Prices"),
        ("p", None, "Tea 2"),
        ("caption", None, "Hours"),
        ("p", None, "Open daily."),
    ]


def test_a_figure_is_a_block_of_its_own() -> None:
    html = "<p>Before <figure>A photo of the bay</figure> after</p>"
    assert shapes(html) == [("p", None, "Before"), ("p", None, "A photo of the bay"),
                            ("p", None, "after")]  # fmt: skip


# --- footnote markers: dropped inside a superscript, and only there ---


def test_every_footnote_marker_is_dropped_and_the_text_after_each_kept() -> None:
    html = "<p>Cats<sup>1</sup> and dogs<sup>[2]</sup> agree.</p><p>12</p>"
    assert shapes(html) == [("p", None, "Cats and dogs agree."), ("p", None, "12")]


def test_a_superscript_inside_a_superscript_is_still_one_until_the_outer_closes() -> None:
    html = "<p>Area m<sup>x<sup>2</sup> 3</sup> done</p><p>7</p>"
    assert shapes(html) == [("p", None, "Area mx done"), ("p", None, "7")]


# --- lists ---


@pytest.mark.parametrize(
    ("start", "first"),
    [(' start="4"', 4), ("", 1), (' start="x"', 1), (' start="-2"', 1), (' start="²"', 1),
     (' start="٣"', 3)],
)  # fmt: skip
def test_a_numbered_list_counts_from_its_start_or_from_one(start: str, first: int) -> None:
    html = f"<ol{start}><li>a</li><li>b</li></ol><p>After the list.</p>"
    assert shapes(html) == [("li", first, "a"), ("li", first + 1, "b"),
                            ("p", None, "After the list.")]  # fmt: skip


def test_an_item_after_a_nested_numbered_list_belongs_to_the_outer_list() -> None:
    html = "<ul><li>a<ol><li>x</li><li>y</li></ol></li><li>b</li></ul>"
    assert shapes(html) == [
        ("li", None, "a"),
        ("li", 1, "x"),
        ("li", 2, "y"),
        ("li", None, "b"),
    ]


def test_an_item_whose_text_is_in_a_paragraph_is_still_a_numbered_item() -> None:
    html = "<ol><li><p>First step.</p></li><li><p>Second step.</p></li></ol>"
    assert shapes(html) == [("li", 1, "First step."), ("li", 2, "Second step.")]


def test_a_code_block_inside_a_numbered_item_carries_no_number() -> None:
    html = "<ol><li><pre>make install</pre></li></ol>"
    assert shapes(html) == [("pre", None, "make install")]


# --- code blocks and spaces: the text as written ---


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        ("\n\n    x = 1\n    y = 2   \n\n", "    x = 1\n    y = 2"),
        ("X = load()\nprint(X)", "X = load()\nprint(X)"),
    ],
)
def test_a_code_block_keeps_its_indentation_and_drops_blank_ends(code: str, shown: str) -> None:
    assert shapes(f"<pre>{code}</pre>") == [("pre", None, shown)]


def test_a_highlighted_code_block_is_one_text() -> None:
    html = (
        '<pre><code><span class="k">def</span> <span class="n">f</span>():\n    pass</code></pre>'
    )
    assert shapes(html) == [("pre", None, "def f():\n    pass")]


@pytest.mark.parametrize("text", ["X-rays", "Box X", "XXL"])
def test_a_paragraph_keeps_its_first_and_last_letters(text: str) -> None:
    assert shapes(f"<p> {text} </p>") == [("p", None, text)]


def test_inline_code_at_the_end_of_a_paragraph_stays_code() -> None:
    assert styled("<p>Then run <code>make</code></p>") == [
        [("Then run ", False, False, False), ("make", False, False, True)]
    ]


# --- reading limits ---


def test_the_character_limit_counts_every_piece_of_text_exactly() -> None:
    html = "<p>12345</p><p>6789</p><p>0</p><p>more</p>"
    assert shapes(html, max_chars=10) == [("p", None, "12345"), ("p", None, "6789")]
    assert shapes("<p>12345</p><p>6789</p>", max_chars=10) == [
        ("p", None, "12345"), ("p", None, "6789")]  # fmt: skip


def test_an_excerpt_under_the_markup_limit_keeps_its_last_reference() -> None:
    assert shapes("<p>Fish &amp chips &amp", max_chars=40) == [("p", None, "Fish & chips &")]


def test_markup_exactly_four_times_the_limit_is_read_whole() -> None:
    text = "Fish &amp chips &amp"
    html = f'<p title="{"x" * (60 - len(text) - 12)}">{text}'
    assert len(html) == 60
    assert shapes(html, max_chars=15) == [("p", None, "Fish & chips &")]


def test_a_last_unclosed_block_that_reaches_the_block_limit_is_kept() -> None:
    assert shapes("<p>One.</p>Two.", max_blocks=2) == [("p", None, "One."), ("p", None, "Two.")]


@pytest.mark.parametrize("limits", [{"max_blocks": 0}, {"max_chars": 0}])
def test_a_zero_limit_reads_nothing(limits: dict[str, int]) -> None:
    assert read_blocks("<p>Text.</p>tail", **limits) == []


# --- plain text ---


def test_an_empty_bullet_is_skipped_and_the_items_after_it_kept() -> None:
    text = "- milk\n-   \n- bread\n   \n- eggs"
    assert [(b.kind, b.text) for b in text_blocks(text)] == [
        ("li", "milk"), ("li", "bread"), ("li", "eggs")]  # fmt: skip


def test_plain_text_gives_at_most_sixty_blocks() -> None:
    text = "\n\n".join(f"Paragraph {n}." for n in range(70))
    blocks = text_blocks(text)
    assert len(blocks) == 60 and blocks[-1].text == "Paragraph 59."


# --- lazy blocks read like a list ---


def test_lazy_blocks_past_the_end_raise_index_error_like_a_list() -> None:
    one = [Block("p", (Run("only"),))]
    lazy = LazyBlocks(iter(one))
    with pytest.raises(IndexError):
        lazy[1]
    assert lazy[0] == one[0] and list(lazy) == one
