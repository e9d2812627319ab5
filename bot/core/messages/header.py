"""A message's header: what the post is called, who wrote it, and the few categories that help.

Read by eye (issue 42): untitled posts (Mastodon, micro-blogs) arrived as "(untitled)" or, in
the flood list and the digest, as an empty anchor that cannot be tapped; bylines repeated the
feed ("DC Rainmaker · DC Rainmaker") or showed "(noreply@blogger.com)"; categories ran to ten
tags with "Uncategorized", "Blog" on every post, status tags ("Done"), iTunes keyword lists and
tags that repeat the title. Each takes a phone line and tells the reader nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from bot.core.messages.sentences import sentence_ends

NAME_CHARS = 80  # an untitled post's name: its first words, about one phone line and a half
SENTENCE_NAME_CHARS = 110  # its first sentence names it whole up to this (under three lines)
OWN_MESSAGE_NAME_CHARS = 200  # in its own message, where the name is all a one-sentence note says
MAX_CATEGORIES = 4
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_EMPTY_BRACKETS = re.compile(r"\(\s*\)|<\s*>|\[\s*\]")
# A site's address or an automation account, where a feed names no person ("www.qq.com",
# "github-actions[bot]"): the message's source line names the feed already.
_NOT_A_PERSON = re.compile(
    r"(?:https?://|www\.)\S+|[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|info|news|blog|dev|app|tv"
    r"|co|cn|ru|de|fr|jp|uk|es|it|nl|br|in|kr|tw|hk|au|ca|eu)/?|[\w.-]+\[bot\]",
    re.IGNORECASE,
)
# Tags every post of a blog carries, or that say where a post is in a workflow: not its topic.
_GENERIC = frozenset(
    {"uncategorized", "uncategorised", "sin categoría", "sin categoria", "non classé",
     "non classe", "sem categoria", "未分类", "未分類", "general", "blog", "blogs", "post",
     "posts", "article", "articles", "misc", "miscellaneous", "other", "others", "default",
     "featured", "home", "main", "all", "news", "noticias", "update", "updates",
     "done", "open", "closed", "draft", "published", "fixed", "resolved", "wontfix",
     "won't fix", "in progress", "todo", "to do", "new", "duplicate", "invalid", "status",
     "podcast", "podcasts", "episode", "episodes", "video", "videos"}
)  # fmt: skip


def post_name(
    title: str, text: str = "", link: str | None = None, sentence: int = SENTENCE_NAME_CHARS
) -> str:
    """The title, else the post's first sentence when it is short (a Mastodon status, a
    micro-blog note: the summary then goes on from the next one instead of repeating it), else
    its first words, else its address: never empty while there is anything to show.
    `sentence`: the longest first sentence shown whole (longer in the post's own message than
    in a list of posts)."""
    if title.strip():
        return title.strip()
    words = " ".join(_URL.sub(" ", text).split())
    if words:
        first = words[: sentence_ends(words)[0]]
        if len(first) <= sentence:
            return first
        return _first_words(words, NAME_CHARS)
    return link or ""


def _first_words(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:—-") + "…"


def shown_author(author: str | None, feed_title: str, title: str = "") -> str | None:
    """The author without e-mail addresses (Blogger's "noreply@blogger.com (Name)"), or None
    when nothing is left, it repeats the feed's name or the title, or it is a site's address
    or a bot account."""
    if not author:
        return None
    name = _EMPTY_BRACKETS.sub(" ", _EMAIL.sub(" ", author))
    name = " ".join(name.split()).strip(" ,;·-")
    if name.startswith("(") and name.endswith(")") and name.count("(") == 1:
        name = name[1:-1].strip()  # "(Ana Ruiz)" left by the address before it
    folded, feed = _fold(name), _fold(feed_title)
    if not folded or folded in (feed, _fold(title)) or _NOT_A_PERSON.fullmatch(name):
        return None
    if feed and folded.startswith(feed + " "):
        return None  # "Blog Name-Independent journalism": the feed's name with its motto
    return name


def shown_categories(
    categories: Sequence[str], title: str = "", feed_title: str = "", author: str | None = None
) -> list[str]:
    """At most `MAX_CATEGORIES`, without the generic or status tags, keyword lists (iTunes),
    tags that repeat the title, the feed's name (its initials: "TC" on every TechCrunch post)
    or the author ("GiantBomb" for "Giant Bomb"),
    or that a longer tag of the post already says ("ACM" beside "ACM算法")."""
    repeated = {_fold(feed_title), _fold(author or "")}
    repeated |= {name.replace(" ", "") for name in repeated if name} | _initials(feed_title)
    title_words = f" {_fold(title)} "
    feed_words = f" {_fold(feed_title)} "  # "Changelog" on every post of "Windsurf Changelog"
    kept: list[tuple[str, str]] = []  # (folded, as shown)
    for category in categories:
        folded = _fold(category)
        if not folded or folded in _GENERIC or folded in repeated:
            continue
        if category.count(",") >= 2 or f" {folded} " in title_words + feed_words:
            continue
        if folded not in (f for f, _ in kept):
            kept.append((folded, _unslashed(category.strip())))
    out = [shown for folded, shown in kept if not any(_within(folded, f) for f, _ in kept)]
    return out[:MAX_CATEGORIES]


@lru_cache(maxsize=1024)
def _initials(name: str) -> frozenset[str]:
    """The initials of a name written as one word of capitalised parts ("TechCrunch": "tc"),
    which such sites tag every post with; a name of several words ("Apple News": "an") is
    left alone, its initials too likely a topic's."""
    words = [w for w in re.split(r"\s*[:|\-–—]\s*", name.strip())[0].split() if w]
    if len(words) != 1:
        return frozenset()
    parts = re.findall(r"[A-Z][a-z]+", words[0])
    return frozenset({"".join(p[0] for p in parts).casefold()} if len(parts) >= 2 else ())


def _within(tag: str, other: str) -> bool:
    """`tag` is part of the longer `other`, not inside one of its words: "acm" of "acm算法"
    and "linux" of "linux kernel", not "comics" of "webcomics"."""
    if len(other) <= len(tag):
        return False
    at = other.find(tag)
    while at >= 0:
        before = other[at - 1] if at else " "
        after = other[at + len(tag)] if at + len(tag) < len(other) else " "
        if not _latin(before) and not _latin(after):
            return True
        at = other.find(tag, at + 1)
    return False


def _latin(char: str) -> bool:
    """A letter or digit of a script that spaces its words (Chinese and Japanese do not)."""
    return char.isalnum() and unicodedata.east_asian_width(char) not in ("W", "F")


def _unslashed(text: str) -> str:
    """A quote a PHP site escaped twice ("angie\\'s list") as the author wrote it."""
    return text.replace("\\'", "'").replace('\\"', '"').replace("\\’", "’")


def _fold(text: str) -> str:
    """Case, width and punctuation folded ("DC Rainmaker" = "dc-rainmaker"); a name of
    symbols only (emoji) is compared as it is."""
    plain = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w'’]+", " ", plain).split()) or " ".join(plain.split())
