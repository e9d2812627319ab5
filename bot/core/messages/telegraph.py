"""A post's HTML → a Telegraph page's content (its Node format), through two allow-lists.

Telegraph's `createPage` takes the page as a JSON array of Nodes: a string, or
`{"tag": …, "attrs": {"href"|"src": …}, "children": [Node, …]}` with a tag from a short list,
at most 64 KB of it. Two gates stand between a feed's HTML and that list:

1. nh3 (the ammonia sanitiser) keeps only the tags of `_KEPT` and the attributes `href` and
   `src`, only http(s) URLs, and drops scripts, styles, frames and forms with their content;
2. the tree left is rebuilt by a walk that emits only Telegraph's tags (`TAGS`, without its
   `iframe` and `video`) and attributes, so whatever the sanitiser lets through, nothing
   Telegraph refuses (or no script, frame or `on…` handler) reaches it.

The rebuilt page keeps every visible character of the post in order (whitespace collapsed):
headings become h3/h4 (Telegraph has no other), a picture inside a paragraph follows it as a
figure (Telegraph shows pictures as blocks), blocks nested where Telegraph takes only text are
flattened to text, and containers (div, section, table rows) become paragraph breaks.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from bot.core.urls import url_problem


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


# Telegraph's own list; `iframe` (its embeds) and `video` are never emitted here.
TAGS = _words(
    "a aside b blockquote br code em figcaption figure h3 h4 hr i iframe img li ol p pre s "
    "strong u ul video"
)
ATTRIBUTES = frozenset({"href", "src"})
MAX_CONTENT_BYTES = 64 * 1024  # Telegraph's limit on a page's content (its JSON)
MAX_HTML_CHARS = 512 * 1024  # a post's HTML longer than this is no page (nor anyone's work)
MAX_DEPTH = 48  # deeper elements become their parent's text
MAX_TITLE = 256
MAX_AUTHOR = 128
MAX_AUTHOR_URL = 512

Node = str | dict[str, object]

_INLINE = {"a", "b", "strong", "i", "em", "u", "s", "code", "br", "img"}
_RENAMED = {
    "h1": "h3", "h2": "h3", "h3": "h3", "h4": "h4", "h5": "h4", "h6": "h4", "del": "s",
    "strike": "s", "ins": "u", "cite": "i", "var": "i", "mark": "b", "kbd": "code",
    "samp": "code", "tt": "code",
}  # fmt: skip
_CONTAINERS = _words(
    "div section article main header footer table thead tbody tfoot tr dl dt dd caption "
    "details summary address center"
)
_CELLS = {"td", "th"}
_BLOCKS = {"p", "h3", "h4", "blockquote", "pre", "ul", "ol", "hr", "figure", "aside", "li"}
_UNWRAPPED = {"span", "q", "sub", "sup", "small", "abbr", "dfn", "time", "bdi", "bdo"}
_KEPT = _INLINE | set(_RENAMED) | _CONTAINERS | _CELLS | _BLOCKS | _UNWRAPPED | {"figcaption"}
_DROPPED_WITH_CONTENT = _words(
    "script style noscript template iframe object embed svg math select textarea button form "
    "video audio canvas frameset title"
)
_TAG = re.compile(r"<[^>]*>")
_TAG_PARTS = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")
_UNCOUNTED = _words(  # elements whose end tag HTML lets a writer leave out, and void ones
    "p li dt dd tr td th thead tbody tfoot option optgroup colgroup caption rb rt rp br hr img "
    "input meta link wbr source track area base col embed param html head body"
)
NO_TEXT = "the post has no text for a page"
TOO_BIG = "the post is over Telegraph's 64 KB"
TOO_DEEP = "the post's HTML nests too deep"
_BREAK: dict[str, object] = {"tag": "br"}
_SPACE = re.compile(r"[ \t\n\r\f]+")
# Characters XML (and so libxml2) refuses, and controls no reader sees.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


@dataclass
class _Element:
    tag: str
    href: str | None = None
    children: list[_Element | str] = field(default_factory=list)


def _tree(clean_html: str) -> _Element:
    """The sanitiser's output (well formed) as a tree, read by libxml2 (lxml)."""
    from lxml import html as lxml_html

    root = _Element("div")
    clean_html = _CONTROL.sub("", clean_html)
    if not clean_html.strip():
        return root
    fragment = lxml_html.fragment_fromstring(clean_html, create_parent="div")
    _copy(fragment, root, 0)
    return root


def _copy(source: Any, target: _Element, depth: int) -> None:
    if source.text:
        target.children.append(source.text)
    for child in source:
        if isinstance(child.tag, str):
            url = child.get("src") if child.tag == "img" else child.get("href")
            element = _Element(child.tag, url)
            target.children.append(element)
            if depth < MAX_DEPTH:
                _copy(child, element, depth + 1)
            else:
                element.children.append("".join(child.itertext()))
        if child.tail:
            target.children.append(child.tail)


def sanitised(post_html: str) -> str:
    """The post's HTML with only the kept tags, `href`/`src` and http(s) URLs (nh3)."""
    import nh3  # a Rust extension: loaded only when a page is made

    return nh3.clean(
        post_html,
        tags=set(_KEPT),
        clean_content_tags=set(_DROPPED_WITH_CONTENT),
        attributes={"a": {"href"}, "img": {"src"}},
        url_schemes={"http", "https"},
        link_rel=None,
        strip_comments=True,
    )


def page_content(post_html: str, base: str | None = None) -> list[Node] | str:
    """The post as Telegraph Nodes (links and pictures made absolute against `base`, the
    post's address, and kept only when they are http(s)), or why it cannot be a page: no
    text, over Telegraph's 64 KB, or a shape whose sanitising would cost seconds."""
    problem = _problem(post_html)
    if problem is not None:
        return problem
    builder = _Builder(base)
    builder.blocks(_tree(sanitised(post_html)).children)
    builder.flush()
    if not any(_text(node).strip() for node in builder.out):
        return NO_TEXT
    if content_bytes(builder.out) > MAX_CONTENT_BYTES:
        return TOO_BIG
    return builder.out


def _problem(post_html: str) -> str | None:
    """What is refused before any parsing: the sanitiser's cost grows with the square of the
    nesting (50,000 nested elements: 40 s), and text alone over 64 KB cannot fit."""
    if not post_html.strip():
        return NO_TEXT
    if len(post_html) > MAX_HTML_CHARS:
        return TOO_BIG
    if len(_TAG.sub("", post_html).encode()) > MAX_CONTENT_BYTES:
        return TOO_BIG
    if nesting(post_html) > MAX_DEPTH:
        return TOO_DEEP
    return None


def nesting(post_html: str) -> int:
    """How deep the post's elements nest, as its tags say (elements whose end tag HTML lets
    a writer leave out, and void ones, are not counted)."""
    depth = deepest = 0
    for closing, name, selfclosing in _TAG_PARTS.findall(post_html):
        name = name.lower()
        if name in _UNCOUNTED or selfclosing:
            continue
        if closing:
            depth = max(depth - 1, 0)
        else:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def content_bytes(nodes: list[Node]) -> int:
    """The content's size as Telegraph counts its 64 KB: the JSON sent, in UTF-8 bytes."""
    return len(encoded(nodes).encode())


def encoded(nodes: list[Node]) -> str:
    return json.dumps(nodes, ensure_ascii=False, separators=(",", ":"))


def fingerprint(title: str, nodes: list[Node]) -> str:
    """What a page shows, hashed: an edit that changes nothing on it asks Telegraph nothing."""
    return hashlib.sha256(f"{title}\n{encoded(nodes)}".encode()).hexdigest()


def page_title(name: str) -> str:
    """Telegraph's title: 1 to 256 characters, one line."""
    one_line = _SPACE.sub(" ", _CONTROL.sub("", name)).strip()
    if len(one_line) <= MAX_TITLE:
        return one_line or "…"
    return one_line[: MAX_TITLE - 1].rstrip() + "…"


def author_name(source: str) -> str:
    one_line = _SPACE.sub(" ", _CONTROL.sub("", source)).strip()
    return one_line[:MAX_AUTHOR]


def author_url(link: str | None) -> str:
    """The post's own address, under the page's byline (when Telegraph can take it)."""
    if not link or len(link) > MAX_AUTHOR_URL or url_problem(link) is not None:
        return ""
    return link


def plain_text(nodes: list[Node]) -> str:
    """Every character the page shows (tests compare it with the post's)."""
    return "".join(_text(node) for node in nodes)


def _text(node: Node) -> str:
    if isinstance(node, str):
        return node
    children = node.get("children", [])
    assert isinstance(children, list)
    return " ".join(_text(child) for child in children)


class _Builder:
    """Telegraph's blocks from the sanitised tree: inline runs become paragraphs."""

    def __init__(self, base: str | None) -> None:
        self.base = base
        self.out: list[Node] = []
        self.run: list[Node] = []
        self.hoisted: list[Node] = []  # pictures found inside text, placed after its block

    def flush(self) -> None:
        paragraph = _tidy(self.run)
        self.run = []
        if paragraph:
            self.out.append({"tag": "p", "children": paragraph})
        self._place_pictures()

    def _place_pictures(self) -> None:
        self.out.extend({"tag": "figure", "children": [image]} for image in self.hoisted)
        self.hoisted = []

    def blocks(self, children: list[_Element | str]) -> None:
        for child in children:
            if isinstance(child, str):
                self.run.append(child)
                continue
            tag = _RENAMED.get(child.tag, child.tag)
            if tag in _CONTAINERS or tag in ("li", "figcaption", "aside"):
                self.flush()
                self.blocks(child.children)
                self.flush()
            elif tag == "img":
                self.flush()
                image = self._image(child)
                if image is not None:
                    self.out.append({"tag": "figure", "children": [image]})
            elif tag == "hr":
                self.flush()
                self.out.append({"tag": "hr"})
            elif tag in ("ul", "ol"):
                self.flush()
                self._emit(self._list(tag, child))
            elif tag == "figure":
                self.flush()
                self._figure(child)
            elif tag == "pre":
                self.flush()
                text = _raw(child)
                self._emit({"tag": "pre", "children": [text]} if text else None)
            elif tag in ("p", "h3", "h4", "blockquote"):
                self.flush()
                self._emit(_block(tag, self.inline(child.children)))
            else:
                self.run.extend(self.inline([child]))

    def _emit(self, node: Node | None) -> None:
        if node is not None:
            self.out.append(node)
        self._place_pictures()

    def _list(self, tag: str, element: _Element) -> Node | None:
        items: list[Node] = []
        loose: list[_Element | str] = []  # text between items belongs to the item before
        for child in element.children:
            if isinstance(child, _Element) and child.tag == "li":
                items.extend(self._item(loose))
                loose = list(child.children)
            else:
                loose.append(child)
        items.extend(self._item(loose))
        return {"tag": tag, "children": items} if items else None

    def _item(self, children: list[_Element | str]) -> list[Node]:
        kept: list[Node] = []
        run: list[_Element | str] = []
        for child in [*children, None]:  # a nested list (or the end) ends a run of text
            if child is None or (isinstance(child, _Element) and child.tag in ("ul", "ol")):
                kept.extend(_tidy(self.inline(run)))
                run = []
                found = self._list(child.tag, child) if child is not None else None
                kept.extend([found] if found is not None else [])
            else:
                run.append(child)
        return [{"tag": "li", "children": kept}] if kept else []

    def _figure(self, element: _Element) -> None:
        caption = _tidy(self.inline(element.children))  # its pictures are hoisted meanwhile
        pictures, self.hoisted = self.hoisted, []
        if not pictures:
            self._emit(_block("p", caption))
            return
        if caption:
            pictures.append({"tag": "figcaption", "children": caption})
        self.out.append({"tag": "figure", "children": pictures})

    def inline(self, children: list[_Element | str]) -> list[Node]:
        """Text and Telegraph's inline tags; a block inside text is flattened to its text."""
        out: list[Node] = []
        for child in children:
            if isinstance(child, str):
                out.append(child)
                continue
            tag = _RENAMED.get(child.tag, child.tag)
            if tag == "br":
                out.append(_BREAK)
            elif tag == "img":
                image = self._image(child)
                if image is not None:
                    self.hoisted.append(image)
            elif tag == "a":
                inner = self.inline(child.children)
                href = self._url(child.href)
                link: Node = {"tag": "a", "attrs": {"href": href}, "children": inner}
                out.extend([link] if href and inner else inner)
            elif tag in ("b", "strong", "i", "em", "u", "s", "code"):
                inner = self.inline(child.children)
                if inner:
                    out.append({"tag": tag, "children": inner})
            elif tag in _UNWRAPPED:
                out.extend(self.inline(child.children))
            elif tag in _CELLS:  # a table's cells: one row is one line
                out.extend([" ", *self.inline(child.children), " "])
            else:  # a block inside text (a quote's paragraphs, a cell): its text, a break after
                out.extend([" ", *self.inline(child.children), _BREAK])
        return out

    def _image(self, element: _Element) -> Node | None:
        src = self._url(element.href)
        return {"tag": "img", "attrs": {"src": src}} if src else None

    def _url(self, value: str | None) -> str | None:
        if not value:
            return None
        absolute = urljoin(self.base, value.strip()) if self.base else value.strip()
        return absolute if url_problem(absolute) is None else None


def _block(tag: str, children: list[Node]) -> Node | None:
    kept = _tidy(children)
    return {"tag": tag, "children": kept} if kept else None


def _tidy(nodes: list[Node]) -> list[Node]:
    """Whitespace collapsed, neighbouring strings joined, the ends trimmed, empties dropped."""
    out: list[Node] = []
    pending: list[str] = []
    for node in [*nodes, _BREAK]:
        if isinstance(node, str):
            pending.append(node)
            continue
        if pending:
            out.append(_SPACE.sub(" ", _CONTROL.sub("", "".join(pending))))
            pending = []
        out.append(node)
    while out and (out[-1] == _BREAK or out[-1] in ("", " ")):
        out.pop()
    while out and (out[0] == _BREAK or out[0] in ("", " ")):
        out.pop(0)
    if out and isinstance(out[0], str):
        out[0] = out[0].lstrip()
    if out and isinstance(out[-1], str):
        out[-1] = out[-1].rstrip()
    return out


def _raw(element: _Element) -> str:
    """A preformatted block's text, its whitespace kept."""
    return _CONTROL.sub("", _inner_text(element)).strip("\n")


def _inner_text(element: _Element) -> str:
    return "".join(c if isinstance(c, str) else _inner_text(c) for c in element.children)
