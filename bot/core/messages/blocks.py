"""A post's HTML as the blocks a reader sees: paragraphs, list items, headings, captions, code.

The summary (`summary.py`) needs the post's own structure, which the visible text used for
fingerprints flattens: where a paragraph ends, which lines are list items (and their numbers),
which words are links, bold or italic, and what is a heading, a caption or a code block. Only the
top of a post matters, so reading stops after `MAX_BLOCKS` blocks or `MAX_CHARS` characters.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from typing import overload

from bot.core.text import fold_spaces_like_re

MAX_BLOCKS = 60
MAX_CHARS = 40_000
# A character reference cut in two by the reading limit ("&am"): it would show as text.
_CUT_REFERENCE = re.compile(r"&#?\w*$")
_BLOCK_TAGS = frozenset(
    {"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "figcaption",
     "dt", "dd", "section", "article", "header", "table", "tr", "hr", "center", "caption",
     "main", "address", "details", "summary", "dl", "fieldset", "legend", "menu"}
)  # fmt: skip
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Never part of what a post says in its opening: their text is dropped with them.
_SKIPPED = frozenset(
    {"script", "style", "noscript", "template", "svg", "nav", "aside", "footer", "form",
     "button", "select", "iframe", "object", "video", "audio", "math", "head", "title"}
)  # fmt: skip
_VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "source", "wbr", "col", "area"})
# A figure that previews another page (Ghost's bookmark card, WordPress's embed block): its
# title, description and address are that page's words, not the post's.
_CARD = re.compile(r"\b(?:kg-bookmark-card|bookmark-card|wp-block-embed|link-card|embed-card)\b")
_CODE = frozenset({"code", "kbd", "tt", "samp"})
_CELLS = frozenset({"td", "th"})
_GUTTER = re.compile(r"[\d\s]+")  # a code block of line numbers only
# What a superscript holds when it is a footnote's marker: "1", "[2]", "12", "↩".
_FOOTNOTE_MARK = re.compile(r"\s*\[?\d{1,3}\]?\s*|\s*[↩↑]\s*")


@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of text with one style; `href` as the feed gave it (checked when shown)."""

    text: str
    href: str | None = None
    bold: bool = False
    italic: bool = False
    code: bool = False  # inline code (`<code>` outside a code block)


@dataclass(frozen=True, slots=True)
class Block:
    """`kind`: p, li, h (heading), pre (code), caption, quote. `number`: an ordered item's.
    `depth`: an item's list nesting (1 top level; 0 unknown): a sub-item details its parent."""

    kind: str
    runs: tuple[Run, ...]
    number: int | None = None
    depth: int = field(default=0, compare=False)
    # Its runs' text, joined once: a summary's rules read it 10-20 times a block.
    text: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", "".join(run.text for run in self.runs))


class LazyBlocks(Sequence[Block]):
    """Blocks decided only as far as they are read. A summary shows the first few blocks of a
    post; checking every later paragraph sentence by sentence for machinery was 40% of a
    summary's cost on the bench's posts. Reading it like a list gives the same answers."""

    def __init__(self, blocks: Iterable[Block]) -> None:
        self._source: Iterator[Block] = iter(blocks)
        self._seen: list[Block] = []

    def _reaches(self, index: int) -> bool:
        while len(self._seen) <= index:
            following = next(self._source, None)
            if following is None:
                return False
            self._seen.append(following)
        return True

    @overload
    def __getitem__(self, index: int) -> Block: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Block]: ...
    def __getitem__(self, index: int | slice) -> Block | Sequence[Block]:
        if isinstance(index, slice) or index < 0:
            self._seen.extend(self._source)
        else:
            self._reaches(index)
        return self._seen[index]  # past the end: the IndexError a list raises

    def __len__(self) -> int:
        self._seen.extend(self._source)
        return len(self._seen)

    def __bool__(self) -> bool:
        return self._reaches(0)


def with_next(blocks: Iterable[Block]) -> Iterator[tuple[Block, Block | None]]:
    """Each block with the one after it (None last), read one ahead only."""
    source = iter(blocks)
    block = next(source, None)
    while block is not None:
        following = next(source, None)
        yield block, following
        block = following


def head_runs(runs: Sequence[Run], length: int) -> tuple[Run, ...]:
    """The first `length` characters of the runs, their styles kept."""
    out: list[Run] = []
    left = length
    for run in runs:
        if left <= 0:
            break
        out.append(Run(run.text[:left], run.href, run.bold, run.italic, run.code))
        left -= len(run.text)
    return tuple(out)


def _apart(runs: list[Run], *, labelled: bool) -> None:
    """Set a cell apart from the one before it: "<td>Plan</td><td>Price</td>" reads "Plan
    Price", and a row's header cell names its value: "Created: Thu, 28 Nov"."""
    while runs and not runs[-1].text.strip():
        runs.pop()  # the markup's spaces between cells
    if not runs:
        return
    last = runs[-1]
    if labelled and not last.text.rstrip().endswith((":", "：")):
        runs[-1] = replace(last, text=last.text.rstrip())
        runs.append(Run(": "))
    else:
        runs.append(Run(" "))


class _Full(Exception):
    """The reader has all it keeps (`max_blocks` or `max_chars`): stop parsing."""


class _Reader(HTMLParser):
    def __init__(self, max_blocks: int = MAX_BLOCKS, max_chars: int = MAX_CHARS) -> None:
        super().__init__(convert_charrefs=True)
        self.max_blocks, self.max_chars = max_blocks, max_chars
        self.blocks: list[Block] = []
        self.runs: list[Run] = []
        self.kind = "p"
        self.number: int | None = None
        self.skip = 0  # inside skipped elements (nested)
        self.pre = 0
        self.caption = 0
        self.card = 0  # inside a link card's figure (nested figures counted)
        self.quote = 0
        self.bold = 0
        self.italic = 0
        self.href: list[str | None] = []
        self.code = 0  # inside inline code
        self.sup = 0  # inside a superscript (footnote markers are dropped)
        self.marked = False  # a footnote marker was just dropped
        self.lists: list[list[int] | None] = []  # ol: [next number]; ul: None
        self.cell: str | None = None  # the row's last cell so far: td or th
        self.chars = 0

    @property
    def full(self) -> bool:
        return len(self.blocks) >= self.max_blocks or self.chars >= self.max_chars

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "figure" and (self.card or _CARD.search(dict(attrs).get("class") or "")):
            self.skip += self.card == 0
            self.card += 1  # figures nested in the card, to find its end
            return
        if tag in _SKIPPED:
            if tag not in _VOID:
                self.skip += 1
            return
        if self.skip:
            return
        if tag == "br":
            if self.pre:  # a highlighter's lines: one block of code, not one per line
                self.runs.append(Run("\n"))
            else:
                self.flush()
            return
        if tag in _CELLS:
            _apart(self.runs, labelled=tag == "td" and self.cell == "th")
            self.cell = tag  # a row's first cell has no text before it: no reset at <tr>
        if tag in ("ol", "ul"):
            self.flush()
            self.lists.append(_numbering(tag, dict(attrs).get("start")))
            return
        if tag in _BLOCK_TAGS:
            self.flush()
            self._open_block(tag)
        elif tag in ("b", "strong"):
            self.bold += 1
        elif tag in ("i", "em", "cite"):
            self.italic += 1
        elif tag == "a":
            self.href.append(dict(attrs).get("href"))
        elif tag in _CODE:
            self.code += 1
        elif tag == "sup":
            self.sup += 1
        elif tag == "figure":
            self.flush()

    def _open_block(self, tag: str) -> None:
        if tag == "pre":
            self.pre += 1
        elif tag in ("figcaption", "caption"):
            self.caption += 1
        elif tag == "blockquote":
            self.quote += 1
        elif tag == "li":
            numbering = self.lists[-1] if self.lists else None
            self.kind = "li"
            if numbering is not None:
                self.number = numbering[0]
                numbering[0] += 1
        elif tag in _HEADINGS:
            self.kind = "h"

    def handle_endtag(self, tag: str) -> None:
        if tag == "figure" and self.card:
            self.card -= 1
            self.skip = max(self.skip - (self.card == 0), 0)
            return
        if tag in _SKIPPED:
            self.skip = max(self.skip - 1, 0)
            return
        if self.skip:
            return
        if tag in ("ol", "ul"):
            self.flush()
            if self.lists:
                self.lists.pop()
        elif tag in _BLOCK_TAGS or tag == "figure":
            self.flush()
            if tag == "pre":
                self.pre = max(self.pre - 1, 0)
            elif tag in ("figcaption", "caption"):
                self.caption = max(self.caption - 1, 0)
            elif tag == "blockquote":
                self.quote = max(self.quote - 1, 0)
        elif tag in ("b", "strong"):
            self.bold = max(self.bold - 1, 0)
        elif tag in ("i", "em", "cite"):
            self.italic = max(self.italic - 1, 0)
        elif tag == "a" and self.href:
            self.href.pop()
        elif tag in _CODE:
            self.code = max(self.code - 1, 0)
        elif tag == "sup":
            self.sup = max(self.sup - 1, 0)

    def handle_data(self, data: str) -> None:
        if self.skip or not data:  # never full here: reaching a limit raises _Full
            return
        if self.sup and _FOOTNOTE_MARK.fullmatch(data):
            self.marked = True
            return  # "concept<sup>1</sup>" reads "concept", not "concept1"
        if self.marked and self.runs and self.runs[-1].text.endswith(data[:1]) and data[:1] in ".,":
            data = data[1:]  # "P.<sup>1</sup>." reads "P.", not "P.."
        self.marked = False
        if not data:
            return
        href = next((h for h in reversed(self.href) if h), None)
        code = self.code > 0 and not self.pre
        self.runs.append(Run(data, href, self.bold > 0, self.italic > 0, code))
        self.chars += len(data)
        if self.full:
            raise _Full

    def flush(self) -> None:
        """End the current block: whitespace folded across its runs (a code block keeps its
        lines), empty runs dropped."""
        runs = _code_lines(self.runs) if self.pre else _folded(self.runs)
        if runs:  # never full here: reaching a limit raises _Full
            kind = "pre" if self.pre else "caption" if self.caption else self.kind
            kind = "quote" if self.quote and kind == "p" else kind
            item = kind == "li"
            depth = len(self.lists) if item else 0
            self.blocks.append(Block(kind, runs, self.number if item else None, depth))
            if self.full:
                raise _Full
        if runs or self.kind != "li":
            self.kind, self.number = "p", None
        self.runs = []


def _numbering(tag: str, start: str | None) -> list[int] | None:
    """An ordered list's next number (from its `start`), None for a bulleted one. isdecimal,
    not isdigit: int("²") raised, and the post read as nothing."""
    if tag != "ol":
        return None
    return [int(start) if start is not None and start.isdecimal() else 1]


def _code_lines(runs: list[Run]) -> tuple[Run, ...]:
    """A code block's text as one run, its lines kept, blank lines at its ends dropped; none
    for a highlighter's gutter of line numbers, which says nothing."""
    text = "".join(run.text for run in runs).strip("\n").rstrip()
    return (Run(text),) if text.strip() and not _GUTTER.fullmatch(text) else ()


def _folded(runs: list[Run]) -> tuple[Run, ...]:
    out: list[Run] = []
    last_space = True  # no space at the start of a block
    for run in runs:
        text = fold_spaces_like_re(run.text)
        if last_space:
            text = text.lstrip(" ")
        if not text:
            continue
        if run.href is not None and out and _glued(out[-1], run, text):
            text = " " + text  # "<a>announced</a><a>OSS-Fuzz</a>": two links, two words
        last_space = text.endswith(" ")
        out.append(Run(text, run.href, run.bold, run.italic, run.code))
    if out:
        last = out[-1]
        out[-1] = Run(last.text.rstrip(" "), last.href, last.bold, last.italic, last.code)
        if not out[-1].text:
            out.pop()
    return tuple(out)


def _glued(previous: Run, run: Run, text: str) -> bool:
    """Two different links whose words touch: the markup lost the space between them."""
    return (
        previous.href is not None
        and run.href is not None
        and previous.href != run.href
        and previous.text[-1:].isalnum()
        and text[:1].isalnum()
    )


def read_blocks(html: str, max_blocks: int = MAX_BLOCKS, max_chars: int = MAX_CHARS) -> list[Block]:
    """The blocks at the top of a post's HTML (nothing raised for broken markup)."""
    if len(html) > max_chars * 4:  # more markup than could give `max_chars` of text
        html = _CUT_REFERENCE.sub("", html[: max_chars * 4])
    return _read(_without_broken_tag(html), max_blocks, max_chars)


def _without_broken_tag(html: str) -> str:
    """An excerpt cut by its generator (or by the limit) may end inside a tag (`<a href="…"
    targ`): without this, the parser would give the broken tag back as text."""
    start = html.rfind("<")
    return html[:start] if start >= 0 and ">" not in html[start:] else html


def _read(html: str, max_blocks: int, max_chars: int) -> list[Block]:
    reader = _Reader(max_blocks, max_chars)
    try:
        reader.feed(html)
        reader.close()
    except _Full:  # nothing more would be kept: the rest of a long post is not parsed
        return reader.blocks
    except (AssertionError, ValueError):  # html.parser on hostile input
        pass
    with contextlib.suppress(_Full):
        reader.flush()
    return reader.blocks


_ITEM_MARK = re.compile(r"^(?:[-•*·▪‣]\s+|(\d{1,3})[.)]\s+)")


def text_blocks(text: str) -> list[Block]:
    """Blocks from plain visible text (a stored item, without its HTML): paragraphs at blank
    lines, list items where a line starts with a bullet or a number."""
    blocks: list[Block] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        for line in paragraph.split("\n") if _ITEM_MARK.match(paragraph) else [paragraph]:
            mark = _ITEM_MARK.match(line)
            body = " ".join((line[mark.end() :] if mark else line).split())
            if not body:
                continue
            if mark is not None:
                number = int(mark.group(1)) if mark.group(1) else None
                blocks.append(Block("li", (Run(body),), number))
            else:
                blocks.append(Block("p", (Run(body),)))
            if len(blocks) >= MAX_BLOCKS:
                return blocks
    return blocks
