"""The post's point first: hooks and background before the news are skipped.

Read by a reader who had not seen the posts (74 real posts, issue 42), the most common fault of
the summary (17 posts) was its opening: a teaser or background where the post's point was one
to three sentences later. A news post told its history first ("It has been over a year since
…") and its news in sentence three; a hand-written excerpt was a hook that shares nothing with
the title ("Raspberry Pi users might be even happier.") while the lede named it all; posts
opened with "Hey, remember …?", "Oops!", "Here is the big news.", "In my last post I …",
"As you may know, …", "Last week we …", or a release post with its thanks. Three shapes, each
skipped only when a sentence that carries the point follows within the opening:

- a hook: an exclamation or a question of a few words, or a line that only announces news
  ("Here is the big news."); never the post's only sentence;
- background: a sentence that looks back ("Last year we …", "In my previous post …", "It has
  been a year since …", "As you may know, …") or thanks, skipped only when what follows names
  the title's subject at least as well;
- before the news: an opening that shares at most one word with the title and states no news,
  followed within four sentences by one that does ("Today we launch …", "… is now available")
  and shares two more of the title's words.

Only the first `WINDOW` sentences of the leading paragraphs are read (they are short: the
summary shows three), so a post is read once more at most over a few hundred characters.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import chain

from bot.core.messages.blocks import Block, LazyBlocks, Run
from bot.core.messages.sentences import sentence_ends
from bot.core.text import words_of

WINDOW = 4  # sentences of the opening read for its point
WINDOW_CHARS = 600  # of a paragraph, read for those sentences (a summary shows ~600)
FIRST_CHARS = 300  # of the first paragraph, read to decide whether to read on
MOST_SKIPPED = 3  # hooks and background skipped at most
HOOK_WORDS = 4  # an exclamation this short is a hook ("Oops!", "Video games!")
QUESTION_CHARS = 80  # a question this short that opens the post is a hook
NEWS_MARGIN = 2  # title words the news shares beyond the opening's
EXCERPT_MARGIN = 2  # title words the lede names beyond a one-line excerpt that gives way to it
EXCERPT_NAMES = 1  # ... which names at most this many of them
LEDE_NAMES = 3  # ... while the lede's first sentence names at least this many
TARGET_WORDS = 3  # the sentence a summary starts at has at least this many words
_SHORT = 3  # words shorter than this do not tell a title's words apart
_FUNCTION_WORDS = frozenset(
    {"the", "and", "for", "you", "your", "can", "how", "what", "why", "this", "that", "these",
     "those", "with", "from", "our", "its", "has", "have", "had", "are", "was", "were", "will",
     "here", "there", "now", "just", "new", "about", "into", "out", "not", "all", "more"}
)  # fmt: skip
# A line that only announces that news follows, or a question asked to hook the reader.
_ANNOUNCING = re.compile(
    r"^(?:here(?:'s|’s| is| are) (?:the|some|our|my|a) (?:big |good |great |latest |exciting )?"
    r"(?:news|update|scoop|thing|story|deal)|(?:big|good|great|exciting|breaking) news"
    r"|guess what|drum ?roll(?: please)?"
    r"|you asked(?: for it)?,? (?:and )?we (?:delivered|listened))"
    r"\b[^.!?]{0,20}[.!:…]*$"
    r"|^(?:hey|so|ever|remember|have you ever|did you know|what if|wondering|looking for"
    r"|want to|ready)\b[^.!?]*\?$",
    re.IGNORECASE,
)
# Looking back at the author's own earlier post, thanks, a season's ritual: never the point.
_META = re.compile(
    r"^(?:(?:in|on|with) (?:my|our|a|the) (?:last|previous|earlier|recent|first) (?:post|article"
    r"|blog post|entry|episode|newsletter|update|issue|part|installment)\b"
    r"|(?:following|further to|as a follow-?up to|after) (?:my|our|the|a) (?:\d{4} )?(?:last "
    r"|previous |earlier |recent )?(?:post|blog post|blog entry|entry|article|announcement)\b"
    r"|it(?:'s|’s| is) that time of (?:the )?year\b"
    r"|(?:first(?: of all)?,? |before (?:we|i) (?:start|begin),? )?(?:a )?(?:big |huge |special "
    r"|heartfelt |many )?thanks?(?: you)?(?: so much| again)? (?:to|for|everyone|all)\b"
    r"|(?:we|i)(?:'d|’d| would) (?:like|love) to (?:start by |first )?thank(?:ing)?\b"
    r"|(?:(?:this is |this will be |here(?:'s|’s| is) |just )?(?:a |an )?(?:small|short|quick"
    r"|brief|little|tiny|mini|wee|long overdue)(?: little)? (?:blog ?post|post|entry|note"
    r"|update|one)\b(?! (?:on|about) )))",
    re.IGNORECASE,
)
# History told before the news: skipped only when what follows names the title better.
_PAST = re.compile(
    r"^(?:(?:late |early )?(?:last|earlier this|this past) (?:week|month|year|summer|spring"
    r"|fall|autumn|winter|time)\b,? (?:we|i)\b"
    r"|(?:a (?:while|few \w+|couple of \w+)|some time|\w+ (?:years|months|weeks)) ago,? (?:we|i)\b"
    r"|back in (?:the day|\d{4}|\w+ \d{4})\b"
    r"|as (?:you )?(?:may|might|probably|already|all|surely)?(?: already)? ?know\b"
    r"|as (?:many|some|most|all) of you (?:may |might |already |probably )?know\b"
    r"|if you(?:'ve|’ve| have) been following\b"
    r"|for those (?:of you )?who (?:don't|don’t|do not|didn't|didn’t|haven't|haven’t) (?:know"
    r"|follow|read)\b"
    r"|it(?:'s|’s| has) been (?:a|an|over|almost|nearly|more than|about|\d+)\b.{0,60}\bsince\b)",
    re.IGNORECASE,
)
# A sentence that opens with these leans on the one before it ("That is, I moved …"): the
# summary does not start there.
_LEANING = frozenset(
    {"that", "it", "those", "such", "which", "they", "he", "she", "but", "however", "yet",
     "still", "also", "instead"}
)  # fmt: skip
# What a sentence that states news says: a release, a launch, an announcement, "now available".
_NEWS = re.compile(
    r"\b(?:launch(?:es|ed|ing)?|releas(?:e|es|ed|ing)|announc(?:e|es|ed|ing)|introduc(?:e|es|ed"
    r"|ing)|unveil(?:s|ed|ing)?|debut(?:s|ed)?|acquir(?:e|es|ed)|ship(?:s|ped)|roll(?:s|ed|ing)?"
    r" out|open[- ]sourc(?:e|es|ed|ing)|(?:is|are) (?:now )?(?:available|out|live|here)"
    r"|(?:has|have) (?:just )?(?:been )?(?:released|launched|published|added|approved|signed"
    r"|sentenced|shut down)|(?:[Ww]e|I)(?:'re|’re| are|'ve|’ve| have)? (?:now )?(?:adding"
    r"|enhancing|improving|bringing|rolling|making|opening|publishing|replacing)"
    r"|[Tt]oday,? (?:[Ww]e|I)\b|(?:excited|pleased|happy|thrilled|proud|delighted) to"
    r" (?:announce|share|release|introduce|launch|unveil|present|welcome))\b"
)  # lower case: "Release" and "Launch" that open a sentence are nouns ("Release: 2.0")


@lru_cache(maxsize=256)
def title_words(title: str) -> frozenset[str]:
    """The title's words that tell it apart (no function words), in a plain form."""
    return frozenset(w for w in _words(title) if w not in _FUNCTION_WORDS)


def shared(text: str, words: frozenset[str]) -> int:
    """How many of the title's `words` the text names."""
    return len(words.intersection(_words(text))) if words else 0


def _words(text: str) -> set[str]:
    out: set[str] = set()
    plain = text if text.isascii() else unicodedata.normalize("NFKC", text)
    for word in words_of(plain.casefold()):
        if len(word) < _SHORT:
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]  # "customers" names the title's "customer"
        out.add(word)
    return out


def is_hook(sentence: str, words: frozenset[str] = frozenset()) -> bool:
    """A few words of exclamation that name nothing of the title and state no news ("Oops!",
    "You asked for it and we delivered!", not "Bun released its version 1.0!"), a short
    question asked to hook ("Hey, remember …?"), or a line announcing that news follows."""
    text = sentence.strip()
    if _ANNOUNCING.match(text):
        return len(text) <= QUESTION_CHARS
    return (
        text.endswith("!")
        and len(text.split()) <= HOOK_WORDS
        and not shared(text, words)
        and not states_news(text)
    )


def is_meta(sentence: str) -> bool:
    """A sentence about the blog, not the news: "In my last post …", thanks, "It's that time of
    the year again", "Small blogpost because I don't feel like writing a long one" (but not "A
    quick post: Kettle 2.0 is out", which states it)."""
    text = sentence.strip()
    return bool(_META.match(text)) and not states_news(text)


def is_past(sentence: str) -> bool:
    """History before the news: "Last week we …", "It has been a year since …"."""
    return bool(_PAST.match(sentence.strip()))


def states_news(sentence: str) -> bool:
    """The sentence says that something happened: released, launched, now available."""
    return bool(_NEWS.search(sentence))


def opening_sentences(blocks: Sequence[Block]) -> list[tuple[int, int, int]]:
    """(block index, start, end) of the first `WINDOW` sentences of the leading paragraphs."""
    found: list[tuple[int, int, int]] = []
    for index, block in enumerate(_from(blocks, 0)):
        if block.kind != "p":
            break
        start = 0
        text = block.text
        read = text[:WINDOW_CHARS]  # a long paragraph's first sentences are all that is read
        for end in sentence_ends(read):
            if end == len(read.rstrip()) and len(read) < len(text):
                return found  # the cut, not a sentence's end
            if text[start:end].strip():
                found.append((index, start, end))
            start = end
            if len(found) >= WINDOW:
                return found
    return found


def point_start(sentences: Sequence[str], title: str) -> int:
    """Which of the opening's sentences the summary starts at (the module's rules): 0, or one
    with a few words that does not lean on the sentence before it."""
    if not sentences or (
        not any(_NEWS.search(s) for s in sentences[1:]) and not _opens_aside(sentences[0])
    ):
        return 0  # the common case, in one regex pass per sentence: nothing to skip for
    words = title_words(title)
    start = 0
    while start < min(MOST_SKIPPED, len(sentences) - 1):
        sentence = sentences[start]
        hook = is_hook(sentence, words) or is_meta(sentence)
        if not hook and not (is_past(sentence) and _names_better(sentences, start, words)):
            break
        start += 1
    if start == 0 and words:
        start = _news_later(sentences, words)
    if start and not _can_open(sentences[start], after_hook=_after_hook(sentences, start, words)):
        return 0
    return start


def _opens_aside(sentence: str) -> bool:
    """The first sentence may be a hook or background (a cheap test before the exact ones)."""
    text = sentence.strip()
    return text.endswith(("!", "?")) or any(p.match(text) for p in (_META, _PAST, _ANNOUNCING))


def _after_hook(sentences: Sequence[str], start: int, words: frozenset[str]) -> bool:
    """The sentence before `start` is a hook, and no skipped one asks a question: "Wow! It's
    a reader." leans on the title, "Growing food? Great! It is …" on the question."""
    return is_hook(sentences[start - 1], words) and not any(
        s.rstrip().endswith("?") for s in sentences[:start]
    )


def _can_open(sentence: str, *, after_hook: bool = False) -> bool:
    """A few words, not leaning on the sentence before; after a hook ("Wow! It's a reader.")
    "it" leans on the title, past the hook, and may open."""
    found = words_of(sentence.casefold())
    return len(found) >= TARGET_WORDS and (
        found[0] not in _LEANING or (after_hook and found[0] == "it")
    )


def _skippable(sentence: str, words: frozenset[str]) -> bool:
    return is_hook(sentence, words) or is_meta(sentence) or is_past(sentence)


def _names_better(sentences: Sequence[str], index: int, words: frozenset[str]) -> bool:
    """The first sentence after `index` that is not skippable states news, or names more of
    the title's words than the history at `index` does."""
    for later in sentences[index + 1 :]:
        if not _skippable(later, words):
            return states_news(later) or shared(later, words) > shared(sentences[index], words)
    return False


def _news_later(sentences: Sequence[str], words: frozenset[str]) -> int:
    """The first sentence stating news and naming `NEWS_MARGIN` more of the title's words than
    the opening, when every sentence before it names at most one and states none."""
    opening = 0
    for index, sentence in enumerate(sentences):
        named = shared(sentence, words)
        if states_news(sentence):
            return index if index and named >= opening + NEWS_MARGIN else 0
        if named > 1:
            return 0
        opening = max(opening, named)
    return 0


def to_the_point(blocks: Sequence[Block], title: str) -> Sequence[Block]:
    """The blocks from the opening sentence that carries the post's point (the module's rules);
    `blocks` themselves when the opening already does. Only the opening is read: `blocks` may
    be decided lazily (`LazyBlocks`), and the rest stays so."""
    if not blocks or blocks[0].kind != "p" or _to_the_point_already(blocks, title):
        return blocks  # decided on the first sentence: later blocks are not read for it
    found = opening_sentences(blocks)
    if len(found) < 2:
        return blocks
    texts = [blocks[i].text[a:b] for i, a, b in found]
    start = point_start(texts, title)
    if start == 0:
        return blocks
    index, offset, _ = found[start]
    block = blocks[index]
    if _inside_link(block.runs, offset):
        return blocks  # "For try! Swift NYC, …": a name's "!", not a sentence's end
    opening = Block(block.kind, tail_runs(block.runs, offset), block.number)
    return LazyBlocks(chain((opening,), _from(blocks, index + 1)))


def _to_the_point_already(blocks: Sequence[Block], title: str) -> bool:
    """No rule would skip the first sentence (most posts): it is no hook nor background, and
    it states news, names two or more of the title's words, or no news follows it in the
    first two paragraphs. Decided before the opening is split into sentences."""
    text = blocks[0].text[:FIRST_CHARS]  # a longer first sentence is judged by its start
    end = sentence_ends(text)[0]
    first = text[:end]
    if _opens_aside(first):
        return False
    if states_news(first) or shared(first, title_words(title)) > 1:
        return True
    following = blocks[0].text[end:WINDOW_CHARS]
    second = next(_from(blocks, 1), None)  # read as far as the summary reads anyway
    if second is not None and second.kind == "p":
        following += " " + second.text[:WINDOW_CHARS]
    return not _NEWS.search(following)


def _from(blocks: Sequence[Block], start: int) -> Iterator[Block]:
    """The blocks from `start` on, read one at a time."""
    index = start
    while True:
        try:
            yield blocks[index]
        except IndexError:
            return
        index += 1


def tail_runs(runs: Sequence[Run], start: int) -> tuple[Run, ...]:
    """The runs from character `start` on, their styles kept, without leading spaces."""
    out: list[Run] = []
    position = 0
    for run in runs:
        end = position + len(run.text)
        if end > start:
            text = run.text[max(start - position, 0) :]
            if not out:
                text = text.lstrip()
            if text:
                out.append(Run(text, run.href, run.bold, run.italic, run.code))
        position = end
    return tuple(out)


def _inside_link(runs: Sequence[Run], offset: int) -> bool:
    """`offset` falls within a link's text, not at its start."""
    position = 0
    for run in runs:
        end = position + len(run.text)
        if position < offset < end:
            return run.href is not None and bool(run.text[: offset - position].strip())
        position = end
    return False
