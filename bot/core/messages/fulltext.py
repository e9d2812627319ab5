"""Full text for excerpt-only feeds: which pages to read, and how an article joins its post.

Detection stays on the feed's own content (a page's navigation, ads and comments change all
the time and are not the post's edits); the article only feeds what a reader sees: the
summary, the `full` format and the image of a new post's message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from bot.core.messages.article import Article
from bot.core.messages.boilerplate import CUT_MARKS
from bot.core.types import ParsedItem

SHORT_WORDS = 120  # a description this short is a teaser, not the post
_WORD = re.compile(r"\w+")
_APPEARED_FIRST = re.compile(r"\bappeared first on\b", re.IGNORECASE)


def is_excerpt(item: ParsedItem) -> bool:
    """The feed gives only part of this post: cut with "…", "[…]" or "Read more", WordPress's
    "The post … appeared first on …", or only a short description."""
    text = item.text.strip()
    if not text:
        return False
    last = text.splitlines()[-1]  # the last paragraph: where sites put their cut marks
    if CUT_MARKS.search(last) or _APPEARED_FIRST.search(last):
        return True
    return not item.full and len(_WORD.findall(text)) < SHORT_WORDS


def excerpt_only(items: Sequence[ParsedItem]) -> bool:
    """Every item of the document is an excerpt (the hint to turn full text on)."""
    return bool(items) and all(is_excerpt(item) for item in items)


def with_article(item: ParsedItem, article: Article) -> ParsedItem:
    """The post as a reader sees it: the article's text in place of the feed's excerpt, and
    its image when the feed gave none."""
    if not article.ok:
        return item
    return replace(item, html=article.html, full=True, image=item.image or article.image)
