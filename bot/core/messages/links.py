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
from urllib.parse import urljoin

from bot.core.urls import safe_link

_ANCHOR = re.compile(r'<a href="[^"]*">(.*?)</a>', re.DOTALL)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # an absolute reference (or mailto:, …)


def resolved(href: str | None, base: str) -> str | None:
    """The link a run shows: an absolute http(s) `href`, or a relative one resolved against
    `base` (the post's address); None for a link within the page (`#map`) or any other."""
    if not href:
        return None
    link = safe_link(href)
    if link is not None or not base or href.startswith("#") or _SCHEME.match(href):
        return link
    try:
        return safe_link(urljoin(base, href.strip()))
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
