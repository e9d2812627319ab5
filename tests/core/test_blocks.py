"""`blocks.read_blocks`: a post's HTML as blocks, read only as far as it keeps (issue 30)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.blocks import Block, read_blocks

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
