"""`blocks.read_blocks`: a post's HTML as blocks, read only as far as it keeps (issue 30)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages import blocks as blocks_module
from bot.core.messages.blocks import Block, read_blocks, text_blocks

_PIECES = st.sampled_from(
    ["<p>", "</p>", "<li>", "</li>", "<ul>", "</ul>", "<ol start=\"3\">", "</ol>", "<h2>",
     "</h2>", "<br>", "<b>", "</b>", "<a href=\"https://a.example/\">", "</a>", "<pre>",
     "</pre>", "<figure><img src=\"x.png\"><figcaption>", "</figcaption></figure>", "<script>",
     "</script>", "One sentence here. ", "Two words ", "&amp; more ", "\n", "  "]
)  # fmt: skip
_HTML = st.lists(_PIECES, max_size=80).map("".join)
UNLIMITED = 10**6


def _text(block: Block) -> str:
    return "".join(run.text for run in block.runs)


@given(_HTML, st.integers(1, 12))
def test_a_block_limit_keeps_the_first_blocks_of_the_whole_read(html: str, most: int) -> None:
    assert read_blocks(html, most, UNLIMITED) == read_blocks(html, UNLIMITED, UNLIMITED)[:most]


@given(_HTML, st.integers(1, 200))
def test_a_character_limit_keeps_whole_blocks_from_the_beginning(html: str, chars: int) -> None:
    whole = read_blocks(html, UNLIMITED, UNLIMITED)
    kept = read_blocks(html, UNLIMITED, chars)
    assert kept[:-1] == whole[: max(len(kept) - 1, 0)]
    if kept:  # html.parser may hand over a last text in pieces: the limit can fall inside it
        last, same = kept[-1], whole[len(kept) - 1]
        assert _text(same).startswith(_text(last)) and last.kind == same.kind
    shown = sum(len(run.text) for block in kept for run in block.runs)
    assert shown <= chars or len(kept) == len(whole)


def test_a_long_post_gives_its_first_blocks() -> None:
    html = "".join(f"<p>Paragraph {n}.</p>" for n in range(500))
    blocks = read_blocks(html, 60)
    assert len(blocks) == 60 and blocks[-1].runs[0].text == "Paragraph 59."


def test_a_reference_cut_by_the_reading_limit_is_not_shown_as_text() -> None:
    """The markup is cut at four times the characters kept: "&amp;" cut to "&am" is dropped,
    so a limited read still begins the unlimited one (hypothesis found it)."""
    html = "<p></p></p></p></p></li></li></li>&amp; more &amp; more "
    assert [_text(b) for b in read_blocks(html, UNLIMITED, 12)] == ["& more"]
    assert [_text(b) for b in read_blocks(html, UNLIMITED, UNLIMITED)] == ["& more & more"]


def test_an_uncut_excerpt_keeps_a_reference_without_its_semicolon() -> None:
    assert [_text(b) for b in read_blocks("<p>Fish &amp chips &amp")] == ["Fish & chips &"]


@given(st.text(st.sampled_from("<>a ")))
def test_a_broken_last_tag_is_dropped_as_the_regex_dropped_it(html: str) -> None:
    assert blocks_module._without_broken_tag(html) == re.sub(r"<[^<>]*$", "", html)


def _shape(html: str) -> list[tuple[str, int | None, list[tuple[str, str | None, bool, bool]]]]:
    return [
        (b.kind, b.number, [(r.text, r.href, r.bold, r.italic) for r in b.runs])
        for b in read_blocks(html)
    ]


def test_each_element_gives_its_kind_numbers_and_styles() -> None:
    html = (
        'Opening words<h2>A <b>bold</b> heading</h2><p>Para with <a href="https://a.example/">'
        "a link</a>, <strong>strong</strong>, <em>em</em>, <i>i</i> and <cite>cite</cite>.<br>"
        "After a break.</p><script>skip me</script><nav><p>menu</p></nav>"
        '<ol start="3"><li>three</li><li>four</li></ol><ol start="x"><li>one</li></ol>'
        "<ul><li>dot</li></ul><blockquote><p>Quoted.</p></blockquote>"
        '<figure><img src="i.png"><figcaption>Caption</figcaption></figure>'
        "<pre>code  here</pre><p>End.</p>"
    )
    plain = [("p", None, [("Opening words", None, False, False)])]
    assert _shape(html) == [
        *plain,
        ("h", None, [("A ", None, False, False), ("bold", None, True, False),
                     (" heading", None, False, False)]),
        ("p", None, [("Para with ", None, False, False),
                     ("a link", "https://a.example/", False, False),
                     (", ", None, False, False), ("strong", None, True, False),
                     (", ", None, False, False), ("em", None, False, True),
                     (", ", None, False, False), ("i", None, False, True),
                     (" and ", None, False, False), ("cite", None, False, True),
                     (".", None, False, False)]),
        ("p", None, [("After a break.", None, False, False)]),
        ("li", 3, [("three", None, False, False)]),
        ("li", 4, [("four", None, False, False)]),
        ("li", 1, [("one", None, False, False)]),
        ("li", None, [("dot", None, False, False)]),
        ("quote", None, [("Quoted.", None, False, False)]),
        ("caption", None, [("Caption", None, False, False)]),
        # a code block keeps its spacing and lines (issue 42: `full` shows it as <pre>)
        ("pre", None, [("code  here", None, False, False)]),
        ("p", None, [("End.", None, False, False)]),
    ]  # fmt: skip


def test_nesting_and_stray_closing_tags_are_counted_not_trusted() -> None:
    html = (
        "</b></i></a></ol></blockquote></pre>plain <nav><nav>x</nav>y</nav>z"
        "<b><b>deep</b>still</b> not<ol><li>a<ul><li>b</li></ul></li><li>c</li></ol>"
        "<pre><pre>in</pre>still pre</pre><p>out</p>"
    )
    assert _shape(html) == [
        ("p", None, [("plain ", None, False, False), ("z", None, False, False),
                     ("deep", None, True, False),
                     ("still", None, True, False), (" not", None, False, False)]),
        ("li", 1, [("a", None, False, False)]),
        ("li", None, [("b", None, False, False)]),
        ("li", 2, [("c", None, False, False)]),
        ("pre", None, [("in", None, False, False)]),
        ("pre", None, [("still pre", None, False, False)]),
        ("p", None, [("out", None, False, False)]),
    ]  # fmt: skip


def test_plain_text_gives_paragraphs_and_list_items() -> None:
    """A stored item without its HTML: paragraphs at blank lines, items where lines start
    with a bullet or a number (the number kept), lines of a paragraph joined."""
    text = "First para\nstill first.\n\n- one\n• two\n\n3. three\n4) four\n\n  \n\nLast"
    assert [(b.kind, b.number, b.text) for b in text_blocks(text)] == [
        ("p", None, "First para still first."),
        ("li", None, "one"),
        ("li", None, "two"),
        ("li", 3, "three"),
        ("li", 4, "four"),
        ("p", None, "Last"),
    ]


def test_spaces_fold_across_runs_and_empty_runs_go() -> None:
    html = "<p>  <b> a </b> b  <i> </i></p><p> <b> </b> </p><p>x <b>y</b></p>"
    assert [[(r.text, r.bold, r.italic) for r in b.runs] for b in read_blocks(html)] == [
        [("a ", True, False), ("b", False, False)],
        [("x ", False, False), ("y", True, False)],
    ]
