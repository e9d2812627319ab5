"""A page's tree is bounded before trafilatura sees it (issue 40, item 3): the first
`MAX_ELEMENTS` elements in document order, at most `MAX_CHILDREN` children each, `MAX_DEPTH`
levels. trafilatura is about n² in one block's inline elements (450 KB of spans: 42 s)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from bot.core.messages import article
from bot.core.messages.article import (
    MAX_CHILDREN,
    MAX_DEPTH,
    MAX_ELEMENTS,
    bounded,
    extract_article,
)


def tree(markup: str) -> etree._Element:
    return etree.fromstring(markup)


def tags(root: etree._Element) -> list[str]:
    return [str(element.get("n") or element.tag) for element in root.iter(etree.Element)]


def depth_of(element: etree._Element) -> int:
    return sum(1 for _ in element.iterancestors())


def chain(levels: int) -> str:
    """`levels` nested divs under the root: the deepest is at depth `levels`."""
    return "<html>" + "<div>" * levels + "</div>" * levels + "</html>"


def test_the_limits_are_the_documented_ones() -> None:
    assert (MAX_ELEMENTS, MAX_CHILDREN, MAX_DEPTH) == (8_000, 500, 64)


def test_children_past_the_limit_go_with_their_text() -> None:
    spans = "".join(f"<span n='s{n}'>w{n}</span>t{n}" for n in range(MAX_CHILDREN))
    exact = tree(f"<p>{spans}</p>")
    assert bounded(exact) == 0 and len(exact) == MAX_CHILDREN
    over = tree(f"<p>{spans}<span n='last'>x</span>tail<span n='more'>y</span></p>")
    assert bounded(over) == 2
    assert len(over) == MAX_CHILDREN
    assert tags(over)[-1] == f"s{MAX_CHILDREN - 1}"
    assert "tail" not in "".join(over.itertext())


def test_levels_past_the_limit_go() -> None:
    deepest = tree(chain(MAX_DEPTH))
    assert bounded(deepest) == 0
    assert max(depth_of(e) for e in deepest.iter()) == MAX_DEPTH
    deeper = tree(chain(MAX_DEPTH + 1))
    assert bounded(deeper) == 1
    assert max(depth_of(e) for e in deeper.iter()) == MAX_DEPTH


def test_elements_past_the_limit_go_in_document_order() -> None:
    # The root and its children: MAX_ELEMENTS in all, spread over blocks of 400.
    blocks: list[str] = []
    left = MAX_ELEMENTS - 1
    while left:
        inside = min(399, left - 1)
        spans = "".join(f"<b n='{len(blocks)}.{k}'/>" for k in range(inside))
        blocks.append(f"<p n='{len(blocks)}'>{spans}</p>")
        left -= inside + 1
    exact = tree("<html>" + "".join(blocks) + "</html>")
    assert bounded(exact) == 0
    assert sum(1 for _ in exact.iter()) == MAX_ELEMENTS
    over = tree("<html>" + "".join(blocks) + "<p n='late'><b/></p><p n='later'/></html>")
    assert bounded(over) == 2
    assert sum(1 for _ in over.iter()) == MAX_ELEMENTS
    assert "late" not in tags(over) and "later" not in tags(over)


def test_comments_are_neither_counted_nor_cut() -> None:
    spans = "<!-- c -->".join("<span/>" for _ in range(MAX_CHILDREN))
    root = tree(f"<p>{spans}</p>")
    assert bounded(root) == 0
    assert len(root) == 2 * MAX_CHILDREN - 1  # the comments are still there


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> str:
    children = draw(st.integers(0, 6 if depth < 5 else 0))
    inner = "".join(draw(trees(depth + 1)) for _ in range(children))
    return f"<e>{inner}</e>"


@given(trees())
def test_a_bounded_tree_is_a_prefix_within_every_limit(markup: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(article, "MAX_ELEMENTS", 20)
        patch.setattr(article, "MAX_CHILDREN", 4)
        patch.setattr(article, "MAX_DEPTH", 3)
        original = tree(markup)
        for n, element in enumerate(original.iter()):
            element.set("n", str(n))
        before = tags(original)
        cut = bounded(original)
        after = tags(original)
    assert len(after) <= 20
    assert all(len(element) <= 4 for element in original.iter())
    assert all(depth_of(element) <= 3 for element in original.iter())
    assert after == sorted(after, key=int)  # document order kept
    assert set(after) <= set(before)
    assert (cut == 0) == (after == before)


def test_the_reviews_span_page_is_quick_and_keeps_its_top() -> None:
    unit = b"<span>word</span> "
    page = b"<html><body><article><h1>T</h1><p>" + unit * (449 * 1024 // len(unit)) + b"</p>"
    extract_article(b"<p>warm</p>", "https://p.example/")  # trafilatura's imports
    started = time.process_time()
    found = extract_article(page + b"</article></body></html>", "https://p.example/x", "T")
    assert time.process_time() - started < 5  # 42 s unbounded
    assert found.ok and found.html.count("word") == MAX_CHILDREN
