"""What a post's opening blocks are: the author's own summary, the lede, or noise.

Measured on real posts (WordPress, Ghost, Substack, Medium, Hugo, Blogger, podcasts, news CMSs):
many open with a byline, an image credit or caption, "Originally published at …", a table of
contents, a share or "listen to this article" line, or a subscription prompt, and excerpts end
in "Read more" or "[…]". None of it says what the post is about. Some posts say it themselves,
in a TL;DR or a "Summary" / "Key takeaways" list near the top, or in a hand-written excerpt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

from bot.core.messages.blocks import Block, LazyBlocks, Run, head_runs
from bot.core.messages.machinery import each_substantive, substantive
from bot.core.messages.point import (
    EXCERPT_MARGIN,
    EXCERPT_NAMES,
    LEDE_NAMES,
    opening_sentences,
    shared,
    title_words,
    to_the_point,
)
from bot.core.messages.sentences import sentence_ends
from bot.core.text import words_of

SUMMARY_WITHIN = 8  # the author's summary is among the first content blocks
BEGINNING_WORDS = 30  # an excerpt opening with the body's first 30 words is the body's
TEASER_CHARS = 160  # a one-sentence excerpt this short is a hook: the lede follows it
_LABELS = frozenset(
    {"summary", "key takeaways", "takeaways", "key points", "in brief", "in short", "brief",
     "highlights", "at a glance", "quick summary", "in a nutshell", "the short version",
     "short version", "tl;dr", "tldr",
     "tl;dr;", "too long; didn't read", "executive summary", "overview", "what's new",
     "resumen", "en resumen", "puntos clave", "摘要", "总结", "概要", "要点", "まとめ", "要約"}
)  # fmt: skip
_TLDR = re.compile(r"^\W{0,3}(?:tl;?\s?dr|tldr)\W{0,3}[:：.\-–—]?\s*", re.IGNORECASE)
_LABELLED = re.compile(
    r"^(?:summary|in brief|in short|key takeaway|bottom line|the gist)\s*[:：]\s*(?=\S)",
    re.IGNORECASE,
)
_TOC = frozenset(
    {"table of contents", "contents", "in this article", "in this post", "on this page",
     "in this guide", "toc", "jump to", "目录", "目次", "índice", "contenido"}
)  # fmt: skip
_NOISE_SHAPES = (
    # bylines
    r"(?:by|posted by|written by|words by|author|autor|von|por|par|story by|published by"
    r"|publicado por|publié par|veröffentlicht von)\s*[:\s]\s*\S.{0,80}",
    # image credits
    r"(?:image|images|photo|photos|photograph|picture|pictures|credit|credits|source"
    r"|illustration|cover|cover image|header image|featured image|hero image|foto|fotos"
    r"|imagen|bild)(?: credit| source| via| by)?\s*[:：|]\s*.{0,200}",
    r"\(?(?:photo|image|picture|illustration) (?:by|via|courtesy of|credit)\b.{0,200}",
    # where else it was published
    r"(?:originally published|first published|cross-?posted|also published|republished"
    r"|this (?:post|article|story) (?:was )?(?:originally|first))\b.*",
    r"the post .{1,300} appeared first on .*",
    # share, listen, subscribe, sponsor, reading time
    r"(?:share this|share on|share:|tweet this|listen now|play episode|subscribe\b|sign up\b"
    r"|listen to (?:this|the) (?:article|post|story|episode)|join (?:our|the)\b|follow us\b"
    r"|support us\b|become a (?:member|subscriber|patron)|get (?:our|the) newsletter"
    r"|click here\b|this (?:post|article) is for (?:paid )?subscribers|members?[- ]only"
    r"|you are reading|advertisement|sponsored\b|estimated reading time|reading time"
    r"|\d+\s*min(?:ute)?s? read)\b.{0,200}",
    # read more
    r"(?:read more|continue reading|read the (?:rest|full)|read full|keep reading|more …"
    r"|more\.\.\.|read more of this story|leer más|seguir leyendo|阅读更多|阅读全文|続きを読む)"
    r"\b.{0,200}",
    # comments, dates
    r"(?:\d+ comments?|leave a comment|comments?|discuss(?: on .{1,40})?|permalink)",
    r"(?:last )?(?:updated|published|posted)(?: on)?\s*[:\s].{0,60}",
)
_NOISE = re.compile("^(?:" + "|".join(_NOISE_SHAPES) + ")$", re.IGNORECASE | re.DOTALL)
_DATE_ONLY = re.compile(
    r"^[\w ,.\-/]{0,12}\b(?:\d{4}|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"\w*[\w ,.:\-/]{0,30}$",
    re.IGNORECASE,
)
# What makes a short line a date and not "1984 by Orwell" or "1983da3 refactoring": a month's
# name or a numeric day (2026-09-08, 8/9/2026), or nothing but a year.
_DATE_PART = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?![a-z])"
    r"|\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b|^\d{4}$",
    re.IGNORECASE,
)
# A live blog's time stamp as its own line: "8.13pm GMT", "20:13 BST".
_TIME_ONLY = re.compile(r"^\d{1,2}[.:]\d{2}\s*(?:[ap]\.?m\.?)?\s*(?:[A-Z]{2,5})?$", re.IGNORECASE)
_URL_ONLY = re.compile(r"^(?:https?://|www\.)\S+$", re.IGNORECASE)
CUT_MARKS = re.compile(
    r"\s*(?:\[\s*(?:…|\.\.\.|&hellip;)\s*\]|…|\.\.\.|\(more…?\)|more\s*…|"
    r"(?:read more|continue reading)\W*)\s*$",
    re.IGNORECASE,
)


def _plain(block: Block) -> str:
    return unicodedata.normalize("NFKC", block.text).strip()


def _label(block: Block) -> str:
    return _plain(block).rstrip(":：.").strip().casefold()


def is_label(block: Block) -> bool:
    """A bare "Summary" / "Key takeaways" / "TL;DR" line (a heading, or a short paragraph)."""
    return block.kind in ("h", "p") and _label(block) in _LABELS


def is_noise(block: Block) -> bool:
    """A block that opens posts but says nothing about them."""
    if block.kind in ("pre", "caption"):
        return True
    text = _plain(block)
    if not text or _URL_ONLY.match(text):
        return True
    if len(text) <= 300 and _NOISE.match(text):
        return True
    if (
        block.kind != "li"  # no list item is dropped for how it starts ("1984 by Orwell")
        and len(text) <= 40
        and _DATE_ONLY.match(text)
        and _DATE_PART.search(text)
        and not text.endswith(".")
    ):
        return True  # a date (the shape allows no other end mark): "Dec 3, 2026." is a sentence
    if block.kind != "li" and _TIME_ONLY.match(text):
        return True
    return _is_toc_entry(block)


def _is_toc_entry(block: Block) -> bool:
    """A list item that is only a link within the page (`#section`)."""
    links = [run for run in block.runs if run.text.strip()]
    return block.kind == "li" and bool(links) and all((r.href or "").startswith("#") for r in links)


def lede(blocks: Sequence[Block], *, structure: bool = False) -> list[Block]:
    """The post's content from its first real paragraph or list, without headings, noise or a
    table of contents. `structure` (the whole post): headings after the first paragraph and
    code blocks stay."""
    out: list[Block] = []
    in_toc = False
    output = False  # quotes right after a code block left out are its output ("Hello, tim!")
    for block in blocks:
        output = (output or block.kind == "pre") and block.kind in ("pre", "quote")
        if output and not structure:
            continue
        if block.kind == "h" or (block.kind == "p" and _label(block) in _TOC):
            in_toc = _label(block) in _TOC
            if structure and out and not in_toc and not is_label(block):
                out.append(block)
            continue
        if in_toc and block.kind == "li":
            continue
        in_toc = False
        if structure and block.kind == "pre" and out:
            out.append(block)
            continue
        if is_noise(block) or is_label(block):
            continue
        out.append(block)
    return out


def without_hanging_intros(blocks: Iterable[Block]) -> Iterator[Block]:
    """Without the sentence ending in ":" that introduced what is not shown (a picture, an
    embed; only a list, a quote or code may follow one): the paragraph's sentences before it
    stay ("I bought a shirt. Here it is:"), so the text reads on to the next paragraph. Reads
    ahead only past such a line: a summary decides its blocks lazily (`LazyBlocks`)."""
    pending: Block | None = None
    for block in blocks:
        if pending is not None:
            yield from (pending,) if block.kind in ("li", "quote", "pre") else _before(pending)
            pending = None
        if block.kind == "p" and block.text.rstrip().endswith((":", "：")):
            pending = block
            continue
        yield block
    if pending is not None:
        yield from _before(pending)


def _before(intro: Block) -> tuple[Block, ...]:
    """The intro's paragraph without its last sentence (none when that was all of it)."""
    ends = sentence_ends(intro.text)
    return (Block("p", head_runs(intro.runs, ends[-2])),) if len(ends) > 1 else ()


def author_summary(
    blocks: Sequence[Block], excerpt: Sequence[Block], title: str = ""
) -> tuple[Sequence[Block], bool]:
    """The post's own summary (and whether the site cut it), or [] when it has none. An
    excerpt is the author's when it is not the body's first words nor cut by the site (the
    item carries the full text, which says more), and says more than the title; a one-sentence
    teaser is followed by the lede."""
    content = [b for b in blocks if not is_noise(b)]  # a caption's or code's TL;DR is theirs
    for index, block in enumerate(content[:SUMMARY_WITHIN]):
        text = _plain(block)
        tldr = _TLDR.match(text)
        if tldr and len(text) > tldr.end() + 3:
            return [_without_prefix(block, tldr.end())], False
        labelled = _LABELLED.match(text)
        if labelled and block.kind != "h":
            return [_without_prefix(block, labelled.end())], False
        if tldr or is_label(block):
            following = _after_label(content[index + 1 :])
            if following:
                return following, False
    # Judged without its machinery: WordPress's "The post … appeared first on …" follows
    # the "[…]" that marks an automatic excerpt.
    written = [b for b in excerpt if not is_noise(b)]
    kept = substantive(written, title) if blocks else []
    # the body's first words, with the machinery they open with ("This is part of a series.")
    # or without what follows them
    beginning = _is_beginning((kept, written), blocks)
    if kept and not beginning and not _site_cut(kept):
        if not _one_line(kept):  # the lede is read only for a one-line excerpt
            return kept, looks_cut(kept)
        point = to_the_point(LazyBlocks(each_substantive(lede(blocks), title)), title)
        if _off_the_point(kept[0].text.strip(), point, title):
            return point, False
        if is_teaser(kept):
            said = {b.text for b in kept}
            rest = (b for b in point if b.text not in said)
            return LazyBlocks(chain(kept, rest)), False
        return kept, looks_cut(kept)
    return [], False


def _one_line(excerpt: Sequence[Block]) -> bool:
    """One paragraph of one sentence, at most `TEASER_CHARS` (with or without its stop)."""
    if len(excerpt) != 1 or excerpt[0].kind != "p":
        return False
    text = excerpt[0].text.strip()
    return len(text) <= TEASER_CHARS and len(sentence_ends(text)) == 1


def _off_the_point(text: str, point: Sequence[Block], title: str) -> bool:
    """A one-line excerpt that names at most one of the title's words while the lede's first
    sentence names three or more (and two more than it): a hook ("Raspberry Pi users might be
    even happier.", "And this time it is valued at $6 billion") beside a lede that says it
    all."""
    found = opening_sentences([point[0]]) if point else []
    if not found:
        return False
    words = title_words(title)
    index, start, end = found[0]
    mine, lede_names = shared(text, words), shared(point[index].text[start:end], words)
    return mine <= EXCERPT_NAMES and lede_names >= max(LEDE_NAMES, mine + EXCERPT_MARGIN)


def _site_cut(excerpt: Sequence[Block]) -> bool:
    """The excerpt ends with the site's cut ("…", "[…]", "Read more"): an automatic one."""
    return bool(excerpt) and bool(CUT_MARKS.search(excerpt[-1].text.rstrip()))


def is_teaser(blocks: Sequence[Block]) -> bool:
    """One short sentence ("Raspberry Pi users might be even happier."): a hook, not the point."""
    if len(blocks) != 1 or blocks[0].kind != "p":
        return False
    text = blocks[0].text.strip()
    whole = not looks_cut(blocks)  # an excerpt cut mid-sentence is the site's, not a hook
    return whole and len(sentence_ends(text)) == 1 and len(text) <= TEASER_CHARS


def _after_label(rest: Sequence[Block]) -> list[Block]:
    """What a label introduces: the list right after it, else the next paragraph or quote
    (`rest` holds no noise: code and captions are already out)."""
    items: list[Block] = []
    for block in rest:
        if block.kind == "li":
            items.append(block)
        elif items or block.kind == "h":
            break
        else:
            return [block]
    return items


def _without_prefix(block: Block, length: int) -> Block:
    """The block without its first `length` characters of (normalised) text."""
    runs: list[Run] = []
    skip = length
    for run in block.runs:
        text = unicodedata.normalize("NFKC", run.text)
        if skip >= len(text):
            skip -= len(text)
            continue
        runs.append(
            Run(text[skip:].lstrip() if skip else text, run.href, run.bold, run.italic, run.code)
        )
        skip = 0
    return Block(block.kind, tuple(runs), block.number)


def _is_beginning(excerpts: Sequence[Sequence[Block]], blocks: Sequence[Block]) -> bool:
    """One of the readings of the excerpt is the body's first words (as generators cut
    them), not written apart; the body's words are read once for all of them."""
    theirs = words_of(" ".join(b.text for b in blocks[:40]).casefold())
    joined = " ".join(theirs)
    for excerpt in excerpts:
        mine = words_of(" ".join(b.text for b in excerpt).casefold())  # none: the beginning
        head = mine[: max(len(mine) - 2, 1)][:BEGINNING_WORDS]  # the last words may be cut
        if theirs[: len(head)] == head or " ".join(head) in joined:
            return True
    return False


def looks_cut(blocks: Sequence[Block]) -> bool:
    """The site cut this text: it ends in "…", "[…]", "Read more", or mid-sentence."""
    if not blocks:
        return False
    text = blocks[-1].text.rstrip()
    if CUT_MARKS.search(text):
        return True
    return bool(text) and text[-1] not in ".!?…。！？\"'”’)]」』）】:"


def without_cut_marks(runs: Sequence[Run]) -> tuple[Run, ...]:
    """The runs without a trailing "…", "[…]" or "Read more" (the site's cut mark)."""
    text = "".join(run.text for run in runs)
    mark = CUT_MARKS.search(text)
    if mark is None:
        return tuple(runs)
    return head_runs(runs, mark.start())
