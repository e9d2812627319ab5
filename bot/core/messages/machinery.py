"""Lines that say nothing the title does not: skipped so the summary reaches the post's point.

Read post by post (70 posts from 49 feeds, issue 42), two thirds of the summaries were no
better than the feed's description cut at three sentences, because the first sentences were
machinery: a newsletter's sponsor line and "This week in …:", a Blogger series intro ("This is
another post in our … series. A version of this post originally appeared in …"), "Dear … fans
and users,", a deals post's cross-promotion paragraph of links, podcast show notes (bullets of
link titles), aggregator lines (Hacker News "Article URL:", "Points: 336", Reddit "submitted
by /u/… to /r/…", "[1143 comments]"), label lines ("Tags:", "Follow-up:"), "click here to
read", and sentences that only repeat the title. Each shape below is one of those; a sentence
is skipped, the rest of its paragraph kept. Lists lose an item only to these shapes (a link
list's item is a show note), never to how it starts.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

from bot.core.messages.blocks import Block, Run, head_runs, with_next
from bot.core.messages.sentences import sentence_ends
from bot.core.text import words_of

_SHAPES = (
    # aggregators: Hacker News, Reddit, Slashdot, Lobsters
    r"(?:article|comments?|story|discussion|source|link|via)(?: url| link)?\s*:\s*(?:https?://|www\.)\S*",
    r"(?:points|score|votes|#\s*comments|comments|replies|views)\s*:\s*[\d,.]+",
    r"submitted by\s+\S+.*",
    r"(?:\[\s*(?:link|comments?|[\d,.]+\s+comments?)\s*\]\s*)+",
    r"\(?[\d,.]+\s+(?:comments?|points|replies|votes)\)?",
    # sponsors and promotion
    r".{0,120}\b(?:brought to you by|sponsored by|presented by|in partnership with"
    r"|thanks to (?:our|this week's|today's) sponsors?|today's sponsor|a word from our sponsors?"
    r"|this (?:episode|issue|week's issue|newsletter|post|video|edition) is (?:sponsored|supported"
    r"|brought to you|made possible))\b.*",
    r"(?:use|with) (?:the )?(?:code|coupon|promo code)\s+\S+.*",
    r"(?:want|looking for|need|get|grab|buy) (?:some |our |your |the )?.{0,80}\b(?:merch"
    r"|merchandise|t-?shirts?|tee-?shirts?|mugs?|hoodies?|stickers?|posters?)\b.*",
    r"(?:check out|visit|shop|support us (?:on|at|via)|become a (?:patron|member|supporter))"
    r"\b.{0,40}\b(?:store|shop|merch|patreon|ko-fi|membership|supporter program)\b.*",
    r".{0,200}\b(?:with|use|using|enter) (?:the )?(?:code|coupon|promo code|offer code)\b.*",
    r"(?:full )?(?:transcript|show notes)(?: and (?:show notes|transcript))? (?:at|on|here)\b.*",
    r"(?:related|see also|read also|also read|read next|previously|further reading|more deals"
    r"|related deals|more from [\w' ]{1,30}|elsewhere|you (?:might|may) also like|recommended"
    r"(?: reading)?|also on [\w' ]{1,30}|don't miss)\s*(?:[:\-–—].*)?",
    r"(?:\w+ )?(?:click|tap) here\b.*",
    r"(?:to )?(?:read|see|view) (?:this|the) (?:full )?(?:article|post|story)(?: in full)?,?"
    r" (?:please )?(?:click|tap|go|visit|head)\b.*",
    r"(?:and )?(?:e-?mail|contact|message|write to|follow|tweet at) (?:me|us|him|her|them|\w+)"
    r"(?: \w+)? (?:here|at|on|via)\b.{0,60}",
    r".{0,80}\bclick here to (?:read|see|view|download|listen|watch|learn|find|get|register)\b.*",
    # greetings, series and edition intros
    r"(?:dear|hello|hi|hey|greetings|howdy|hola|estimad[oa]s?|querid[oa]s?)\b[^.!?]{0,80}[,!:]?",
    r"this (?:is|post is) (?:another|the (?:\w+ )?(?:post|part|installment|entry|article)"
    r"|part \w+|a(?:nother)? (?:post|entry|installment|article)|the latest(?: post| installment)?"
    r"|a (?:continuation|follow-?up|sequel))\b.{0,120}\bseries\b.*",
    # a series' way in: "You can start at the beginning if you'd like!"
    r"(?:you can |you may want to |feel free to )?(?:start|begin|catch up|read)\b.{0,40}"
    r"\b(?:at the beginning|from the (?:beginning|start)|(?:the )?(?:first|previous|earlier)"
    r" (?:parts?|posts?|installments?|articles?|entries|entry|episodes?))\b.*",
    r"welcome (?:back )?to (?:the |this |another |our )?.{0,60}(?:edition|issue|episode"
    r"|installment|newsletter|roundup|digest|series)\b.*",
    r"this (?:week|month) in\b.{0,60}:",
    r"a version of this (?:post|article|story|piece) (?:originally |first )?(?:appeared|ran"
    r"|was (?:originally |first )?published)\b.*",
    r"(?:you can )?download (?:a|the) (?:printer-friendly|printable|pdf) version\b.*",
    # the site's cut and picture credits, when a feed puts them in the text
    r"(?:continue reading|read more|read the rest|keep reading)(?: (?:on|at)\b.{0,60})?[\s.…»›→]*",
    r"enlarge\s*/.*",
    r".{0,250}\((?:image |photo |picture )?credits?\s*:[^()]*\)",
    # label lines
    r"(?:tags?|labels?|categories|category|filed under|posted in|topics?|keywords?"
    r"|follow-?ups?|full changelog)\s*[:：].*",
    r"(?:show notes|links|links (?:from|for) (?:the|this) (?:show|episode)|sponsors?"
    r"|(?:pre|post|after)[- ]?show"
    r"|this episode's sponsors?|chapters|timestamps|credits)\s*[:：]?",
    # a machine's key and value ("created_by = iD 2.30", "closed:note = 438;440"): data
    r"(?-i:[a-z][a-z0-9_.:-]*) ?=(?!=) ?\S.*",
    # a raw address with a label
    r"[\w #.'-]{1,30}:\s*(?:https?://|www\.)\S+",
)
_MACHINERY = re.compile("^(?:" + "|".join(_SHAPES) + ")$", re.IGNORECASE | re.DOTALL)
# "Somebody writes:" (Slashdot, Reddit, link blogs): the submitter, not the news.
_ATTRIBUTION = re.compile(
    r"^[^.:!?\n]{2,100}?\b(?:writes|reports|shares|notes|explains|adds|quotes|summarizes"
    r"|points out|tells us)(?: [^.:!?]{0,60})?:\s+(?=\S)",
    re.IGNORECASE,
)
# A line that introduces the sponsors' list ("This episode is sponsored by:", "Sponsors:"):
# the items under it are sponsor reads, with or without a promo code.
_SPONSORS_INTRO = re.compile(
    r"^(?:.{0,120}\b(?:sponsored|brought to you|supported|made possible) by"
    r"|(?:this episode's |our )?sponsors?|thanks to (?:our|this week's|today's) sponsors?)"
    r"\s*[:：]$",
    re.IGNORECASE | re.DOTALL,
)
# A news source's name after a linked headline (Google News: "… 200 cas recensés  Le Soir"):
# a few capitalised words or a domain, no sentence.
_SOURCE_NAME = re.compile(
    r"^(?:[A-Z0-9\u00c0-\u00de][\w.&'’-]*(?: [\w.&'’-]+){0,3}|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})$"
)
# A site's name after a title: " - Example News", " | The Blog", " - news.example" (a few
# capitalised words or a domain, not a subtitle: " - crews accept a new contract").
_SITE_SUFFIX = re.compile(
    r"\s+[-–—|·]\s+(?:(?:[A-Z0-9][\w'’&]*|of|the|and|de|la|&)(?: |$)){1,4}$"
    r"|\s+[-–—|·]\s+[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}$"
)
# A changelog item's credits after its text: "#4219 @w3irdrobot", "by @ana in #12", "(#88)".
_CREDITS = re.compile(
    r"(?:[\s,;]+(?:(?:by|thanks(?: to)?|from|in)\s+)?(?:\(#\d+\)|#\d+|gh-\d+|@\w[\w.-]*))+"
    r"\s*$",
    re.IGNORECASE,
)
_DASHES = frozenset("-–—|·")
MAX_MACHINERY_CHARS = 300  # a longer paragraph is the post, whatever it opens with
CARD_CHARS = 120  # a lone link's name this long at most is a card, not a linked sentence
HEADLINE_CHARS = 20  # a linked headline, then only its source: a news aggregator's cluster
LINK_SHARE = 0.6  # a paragraph of three or more links that are most of its text is promotion
ATTRIBUTION_WITHIN = 8  # sentences searched for the news after "Somebody writes:"
SENTENCE_BLOCKS = 8  # paragraphs read sentence by sentence: a summary shows at most three
_SHORT = 3  # words shorter than this do not tell a title's words apart
# Function words: "You can run X with Y" says no more than the title "How to run X with Y".
_FUNCTION_WORDS = frozenset(
    {"the", "and", "for", "you", "your", "can", "how", "what", "why", "this", "that", "these",
     "those", "with", "from", "our", "its", "has", "have", "had", "are", "was", "were", "will",
     "here", "there", "now", "just"}
)  # fmt: skip


def is_machinery(text: str) -> bool:
    """A line or sentence that is an aggregator's, a sponsor's or a label, not the post's."""
    plain = unicodedata.normalize("NFKC", text).strip()
    return len(plain) <= MAX_MACHINERY_CHARS and bool(_MACHINERY.match(plain))


def is_link_list(block: Block) -> bool:
    """A show note or a cross-promotion: an item that is only a link, or a paragraph of three
    or more links that are most of its text."""
    linked = [run for run in block.runs if run.text.strip() and run.href and run.href[:1] != "#"]
    if not linked:
        return False
    if block.kind == "li":
        tail = " ".join(r.text for r in block.runs if not r.href).strip(" ,.;:-–—|·•()\u00a0")
        if not tail:
            return True
        shown = [run for run in block.runs if run.text.strip()]
        first_plain = next(i for i, run in enumerate(shown) if not run.href)
        headline = sum(len(run.text.strip()) for run in shown[:first_plain])
        return (
            headline >= HEADLINE_CHARS
            and all(not run.href for run in shown[first_plain:])
            and bool(_SOURCE_NAME.match(tail))
        )
    share = sum(len(run.text.strip()) for run in linked) / max(len(block.text.strip()), 1)
    return _anchors(block.runs) >= 3 and share >= LINK_SHARE


def _anchors(runs: Sequence[Run]) -> int:
    count, previous = 0, None
    for run in runs:
        if run.href and run.href != previous and run.text.strip():
            count += 1
        previous = run.href if run.text.strip() else previous
    return count


def idle(block: Block) -> bool:
    """Machinery as a whole block: never shown, not even when nothing else is left. A text
    block of symbols only ("★", a permalink glyph; "* * *", a section break) says nothing."""
    return (
        is_machinery(block.text)
        or is_link_list(block)
        or (block.kind in ("p", "quote", "h") and not any(c.isalnum() for c in block.text))
    )


def repeats_title(text: str, title: str) -> bool:
    """Every word of `text` is in the title, but for a site's name after it ("… - Example
    News", "… | Blog"): it tells the reader nothing new."""
    theirs = {w for w in words_of(title.casefold()) if len(w) >= _SHORT}
    suffix = _SITE_SUFFIX.search(text) if _DASHES.intersection(text) else None
    if suffix and suffix.start() > 0:
        text = text[: suffix.start()]
    mine = [w for w in words_of(text.casefold()) if len(w) >= _SHORT]
    content = [w for w in mine if w not in _FUNCTION_WORDS or w in theirs]
    return bool(content) and bool(theirs) and all(w in theirs for w in content)


def substantive(blocks: Sequence[Block], title: str = "") -> list[Block]:
    """`blocks` without machinery: whole blocks that are machinery or link lists go, and in a
    paragraph each machinery sentence (or one only repeating the title) goes; after "Somebody
    writes:" the paragraph starts at the first sentence about the title."""
    return list(each_substantive(blocks, title))


def each_substantive(blocks: Iterable[Block], title: str) -> Iterator[Block]:
    """`substantive`, one block at a time: a summary reads only as far as it shows."""
    kept_any = False
    sponsors = False  # inside the list a sponsors' line introduced
    shift = 0  # items renumbered after a skipped first one
    skipped = 0  # the depth of the item skipped last: its sub-items detail it, and go with it
    for index, (block, following) in enumerate(with_next(blocks)):
        if block.kind == "li" and (sponsors or 0 < skipped < block.depth):
            continue
        skipped = 0
        if block.kind != "li":
            shift = 0
        elif shift and block.number is not None:
            block = Block("li", block.runs, block.number - shift, block.depth)
        sponsors = bool(_SPONSORS_INTRO.match(unicodedata.normalize("NFKC", block.text).strip()))
        if idle(block) and not _topic(block, following):
            skipped = block.depth if block.kind == "li" else 0
            continue
        if kept_any and following is not None and _link_card(block):
            continue  # "Wild Flavors All Year Round" between the text: another post's card
        if block.kind == "li" and not kept_any and index < 2 and repeats_title(block.text, title):
            shift = 1  # a news cluster's first headline is the title again: 2. reads 1.
            continue
        if block.kind not in ("p", "quote") or index >= SENTENCE_BLOCKS:
            kept_any = True
            yield without_credits(block) if block.kind == "li" else block
            continue
        kept = _sentences_kept(block, title if index < 2 and not kept_any else "")
        if kept is not None:
            kept_any = True
            yield kept


def without_credits(block: Block) -> Block:
    """A list item without the issue numbers and handles that credit it ("… in a structured
    format. #4219 @w3irdrobot"): who filed it is not what changed. Kept when nothing else is
    left, or when a line introduced them ("or tweet: @ana")."""
    text = block.text
    found = _CREDITS.search(text) if ("#" in text or "@" in text) else None
    if found is None or found.start() == 0:
        return block
    rest = text[: found.start()].rstrip()
    if not rest or rest.endswith(":") or _CREDITS.fullmatch(" " + rest):
        return block
    return Block(block.kind, head_runs(block.runs, len(rest)), block.number, block.depth)


def _link_card(block: Block) -> bool:
    """A paragraph that is one link's name and no sentence (Medium's embed of another post):
    between the post's own paragraphs, not its words. (Alone, it is a link post's.)"""
    hrefs = {run.href for run in block.runs if run.text.strip()}
    href = hrefs.pop() if len(hrefs) == 1 else None
    return (
        block.kind == "p"
        and href is not None
        and not href.startswith("#")
        and len(block.text) <= CARD_CHARS
        and not block.text.rstrip().endswith((".", "!", "?", "…", "。"))
    )


def _topic(block: Block, following: Block | None) -> bool:
    """A linked item with sub-items is a show's topic ("Apple's FaceTime bug" over its
    sources), not a show note's link: a label item ("Follow-up:") is not one."""
    return (
        following is not None and following.depth > block.depth > 0 and not is_machinery(block.text)
    )


def _sentences_kept(block: Block, title: str) -> Block | None:
    text = block.text
    start = 0
    attribution = _ATTRIBUTION.match(text)
    if attribution:
        start = attribution.end()
    pieces: list[tuple[int, int]] = []
    for end in sentence_ends(text):
        if end <= start:
            continue
        pieces.append((start, end))
        start = end
    kept = [(a, b) for a, b in pieces if not is_machinery(text[a:b])]
    if title and kept and repeats_title(text[kept[0][0] : kept[0][1]], title):
        kept = kept[1:]  # even the only one: a description that is the title says nothing
    if attribution and title:
        kept = _from_the_news(text, kept, title)
    if not kept:
        return None
    if kept == pieces and not attribution:
        return block
    runs: list[Run] = []
    for a, b in kept:
        runs.extend(_slice(block.runs, a, b, lead=bool(runs)))
    return Block(block.kind, tuple(runs), block.number)


def _from_the_news(text: str, kept: list[tuple[int, int]], title: str) -> list[tuple[int, int]]:
    """From the first sentence (of the first few) that shares the most words with the title,
    when it shares two more than the opening one (a submission's background before its news)."""
    theirs = {w for w in words_of(title.casefold()) if len(w) >= _SHORT}

    def shared(piece: tuple[int, int]) -> int:
        return len({w for w in words_of(text[piece[0] : piece[1]].casefold()) if w in theirs})

    if not kept:
        return kept
    counts = [shared(piece) for piece in kept[:ATTRIBUTION_WITHIN]]
    best = counts.index(max(counts))
    return kept[best:] if counts[best] >= counts[0] + 2 else kept


def _slice(runs: Sequence[Run], start: int, end: int, *, lead: bool) -> list[Run]:
    """The runs' characters `start`..`end`, styles kept; `lead`: a space before (a sentence
    following another that was kept)."""
    out: list[Run] = []
    position = 0
    for run in runs:
        low, high = max(start, position), min(end, position + len(run.text))
        if low < high:
            out.append(
                Run(
                    run.text[low - position : high - position],
                    run.href,
                    run.bold,
                    run.italic,
                    run.code,
                )
            )
        position += len(run.text)
    while out and not out[0].text.strip():
        out.pop(0)
    while out and not out[-1].text.strip():
        out.pop()
    if out:
        first = out[0]
        opening = (" " if lead else "") + first.text.lstrip()
        out[0] = Run(opening, first.href, first.bold, first.italic, first.code)
        last = out[-1]
        out[-1] = Run(last.text.rstrip(), last.href, last.bold, last.italic, last.code)
    return out
