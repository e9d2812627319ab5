"""Which picture is the post's own: shown large above the message, so a wrong one costs most.

Read on real feeds, about one image in five that a "first image" rule picks is not the post's:
the author's gravatar or a GitHub bot's 60 px avatar, FeedBurner's "FeedFlare" buttons and `~r/`
tracking pixels, a share block's Twitter button, an emoji, a podcast plugin's icons, the blog's
logo in every post, or a 104-150 px thumbnail. Shown large, each is worse than none: without an
image the message gets Telegram's card of the post's page, which is the post's. So a candidate
is kept only when nothing says it is furniture: not an avatar, icon, pixel, emoji, badge or
logo by its address, not inside a share/social/author block, and not declared or sized (in its
attributes, its style or its address, e.g. `?s=60`, `/s72-c/`, `-150x150.jpg`) under
`MIN_SIDE` pixels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from html import unescape
from urllib.parse import parse_qsl, urljoin, urlsplit

from bot.core.urls import safe_link

MIN_SIDE = 300  # pixels: a thumbnail, an avatar or an icon is smaller
MAX_IMAGE_SCAN_CHARS = 20_000  # the post's picture is near its top
ALBUM_LIMIT = 10  # pictures in one Telegram album
# Hosts that serve only avatars, tracking pixels or feed-service buttons.
_FURNITURE_HOSTS = re.compile(
    r"(?:^|\.)(?:gravatar\.com|avatars\.githubusercontent\.com|feeds\.feedburner\.com"
    r"|feedproxy\.google\.com|feeds\.feedblitz\.com|feedsportal\.com|stats\.wordpress\.com"
    r"|pixel\.wp\.com|doubleclick\.net|s\.w\.org|pixel\.[\w.-]+|badge\.fury\.io|shields\.io"
    r"|img\.shields\.io|thumbs\.redditmedia\.com)$",
    re.IGNORECASE,
)
# Words in an image's address (or class) that name furniture, not a post's picture.
_FURNITURE_WORDS = re.compile(
    r"(?<![a-z])(?:avatars?|user_avatar|letter_avatar|gravatar|identicon|emoji|smileys?|smilies"
    r"|icons?|favicon|filetypes?|badges?|buttons?|spacer|blank\.gif|feedflare|~ff|~r|share|sharing|social"
    r"|tweet|twitter|facebook|flattr|paypal|bitcoin|logos?|wp-smiley|subscribe"
    r"|tracking|tracker|pixel\.(?:gif|png)|1x1)(?![a-z])",
    re.IGNORECASE,
)
# Containers whose images are not the post's (share bars, author boxes, related posts).
_FURNITURE_BLOCKS = re.compile(
    r"share|sharing|social|sharedaddy|feedflare|author|avatar|byline|related|comment"
    r"|signature|footer|sponsor|advert|promo|newsletter",
    re.IGNORECASE,
)
# A link to a donation or membership page: the banner inside it asks for money (Brasil de
# Fato's "apoia.se" GIF in the middle of every post without a photo), it shows no post.
_PROMO_LINK = re.compile(
    r"\bhref\s*=\s*[\"']?https?://(?:[\w-]+\.)*(?:apoia\.se|patreon\.com|ko-fi\.com"
    r"|buymeacoffee\.com|paypal\.(?:com|me)|liberapay\.com|opencollective\.com|catarse\.me"
    r"|givebutter\.com|donorbox\.org)\b"
    r"|\bhref\s*=\s*[\"']?[^\"'\s>]*/(?:donate|donations?|doar|doe|apoie|spenden|support-us)\b",
    re.IGNORECASE,
)
# A link straight to a picture file around a thumbnail, or Reddit's "[link]" to it: the post's
# picture at full size (show notes' links to pictures in the text are other sites').
_LINKED_IMAGE = re.compile(
    r"""<a\s[^>]*?\bhref\s*=\s*(?:"(https?://[^"]+?\.(?:jpe?g|png|gif|webp))"|'(https?://[^']+?"""
    r"""\.(?:jpe?g|png|gif|webp))')[^>]*>\s*(?:<img\b|\[link\]\s*</a>)""",
    re.IGNORECASE,
)
_SIZE_IN_PATH = re.compile(
    r"/[swh](\d{1,4})(?:-[a-z0-9-]*)?/|[_-](\d{1,4})x(\d{1,4})(?=[._/-])|/(\d{1,4})x(\d{1,4})/"
    r"|/(?:geometry|resize|thumb|thumbnail|fit)/(\d{1,4})(?:x(\d{1,4}))?/",
    re.IGNORECASE,
)
_SIZE_KEYS = frozenset({"s", "w", "h", "width", "height", "size", "sz"})
_STYLE_SIDE = re.compile(r"(?:^|;)\s*(width|height)\s*:\s*(\d+(?:\.\d+)?)\s*px", re.IGNORECASE)
_VOID = frozenset({"img", "br", "hr", "meta", "link", "input", "source", "wbr", "col", "area"})


@dataclass(frozen=True, slots=True)
class Candidate:
    """An image the feed offers for a post: its address and what the markup says of it."""

    url: str
    width: int | None = None
    height: int | None = None
    furniture: bool = False  # inside a share, social or author block, or classed as such


def own_images(
    candidates: Iterable[object], base: str | None = None, limit: int = ALBUM_LIMIT
) -> tuple[str, ...]:
    """Every candidate that is the post's own picture, in order, each once, at most `limit`
    (an album's worth): the same rules as the one picture shown above a message."""
    found: list[str] = []
    for raw in candidates:
        candidate = _candidate(raw)
        if candidate is None or is_furniture(candidate):
            continue
        address = unescape(candidate.url.strip())
        if base and not urlsplit(address).scheme:
            address = urljoin(base, address)
        link = safe_link(address)
        if link is not None and link not in found:
            found.append(link)
            if len(found) >= limit:
                break
    return tuple(found)


def _candidate(raw: object) -> Candidate | None:
    if isinstance(raw, Candidate):
        return raw
    if isinstance(raw, str):
        return Candidate(raw)
    if isinstance(raw, Mapping):
        url = raw.get("url") or raw.get("href")
        if isinstance(url, str):
            return Candidate(url, _pixels(raw.get("width")), _pixels(raw.get("height")))
    return None


def is_furniture(candidate: Candidate) -> bool:
    """An avatar, icon, pixel, button or thumbnail: never the post's picture."""
    if candidate.furniture or _too_small(candidate.width, candidate.height):
        return True
    address = unescape(candidate.url.strip())
    try:
        parts = urlsplit(address)
    except ValueError:
        return True
    if _FURNITURE_HOSTS.search(parts.hostname or ""):
        return True
    if _FURNITURE_WORDS.search(parts.path) or address.startswith("data:"):
        return True
    if parts.path.lower().endswith((".svg", ".svgz")):
        return True  # Telegram previews no SVG: the page's card shows more
    return _too_small(*_size_in_address(parts.path, parts.query))


def _too_small(width: int | None, height: int | None) -> bool:
    """Declared under `MIN_SIDE`: the width decides when given (a wide banner is a picture)."""
    side = width if width is not None else height
    return side is not None and side < MIN_SIDE


def _size_in_address(path: str, query: str) -> tuple[int | None, int | None]:
    """A size the address asks for: `?s=60`, `?w=150`, `/s72-c/`, `-150x150.jpg`, `/72x72/`."""
    for key, value in parse_qsl(query):
        if key.lower() in _SIZE_KEYS and value.isdigit():
            side = int(value)
            return (side, None) if key.lower() != "h" and key.lower() != "height" else (None, side)
    found = None
    for match in _SIZE_IN_PATH.finditer(path):
        found = match
    if found is None:
        return None, None
    numbers = [int(g) for g in found.groups() if g is not None]
    return numbers[0], numbers[1] if len(numbers) > 1 else None


def _pixels(value: object) -> int | None:
    text = str(value or "").strip().lower().removesuffix("px").strip()
    return int(text) if text.isdigit() else None


_TAG = re.compile(r"<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_MARKED = re.compile(r"(?:class|id)\s*=", re.IGNORECASE)  # a class or id may mark furniture
_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def body_images(html: str) -> Iterator[Candidate]:
    """The images at the top of a post's HTML, in order, each marked when a share, social or
    author block holds it; when none is the post's own, the pictures it links to around a
    thumbnail or as Reddit's "[link]" (to i.imgur.com/….jpg: the picture is the post).
    Lazy: the scan stops at the first one the caller keeps (a regular expression over the
    tags, not a full HTML parse: it runs for every new or changed item)."""
    head = html[:MAX_IMAGE_SCAN_CHARS]
    images = "<img" in head.lower()
    if images:
        own = False
        for candidate in _img_tags(head):
            own = own or not is_furniture(candidate)
            yield candidate
        if own:
            return
    if images or "[link]" in head:  # the only two shapes `_LINKED_IMAGE` finds
        for found in _LINKED_IMAGE.finditer(head):
            yield Candidate(unescape(found.group(1) or found.group(2) or ""))


def _img_tags(head: str) -> Iterator[Candidate]:
    open_blocks: list[tuple[str, bool]] = []  # (tag, is a furniture block)
    for match in _TAG.finditer(head):
        closing, tag = match.group(1), match.group(2).lower()
        if closing:
            for index in range(len(open_blocks) - 1, -1, -1):
                if open_blocks[index][0] == tag:
                    del open_blocks[index:]
                    break
            continue
        attributes = match.group(3)
        if tag != "img" and not _MARKED.search(attributes):  # most tags: nothing to read
            if tag not in _VOID and not attributes.rstrip().endswith("/"):
                open_blocks.append((tag, _promo(tag, attributes)))
            continue
        named = {
            m.group(1).lower(): unescape(m.group(2) or m.group(3) or m.group(4) or "")
            for m in _ATTR.finditer(attributes)
        }
        marks = f"{named.get('class', '')} {named.get('id', '')}"
        if tag == "img":
            src = named.get("src") or named.get("data-src")
            if src:
                yield _image(src, named, marks, any(flag for _, flag in open_blocks))
        elif tag not in _VOID and not match.group(3).rstrip().endswith("/"):
            furniture = _promo(tag, attributes) or bool(_FURNITURE_BLOCKS.search(marks))
            open_blocks.append((tag, furniture))


def _promo(tag: str, attributes: str) -> bool:
    """A link to a donation page: what it holds asks for money, it shows no post."""
    return tag == "a" and bool(_PROMO_LINK.search(attributes))


def _image(src: str, named: dict[str, str], marks: str, inside: bool) -> Candidate:
    width, height = _pixels(named.get("width")), _pixels(named.get("height"))
    for side, size in _STYLE_SIDE.findall(named.get("style") or ""):
        pixels = int(float(size))
        width, height = (pixels, height) if side.lower() == "width" else (width, pixels)
    furniture = inside or bool(_FURNITURE_WORDS.search(marks))
    return Candidate(src, width, height, furniture)
