"""A summary's links: relative ones resolved against the post's address, at most a few shown.

A feed's links are as the site wrote them: Hugo's and Hexo's entry links and many posts' inline
links are relative ("/post/bridge/", "../images/a.png"). Read by a reader (issue 42), a message
whose title or inline link is not a link fails its first use; relative links are resolved
against the post's own address (itself resolved against the feed's), links within the page
(`#section`) are shown as their text. Past `LINKS` anchors, the rest are shown as text: six
links in three sentences read as a list of destinations, not a summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urljoin

from bot.core.messages.blocks import Block, LazyBlocks, Run

_ANCHOR = re.compile(r'<a href="[^"]*">(.*?)</a>', re.DOTALL)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # an absolute reference (or mailto:, …)


def absolute_links(blocks: Sequence[Block], base: str) -> Sequence[Block]:
    """The blocks with relative links resolved against `base` (a feed's links are as the site
    wrote them: Hugo's and Hexo's are relative), so they show as links, not as text; each
    block as it is read (`blocks` may be decided lazily)."""
    if not base:
        return blocks
    return LazyBlocks(_absolute_block(block, base) for block in blocks)


def _absolute_block(block: Block, base: str) -> Block:
    if not any(run.href and not _SCHEME.match(run.href) for run in block.runs):
        return block
    runs = tuple(
        Run(run.text, _joined(base, run.href), run.bold, run.italic, run.code)
        if run.href and not _SCHEME.match(run.href)
        else run
        for run in block.runs
    )
    return Block(block.kind, runs, block.number)


def _joined(base: str, href: str) -> str | None:
    if href.startswith("#"):
        return None  # a link within the page: its text is enough
    try:
        return urljoin(base, href.strip())
    except ValueError:
        return None


def few_links(rendered: str, most: int) -> str:
    """The first `most` links of rendered HTML kept; later anchors become their text."""
    count = 0

    def keep(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return match.group(0) if count <= most else match.group(1)

    return _ANCHOR.sub(keep, rendered)
