"""The summary a message shows: what the post is about, in the author's words and shape.

1. The author's own summary comes first: a TL;DR paragraph, a "Summary" / "Key takeaways" /
   "In brief" list or paragraph near the top (without its bare label), or a hand-written
   excerpt (a feed description that is not just the first words of the body).
2. Otherwise the lede, skipping what opens many posts but says nothing (`boilerplate.py`):
   bylines, image credits and captions, "Originally published at", a table of contents, share
   and subscribe prompts, "Read more" links, code blocks, headings.
3. It is cut only where a sentence ends (a paragraph's end counts; "Sept.", "e.g.", "U.S.",
   "No. 5" and decimals do not; Chinese and Japanese sentences end at 。！？); only a first
   sentence that alone is too long is cut at a word, with "…". About three sentences or
   `MAX_COLUMNS` visible columns (CJK characters take two); a shorter post is sent whole; an
   excerpt the site cut mid-sentence is shown up to its last whole sentence.
4. The structure is kept as Telegram HTML: list items as items (• or 1.), paragraphs apart,
   inline links (only absolute http(s) ones), short bold and italic; never a heading, nor a
   line ending in ":", as the last line.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import lru_cache

from bot.core.messages.blocks import (
    Block,
    LazyBlocks,
    Run,
    head_runs,
    read_blocks,
    text_blocks,
)
from bot.core.messages.boilerplate import (
    author_summary,
    lede,
    looks_cut,
    without_cut_marks,
    without_hanging_intros,
)
from bot.core.messages.escape import esc
from bot.core.messages.inline import cut_at_word, render_runs
from bot.core.messages.links import few_links
from bot.core.messages.machinery import each_substantive, idle, is_machinery, repeats_title
from bot.core.messages.point import to_the_point
from bot.core.messages.sentences import CJK_ENDS, CLOSERS, columns, sentence_ends

MAX_COLUMNS = 600
MAX_SENTENCES = 3
MAX_ITEMS = 5  # list items shown at most, then "… and N more"
LINKS = 3  # inline links in a summary at most; the rest are shown as text
ROW_COLUMNS = 38  # a phone's line in Telegram
MAX_ROWS = 12  # a summary under the header, in phone lines: with it, one screen (20 lines)
IMAGE_ROWS = 8  # under a large image, which takes the rest of the screen
MORE = "<i>… and {n} more</i>"  # after the items shown (render passes it translated)
WHOLE_BLOCKS = 400  # read for the whole post: past this, it is surely longer than a message
HEADING_COLUMNS = 60  # a line this short without a sentence's end reads as a heading
LEAD_IN_WORDS = 3  # a last paragraph this short opens the part the message leaves out
TAIL_COLUMNS = 12  # what is left of a paragraph this short is shown, past the sentences' count

_TAGS = re.compile(r"<[^>]+>")


@lru_cache(maxsize=512)
def summarize(body_html: str, text: str = "", excerpt_html: str = "", *, full: bool = True,
              limit: int = MAX_COLUMNS, title: str = "", rows: int = MAX_ROWS,
              more: str = MORE, base: str = "") -> str:  # fmt: skip
    """The summary as Telegram HTML (escaped, links checked), "" when the post has no words.
    `text`: the visible text, used when there is no HTML (an item read back from storage).
    `title`: what the summary need not repeat; `rows`: phone lines it may take; `more`: the
    "… and {n} more" line in the chat's language; `base`: the post's address, which its
    relative links ("/post/bridge/") resolve against. Cached: one computation per post and
    language, however many chats get it."""
    blocks = read_blocks(body_html) if body_html.strip() else text_blocks(text)
    excerpt = read_blocks(excerpt_html) if excerpt_html.strip() else []
    chosen, cut_by_site = author_summary(blocks, excerpt, title)
    if not chosen:  # decided as far as `compose` reads: it stops at three sentences
        substance = without_hanging_intros(each_substantive(lede(blocks), title))
        chosen = to_the_point(LazyBlocks(substance), title)
        cut_by_site = not full and looks_cut(chosen)
    shown = compose(chosen, limit, cut_by_site=cut_by_site, rows=rows, more=more, base=base)[0]
    if not shown:  # everything looked like furniture: its words beat an empty message
        captions = [b for b in blocks if b.kind == "caption"]  # an image post's own words
        rest = captions or [
            b
            for b in blocks
            if b.kind not in ("pre", "h") and not idle(b) and not repeats_title(b.text, title)
        ]
        shown = compose(rest, limit, rows=rows, more=more, base=base)[0]
    if not shown:  # a description that is only a heading: the author's subtitle
        subtitle = [Block("p", b.runs) for b in blocks if b.kind == "h"][:1]
        shown = compose(subtitle, limit, rows=rows)[0]
    return few_links(shown, LINKS)


@lru_cache(maxsize=128)
def whole_post(
    body_html: str, text: str = "", *, limit: int = 3000, base: str = ""
) -> tuple[str, bool]:
    """The post from its first paragraph (no boilerplate), every sentence and item that fits
    in `limit` columns, and whether that is all of it (`/format FEED full`); relative links
    resolve against `base`."""
    most = WHOLE_BLOCKS
    read = read_blocks(body_html, most, limit * 4) if body_html.strip() else text_blocks(text)
    kept = [b for b in lede(read, structure=True) if not is_machinery(b.text)]
    shown, complete = compose(list(without_hanging_intros(kept)), limit, whole=True, base=base)
    return shown, complete and len(read) < most


def compose(
    blocks: Sequence[Block],
    limit: int = MAX_COLUMNS,
    *,
    cut_by_site: bool = False,
    whole: bool = False,
    rows: int | None = None,
    more: str = MORE,
    base: str = "",
) -> tuple[str, bool]:
    """Whole blocks while they fit, then whole sentences; never a heading or a line ending in
    ":" last. `cut_by_site`: the last block stops mid-sentence; only its whole sentences show.
    `whole`: no count of sentences or items, only the limit. `rows`: phone lines at most
    (`ROW_COLUMNS` wide, a blank line between paragraphs counted); a list that does not fit
    ends with `more` ("… and N more"); `base`: what relative links resolve against. Returns
    the HTML and whether every block was shown."""
    most_sentences = 10**6 if whole else MAX_SENTENCES
    most_items = 10**6 if whole else MAX_ITEMS
    most_rows = 10**6 if rows is None else rows
    complete = True
    lines: list[tuple[Block, str]] = []  # (block, its HTML)
    used = sentences = items = used_rows = left = 0
    for index, block in enumerate(blocks):
        last = not _has(blocks, index + 1)
        runs = without_cut_marks(block.runs) if last and cut_by_site else block.runs
        text = "".join(run.text for run in runs)
        if not text.strip():
            continue
        previous = lines[-1][0] if lines else None
        extra = _overhead(previous, block)
        gap = 0 if previous is None or _close(previous, block) else 1
        if block.kind == "li":
            mark = extra - (2 if gap else 1 if previous is not None else 0)
            following = not last and blocks[index + 1].kind == "li"
            needed = gap + phone_rows(mark + columns(text)) + (1 if following else 0)
            if (
                items >= most_items
                or used + extra + columns(text) > limit
                or used_rows + needed > most_rows
            ):
                complete = False
                left = _items_from(blocks, index) if items else 0
                if not items and (previous is None or _introduces(previous, lines[-1][1])):
                    # "This release includes:", "Models" or nothing, then a long first item:
                    # its opening, not the label alone
                    space = (limit - used - extra, most_rows - used_rows - gap - following)
                    alone = all(_label_line(h) for _, h in lines[:-1])  # the intro leads
                    opening = _item_opening(runs, text, mark, space, cut=alone)
                    if opening:
                        lines.append((block, render_runs(opening, base)))
                        used += extra + columns("".join(run.text for run in opening))
                        left = _items_from(blocks, index + 1)
                break
            lines.append((block, render_runs(runs, base)))
            used, items = used + extra + columns(text), items + 1
            used_rows += needed - (1 if following else 0)
            continue
        if block.kind in ("h", "pre"):  # a heading or a code block: whole, or the end
            width = extra + columns(text)
            if used + width > limit or used_rows + gap + phone_rows(columns(text)) > most_rows:
                complete = False
                break
            lines.append((block, render_runs(runs, base)))
            used, used_rows = used + width, used_rows + gap + phone_rows(columns(text))
            continue
        if sentences >= most_sentences:
            complete = False
            break
        ends = sentence_ends(text)
        dangling = last and cut_by_site and not _ends_sentence(text)
        if dangling and len(ends) > 1:
            ends, dangling = ends[:-1], False  # the site's cut leaves a partial sentence
        room = limit - used - extra - (1 if dangling else 0)
        row_room = most_rows - used_rows - gap
        every = _fitting(text, ends, room, row_room, dangling)
        fits = every[: max(most_sentences - sentences, 1)]
        if _trails_off(text, fits, every, ends):
            fits = every  # "Taking… for… ev… er.": an ellipsis is a pause, not the end
        if not fits:
            if not lines:  # the first sentence alone is too long: cut at a word
                width = min(limit, most_rows * ROW_COLUMNS - ROW_COLUMNS // 2)
                lines.append((block, render_runs(cut_at_word(runs, width), base)))
            elif block.kind == "p" and row_room >= 2 and all(_label_line(h) for _, h in lines):
                # only short lines so far (a byline, a label): the text, not them alone
                width = min(room, row_room * ROW_COLUMNS - ROW_COLUMNS // 2)
                if width >= ROW_COLUMNS:  # a line of it at least, within the limit
                    lines.append((block, render_runs(cut_at_word(runs, width), base)))
            complete = False
            break
        cut = fits[-1]
        shown = head_runs(runs, cut)
        if dangling and cut >= len(text.rstrip()):  # only a cut sentence: say it goes on
            shown = (*head_runs(runs, len(text.rstrip(" ,;:—-"))), Run("…"))
        lines.append((block, render_runs(shown, base)))
        used += extra + columns(text[:cut]) + (1 if dangling else 0)
        used_rows += gap + phone_rows(columns(text[:cut]) + dangling)
        sentences += len(fits)
        if cut < len(text.rstrip()):
            complete = False
            break
    while lines and (
        lines[-1][0].kind == "h"
        or _shown_text(lines[-1][1]).endswith(":")
        or (not complete and len(lines) > 1 and _looks_like_heading(lines[-2], lines[-1]))
        or (not complete and len(lines) > 1 and _lead_in(*lines[-1]))
    ):
        block = lines.pop()[0]
        left = 0
        ends = sentence_ends(block.text)
        if block.kind == "p" and len(ends) > 1 and block.text.rstrip().endswith(":"):
            # "We rolled out X. This release includes:" without its list: the news stays
            lines.append((block, render_runs(head_runs(block.runs, ends[-2]), base)))
    rendered = _join(lines)
    tail = more.format(n=left)
    if left and lines and lines[-1][0].kind == "li" and used + 1 + _width(tail) <= limit:
        rendered += "\n" + tail
    return rendered, complete


def _introduces(block: Block, shown: str) -> bool:
    """A line that opens a list: "It brings:" or a bare label ("Models", "Fixes")."""
    return block.text.rstrip().endswith(":") or (block.kind == "p" and _label_line(shown))


def _trails_off(text: str, fits: list[int], every: list[int], ends: Sequence[int]) -> bool:
    """The sentences shown end on "…" and what is left of the paragraph is a few words that
    fit: they finish it."""
    return (
        bool(fits)
        and len(every) == len(ends)
        and text[: fits[-1]].rstrip().endswith(("…", "..."))
        and columns(text[fits[-1] :].strip()) <= TAIL_COLUMNS
    )


def _item_opening(
    runs: Sequence[Run], text: str, mark: int, room: tuple[int, int], *, cut: bool = True
) -> tuple[Run, ...]:
    """A list item's first sentences within `room` (columns, phone lines) with its `mark`, or
    when `cut` (nothing but the intro says anything yet) its first words and "…" when no
    sentence fits in two lines or more; () if less. After the post's own sentence, a cut item
    under "The reasons are:" reads as noise (a reader scored it below the sentence alone)."""
    columns_left, rows_left = room
    shown = 0
    for end in sentence_ends(text):
        width = columns(text[:end])
        if width > columns_left or phone_rows(mark + width) > rows_left:
            break
        shown = end
    if shown:
        return head_runs(runs, shown)
    width = min(columns_left, rows_left * ROW_COLUMNS - mark - ROW_COLUMNS // 2)
    return cut_at_word(runs, width) if cut and rows_left >= 2 and width >= ROW_COLUMNS else ()


def _label_line(shown: str) -> bool:
    """A short line without a sentence's end: a byline, a label, a deck (not the text)."""
    text = _shown_text(shown)
    return columns(text) <= HEADING_COLUMNS and not _ends_sentence(text)


def _looks_like_heading(before: tuple[Block, str], line: tuple[Block, str]) -> bool:
    """A short paragraph of words without a sentence's end, after one that ends a sentence and
    before text the message leaves out: a heading written as a line (Blogger's
    `<font size="4">`), not a point to end on. (A run of such lines is the post's own shape:
    a newsletter's one line per section.)"""
    block, shown = line
    text = _shown_text(shown)
    return (
        block.kind == "p"
        and columns(text) <= HEADING_COLUMNS
        and len(sentence_ends(text)) == 1
        and not _ends_sentence(text)
        and _ends_sentence(_shown_text(before[1]))
    )


def _lead_in(block: Block, shown: str) -> bool:
    """A last paragraph of a few words that asks ("Still no connection?") or opens a paragraph
    the message cuts ("Media." before "We all consume it …"): the lead-in of what is left
    out, not a point to end on. ("Fascinating stories." whole is the author's verdict; Chinese
    and Japanese write a whole sentence without spaces: never taken for one.)"""
    text = _shown_text(shown)
    return (
        block.kind == "p"
        and len(text.split()) <= LEAD_IN_WORDS
        and columns(text) == len(text) <= 2 * TAIL_COLUMNS
        and (text.endswith("?") or len(block.text.strip()) > len(text))
    )


def _fitting(text: str, ends: Sequence[int], room: int, row_room: int, dangling: bool) -> list[int]:
    """The sentence ends within `room` columns and `row_room` phone lines (widths grow with
    each end, so the first that does not fit ends the search: one pass over the text)."""
    fits: list[int] = []
    width = start = 0
    for end in ends:
        width += columns(text[start:end])
        start = end
        if width > room or phone_rows(width + dangling) > row_room:
            break
        fits.append(end)
    return fits


def phone_rows(width: int) -> int:
    """Lines a paragraph of `width` columns takes on a phone (at least one)."""
    return max(1, -(-width // ROW_COLUMNS))


def _items_from(blocks: Sequence[Block], index: int) -> int:
    """How many list items follow from `index` in the same list."""
    count = 0
    while _has(blocks, index + count) and blocks[index + count].kind == "li":
        count += 1
    return count


def _has(blocks: Sequence[Block], index: int) -> bool:
    """`blocks` reaches `index`: asked of a `LazyBlocks` without deciding the rest."""
    try:
        blocks[index]
    except IndexError:
        return False
    return True


def _overhead(previous: Block | None, block: Block) -> int:
    """Columns a block adds besides its text: the gap before it and its list mark."""
    gap = 0 if previous is None else 1 if _close(previous, block) else 2
    if block.kind != "li":
        return gap
    return gap + (len(f"{block.number}. ") if block.number is not None else 2)


def _close(previous: Block, block: Block) -> bool:
    """A list item follows the item or the "…:" line before it on the next line."""
    return block.kind == "li" and (previous.kind == "li" or previous.text.rstrip().endswith(":"))


def _ends_sentence(text: str) -> bool:
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1] in ".!?…" + CJK_ENDS + CLOSERS


def _width(rendered: str) -> int:
    return columns(_shown_text(rendered))


def _shown_text(rendered: str) -> str:
    """What a reader sees of one rendered line."""
    return html.unescape(_TAGS.sub("", rendered)).rstrip()


def _join(lines: list[tuple[Block, str]]) -> str:
    """The lines as Telegram HTML: items marked, headings bold, quotes and code as Telegram
    shows them, paragraphs apart."""
    out: list[str] = []
    previous: Block | None = None
    for block, shown in lines:
        line = shown
        if block.kind == "li":
            line = f"{block.number}. {shown}" if block.number is not None else f"• {shown}"
        elif block.kind == "h":
            line = f"<b>{esc(block.text)}</b>"
        elif block.kind == "pre":
            line = f"<pre>{esc(block.text)}</pre>"
        elif block.kind == "quote":
            line = f"<blockquote>{shown}</blockquote>"
        if previous is not None:
            line = ("\n" if _close(previous, block) else "\n\n") + line
        out.append(line)
        previous = block
    return "".join(out)
