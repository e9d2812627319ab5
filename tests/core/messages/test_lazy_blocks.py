"""Blocks decided as far as they are read: the same answers as a list, and a summary of a long
post pulls only the blocks it shows (and the one after, to know it was not the last)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.blocks import Block, LazyBlocks, Run
from bot.core.messages.summary import compose


def para(text: str, kind: str = "p") -> Block:
    return Block(kind, (Run(text),))


BLOCKS = st.lists(st.builds(para, st.text(min_size=1, max_size=5)), max_size=8)


@given(BLOCKS, st.integers(-10, 10), st.integers(-10, 10), st.integers(-10, 10))
def test_it_answers_as_the_list_would(blocks: list[Block], i: int, a: int, b: int) -> None:
    lazy = LazyBlocks(blocks)
    assert bool(lazy) == bool(blocks)
    try:
        expected: Block | None = blocks[i]
    except IndexError:
        expected = None
    if expected is None:
        with pytest.raises(IndexError):
            lazy[i]
    else:
        assert lazy[i] == expected
    assert list(lazy[a:b]) == blocks[a:b]
    assert list(lazy) == blocks
    assert len(lazy) == len(blocks)


def counted(blocks: list[Block], pulled: list[int]) -> Iterator[Block]:
    for block in blocks:
        pulled[0] += 1
        yield block


def test_a_summary_of_a_long_post_pulls_only_the_blocks_it_shows() -> None:
    blocks = [para(f"Paragraph {n} says one thing. It says another.") for n in range(1000)]
    pulled = [0]
    shown, complete = compose(LazyBlocks(counted(blocks, pulled)))
    assert shown == compose(blocks)[0]
    assert not complete
    assert pulled[0] <= 3


def test_a_list_shown_in_part_is_counted_to_its_end_and_no_further() -> None:
    blocks = [para(f"Item {n}", "li") for n in range(9)] + [para("After.")] * 500
    pulled = [0]
    shown = compose(LazyBlocks(counted(blocks, pulled)), more="… and {n} more")[0]
    assert shown == compose(blocks, more="… and {n} more")[0]
    assert shown.endswith("… and 4 more")
    assert pulled[0] == 10  # the nine items and the paragraph that ends the list
