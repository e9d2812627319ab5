"""The ranked digest's opening paragraph: the operator's model's, or the extractive one.

With a model configured, it is asked for two or three sentences about the digest's top posts,
each ending with the numbers of the posts it is from ("… in Lisbon [1][3]."). Its answer is
untrusted text (`modeltext.read_reply`: no markup, no links, at most three sentences) and is
shown only when every sentence cites at least one post, cites only posts numbered in the
digest, and every number and name in it appears in the posts it cites (`explain.grounded_in`):
a sentence citing [7] of a five-post digest, or naming a company no cited post names, is the
model's invention, and the extractive opening is shown instead. Why per sentence: a paragraph
mostly right still puts a wrong fact under a real post's number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.core.lang import ENGLISH, Translator
from bot.core.messages.explain import grounded_in
from bot.core.messages.modeltext import LANGUAGE_NAMES, read_reply
from bot.core.messages.ranked import Entry
from bot.core.messages.render import to_plain
from bot.core.text import shorten

OPENING_POSTS = 3  # the extractive opening names the first three
MAX_INPUT_CHARS = 600  # of each post's text in the prompt
OPENING_TASK = (
    "Write the opening paragraph of a news digest in {target}: two or three short sentences "
    "about the most important posts below. End every sentence with the numbers of the posts "
    "it is from, in brackets, like [1] or [2][3]. Use only names and numbers that appear in "
    "those posts. Plain text, no links, no markup."
)
_CITATION = re.compile(r"\[(\d{1,3})\]")
# A sentence ends at . ! ? and a space (not inside "v2.1" or an address), or at 。！？.
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[^\s\[])|(?<=[。！？])\s*(?=[^\s\[])")


def extractive(entries: Sequence[Entry], tr: Translator = ENGLISH) -> str:
    """The first posts' titles with their numbers: always true, never invented."""
    named = [f"{shorten(e.post.title, 90)} [{n}]" for n, e in enumerate(entries[:OPENING_POSTS], 1)]
    if not named:
        return ""
    return tr.gettext("Top stories: {titles}.").format(titles="; ".join(named))


def prompt(entries: Sequence[Entry], language: str) -> list[dict[str, str]]:
    """The chat-completions messages: the top posts, numbered as the digest numbers them."""
    target = LANGUAGE_NAMES.get(language, language)
    parts = [
        f"[{n}] Title: {e.post.title}\nSource: {', '.join(e.feeds)}\n"
        f"Text: {e.post.text[:MAX_INPUT_CHARS]}"
        for n, e in enumerate(entries, 1)
    ]
    return [
        {"role": "system", "content": OPENING_TASK.format(target=target)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def accepted(reply: str, entries: Sequence[Entry], sent: str) -> str | None:
    """The model's paragraph when every sentence passes (the module's rule), else None.
    `sent`: the prompt's text (links in it may stay, as in a summary)."""
    read = read_reply(reply, None, sent)
    if read is None or read.summary is None:
        return None
    sentences = [s.strip() for s in _SENTENCE.split(read.summary) if s.strip()]
    if not sentences:
        return None
    for sentence in sentences:
        cited = [int(n) for n in _CITATION.findall(sentence)]
        if not cited or any(not 1 <= n <= len(entries) for n in cited):
            return None
        source = " ".join(_source(entries[n - 1]) for n in cited)
        if not grounded_in(_CITATION.sub(" ", sentence), source):
            return None
    return read.summary


def _source(entry: Entry) -> str:
    post = entry.post
    return " ".join((post.title, to_plain(post.summary), post.text, *entry.feeds))
