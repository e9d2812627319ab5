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
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from bot.core.messages.blocks import Block, Run, head_runs, read_blocks, text_blocks
from bot.core.messages.boilerplate import author_summary, lede, looks_cut, without_cut_marks
from bot.core.messages.escape import esc, esc_attr
from bot.core.urls import safe_link

MAX_COLUMNS = 600
MAX_SENTENCES = 3
MAX_ITEMS = 8  # list items shown at most
WHOLE_BLOCKS = 400  # read for the whole post: past this, it is surely longer than a message
STYLE_CHARS = 80  # bold or italic longer than this is shown plain (a whole bold paragraph)

# Words before a "." that do not end a sentence.
_ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "e.g", "i.e", "eg", "ie",
     "u.s", "u.k", "u.n", "no", "nos", "nr", "fig", "figs", "vol", "vols", "inc", "ltd", "co",
     "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
     "dec", "approx", "dept", "est", "ca", "cf", "al", "gen", "gov", "sen", "rep", "rev", "op",
     "pp", "ed", "eds", "ph.d", "a.m", "p.m"}
)  # fmt: skip
_CJK_ENDS = "。！？"
_CLOSERS = "\"'”’)]」』）】"
_END = re.compile(rf"[.!?…]+[{re.escape(_CLOSERS)}]*(?=\s|$)|[{_CJK_ENDS}][{re.escape(_CLOSERS)}]*")
_WORD_BEFORE = re.compile(r"([\w.]+)\.$")
_TAGS = re.compile(r"<[^>]+>")


def columns(text: str) -> int:
    """Visible width: Chinese, Japanese and Korean characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def sentence_ends(text: str) -> list[int]:
    """Offsets just after each sentence end in `text` (its end included)."""
    ends: list[int] = []
    for match in _END.finditer(text):
        end = match.end()
        if match.group().startswith(".") and not match.group().startswith("..."):
            head = text[: match.start() + 1]
            word = _WORD_BEFORE.search(head)
            following = text[end:].lstrip()
            if word is not None:
                name = word.group(1).lower()
                if name in _ABBREVIATIONS or (len(name) == 1 and name.isalpha()):
                    continue
            if following[:1].islower() or (
                following[:1].isdigit()
                and word is not None
                and (word.group(1).lower() in ("no", "nos", "nr"))
            ):
                continue
        ends.append(end)
    if not ends or ends[-1] < len(text.rstrip()):
        ends.append(len(text.rstrip()))
    return ends


@lru_cache(maxsize=512)
def summarize(body_html: str, text: str = "", excerpt_html: str = "", *, full: bool = True,
              limit: int = MAX_COLUMNS) -> str:  # fmt: skip
    """The summary as Telegram HTML (escaped, links checked), "" when the post has no words.
    `text`: the visible text, used when there is no HTML (an item read back from storage).
    Cached: one computation per post, however many chats get it."""
    blocks = read_blocks(body_html) if body_html.strip() else text_blocks(text)
    excerpt = read_blocks(excerpt_html) if excerpt_html.strip() else []
    chosen, cut_by_site = author_summary(blocks, excerpt)
    if not chosen:
        chosen = lede(blocks)
        cut_by_site = not full and looks_cut(chosen)
    shown = compose(chosen, limit, cut_by_site=cut_by_site)[0]
    if not shown:  # everything looked like furniture: its words beat an empty message
        captions = [b for b in blocks if b.kind == "caption"]  # an image post's own words
        rest = captions or [b for b in blocks if b.kind not in ("pre", "h")]
        shown = compose(rest, limit)[0]
    return shown


@lru_cache(maxsize=128)
def whole_post(body_html: str, text: str = "", *, limit: int = 3000) -> tuple[str, bool]:
    """The post from its first paragraph (no boilerplate), every sentence and item that fits
    in `limit` columns, and whether that is all of it (`/format FEED full`)."""
    most = WHOLE_BLOCKS
    read = read_blocks(body_html, most, limit * 4) if body_html.strip() else text_blocks(text)
    shown, complete = compose(lede(read), limit, whole=True)
    return shown, complete and len(read) < most


def compose(
    blocks: Sequence[Block],
    limit: int = MAX_COLUMNS,
    *,
    cut_by_site: bool = False,
    whole: bool = False,
) -> tuple[str, bool]:
    """Whole blocks while they fit, then whole sentences; never a heading or a line ending in
    ":" last. `cut_by_site`: the last block stops mid-sentence; only its whole sentences show.
    `whole`: no count of sentences or items, only the limit. Returns the HTML and whether every
    block was shown."""
    most_sentences = 10**6 if whole else MAX_SENTENCES
    most_items = 10**6 if whole else MAX_ITEMS
    complete = True
    lines: list[tuple[Block, str]] = []  # (block, its HTML)
    used = sentences = items = 0
    for index, block in enumerate(blocks):
        last = index == len(blocks) - 1
        runs = without_cut_marks(block.runs) if last and cut_by_site else block.runs
        text = "".join(run.text for run in runs)
        if not text.strip():
            continue
        extra = _overhead(lines[-1][0] if lines else None, block)
        if block.kind == "li":
            if items >= most_items or used + extra + columns(text) > limit:
                complete = False
                break
            lines.append((block, _render(runs)))
            used, items = used + extra + columns(text), items + 1
            continue
        if sentences >= most_sentences:
            complete = False
            break
        ends = sentence_ends(text)
        dangling = last and cut_by_site and not _ends_sentence(text)
        if dangling and len(ends) > 1:
            ends, dangling = ends[:-1], False  # the site's cut leaves a partial sentence
        room = limit - used - extra - (1 if dangling else 0)
        fits = [e for e in ends if columns(text[:e]) <= room]
        fits = fits[: max(most_sentences - sentences, 1)]
        if not fits:
            if not lines:  # the first sentence alone is too long: cut at a word
                lines.append((block, _render(_cut_at_word(runs, limit))))
            complete = False
            break
        cut = fits[-1]
        shown = head_runs(runs, cut)
        if dangling and cut >= len(text.rstrip()):  # only a cut sentence: say it goes on
            shown = (*head_runs(runs, len(text.rstrip(" ,;:—-"))), Run("…"))
        lines.append((block, _render(shown)))
        used += extra + columns(text[:cut]) + (1 if dangling else 0)
        sentences += len(fits)
        if cut < len(text.rstrip()):
            complete = False
            break
    while lines and (lines[-1][0].kind == "h" or _shown_text(lines[-1][1]).endswith(":")):
        lines.pop()
    return _join(lines), complete


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
    return bool(stripped) and stripped[-1] in ".!?…" + _CJK_ENDS + _CLOSERS


def _shown_text(rendered: str) -> str:
    """What a reader sees of one rendered line."""
    return html.unescape(_TAGS.sub("", rendered)).rstrip()


def _join(lines: list[tuple[Block, str]]) -> str:
    out: list[str] = []
    previous: Block | None = None
    for block, shown in lines:
        line = shown
        if block.kind == "li":
            line = f"{block.number}. {shown}" if block.number is not None else f"• {shown}"
        if previous is not None:
            line = ("\n" if _close(previous, block) else "\n\n") + line
        out.append(line)
        previous = block
    return "".join(out)


def _cut_at_word(runs: Sequence[Run], limit: int) -> tuple[Run, ...]:
    text = "".join(run.text for run in runs)
    size = 0
    for index, ch in enumerate(text):
        size += columns(ch)
        if size > limit - 1:
            text = text[:index]
            break
    space = text.rfind(" ")
    if space > len(text) // 2:
        text = text[:space]
    kept = head_runs(runs, len(text.rstrip(" ,;:—-")))
    return (*kept, Run("…"))


def _render(runs: Sequence[Run]) -> str:
    """Runs as Telegram HTML: escaped text, short bold and italic, links that are absolute
    http(s) (one anchor per stretch of the same link)."""
    out: list[str] = []
    index = 0
    while index < len(runs):
        link = safe_link(runs[index].href) if runs[index].href else None
        end = index + 1
        while end < len(runs) and runs[end].href == runs[index].href:
            end += 1
        inner = "".join(_styled(run) for run in runs[index:end])
        text = "".join(run.text for run in runs[index:end])
        if link is not None and text.strip():
            inner = f'<a href="{esc_attr(link)}">{inner}</a>'
        out.append(inner)
        index = end
    return "".join(out)


def _styled(run: Run) -> str:
    shown = esc(run.text)
    if len(run.text) <= STYLE_CHARS and run.text.strip():
        if run.italic:
            shown = f"<i>{shown}</i>"
        if run.bold:
            shown = f"<b>{shown}</b>"
    return shown
