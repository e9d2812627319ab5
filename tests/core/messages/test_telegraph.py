"""A post's HTML → a Telegraph page's Nodes (`bot/core/messages/telegraph.py`, issue 47)."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.messages.telegraph import (
    ATTRIBUTES,
    MAX_CONTENT_BYTES,
    MAX_DEPTH,
    MAX_HTML_CHARS,
    NO_TEXT,
    TAGS,
    TOO_BIG,
    TOO_DEEP,
    Node,
    author_name,
    author_url,
    content_bytes,
    fingerprint,
    nesting,
    page_content,
    page_title,
    plain_text,
)

BASE = "https://blog.example/2026/12/post/"
REFUSED_EVER = {"script", "iframe", "video", "style", "object", "embed", "form"}


def nodes(post: str, base: str | None = BASE) -> list[Node]:
    found = page_content(post, base)
    assert isinstance(found, list), found
    return found


def walk(content: list[Node]) -> list[dict[str, object]]:
    found = []
    for node in content:
        if isinstance(node, dict):
            found.append(node)
            children = node.get("children", [])
            assert isinstance(children, list)
            found.extend(walk(children))
    return found


def squeezed(text: str) -> str:
    return "".join(text.split())


class _Visible(HTMLParser):
    """The oracle: the characters a reader sees, scripts, styles and frames left out."""

    HIDDEN = frozenset({"script", "style", "iframe", "noscript", "template", "textarea", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hidden += tag in self.HIDDEN

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in self.HIDDEN and self.hidden > 0

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.text.append(data)


def visible(post: str) -> str:
    parser = _Visible()
    parser.feed(post)
    parser.close()
    return squeezed("".join(parser.text))


def test_headings_lists_quotes_code_and_pictures_become_telegraph_nodes() -> None:
    post = (
        "<h1>Part one</h1><h2>Two</h2><h4>Four</h4><h6>Six</h6>"
        "<p>Plain <strong>bold</strong> <em>it</em> <del>old</del> <ins>new</ins> "
        '<a href="/about">rel</a> and <code>x=1</code>.</p>'
        "<ul><li>one<ol><li>inner</li></ol></li><li>two</li></ul>"
        "<blockquote><p>first</p><p>second</p></blockquote>"
        "<pre><code>a  b\n  c</code></pre><hr>"
        '<figure><img src="/img/a.png"><figcaption>The <b>view</b></figcaption></figure>'
    )
    assert nodes(post) == [
        {"tag": "h3", "children": ["Part one"]},
        {"tag": "h3", "children": ["Two"]},
        {"tag": "h4", "children": ["Four"]},
        {"tag": "h4", "children": ["Six"]},
        {
            "tag": "p",
            "children": [
                "Plain ",
                {"tag": "strong", "children": ["bold"]},
                " ",
                {"tag": "em", "children": ["it"]},
                " ",
                {"tag": "s", "children": ["old"]},
                " ",
                {"tag": "u", "children": ["new"]},
                " ",
                {"tag": "a", "attrs": {"href": "https://blog.example/about"}, "children": ["rel"]},
                " and ",
                {"tag": "code", "children": ["x=1"]},
                ".",
            ],
        },
        {
            "tag": "ul",
            "children": [
                {
                    "tag": "li",
                    "children": [
                        "one",
                        {"tag": "ol", "children": [{"tag": "li", "children": ["inner"]}]},
                    ],
                },
                {"tag": "li", "children": ["two"]},
            ],
        },
        {"tag": "blockquote", "children": ["first", {"tag": "br"}, " second"]},
        {"tag": "pre", "children": ["a  b\n  c"]},
        {"tag": "hr"},
        {
            "tag": "figure",
            "children": [
                {"tag": "img", "attrs": {"src": "https://blog.example/img/a.png"}},
                {"tag": "figcaption", "children": ["The ", {"tag": "b", "children": ["view"]}]},
            ],
        },
    ]


def test_a_picture_inside_a_paragraph_follows_it_as_a_figure() -> None:
    assert nodes('<p>Before <img src="https://i.example/a.jpg"> after</p><p>Next</p>') == [
        {"tag": "p", "children": ["Before after"]},
        {
            "tag": "figure",
            "children": [{"tag": "img", "attrs": {"src": "https://i.example/a.jpg"}}],
        },
        {"tag": "p", "children": ["Next"]},
    ]


def test_scripts_frames_handlers_and_foreign_schemes_never_reach_the_page() -> None:
    post = (
        '<p onclick="steal()">Hi <a href="javascript:alert(1)">there</a>'
        '<a href="data:text/html,x">data</a> <img src="javascript:x" onerror="y()"></p>'
        '<script>alert("x")</script><style>p{}</style><iframe src="https://evil.example/"></iframe>'
        '<video src="https://v.example/a.mp4"></video><form><input value="v">sent</form>'
        "<noscript>no</noscript><svg><text>drawn</text></svg>"
        '<a href="https://ok.example/" style="x" target="_blank" rel="x">fine</a>'
    )
    found = nodes(post)
    assert found == [
        {"tag": "p", "children": ["Hi theredata"]},
        {
            "tag": "p",
            "children": [
                {"tag": "a", "attrs": {"href": "https://ok.example/"}, "children": ["fine"]}
            ],
        },
    ]
    text = json.dumps(found)
    for word in ("alert", "steal", "evil", "onerror", "onclick", "style", "drawn", "sent"):
        assert word not in text


def test_containers_and_table_rows_become_paragraphs_and_cells_stay_on_one_line() -> None:
    post = "<div>one</div><section><div>two</div></section><table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>"
    assert nodes(post) == [
        {"tag": "p", "children": ["one"]},
        {"tag": "p", "children": ["two"]},
        {"tag": "p", "children": ["a b"]},
        {"tag": "p", "children": ["c"]},
    ]


def test_entities_are_text_and_whitespace_is_collapsed() -> None:
    assert nodes("<p>  a &amp; b &lt;i&gt;\n\n c\u00a0d </p>") == [
        {"tag": "p", "children": ["a & b <i> c\u00a0d"]}
    ]


def test_links_and_pictures_without_a_base_stay_only_when_absolute() -> None:
    found = nodes('<p><a href="/rel">r</a> <a href="https://a.example/">a</a></p>', None)
    assert found == [
        {
            "tag": "p",
            "children": [
                "r ",
                {"tag": "a", "attrs": {"href": "https://a.example/"}, "children": ["a"]},
            ],
        }
    ]


def test_what_cannot_be_a_page_says_why() -> None:
    assert page_content("") == NO_TEXT
    assert page_content("<p> </p><img src='https://i.example/a.png'>") == NO_TEXT
    assert page_content("<script>x</script>") == NO_TEXT
    assert page_content("<p>" + "word " * 14_000 + "</p>") == TOO_BIG  # 70 KB of text
    assert page_content("<p>x</p>" + " " * MAX_HTML_CHARS) == TOO_BIG
    assert page_content("<b>" * (MAX_DEPTH + 1) + "deep") == TOO_DEEP
    assert isinstance(page_content("<b>" * MAX_DEPTH + "deep"), list)
    # under 64 KB of text, over 64 KB once in Telegraph's JSON
    many = "".join(f'<p><a href="https://l.example/{n}">w</a></p>' for n in range(2_000))
    assert page_content(many) == TOO_BIG


def test_nesting_counts_what_html_closes_for_itself_as_nothing() -> None:
    assert nesting("<p>a<p>b<p>c<li>d<br><img src=x>") == 0
    assert nesting("<div><b>x</b><i>y</i></div>") == 2
    assert nesting("<b>x" * 5) == 5
    assert nesting("</div></div><b>x</b>") == 1
    assert nesting("<br/><span/>") == 0


def test_the_content_is_counted_as_the_json_telegraph_receives() -> None:
    content: list[Node] = [{"tag": "p", "children": ["é"]}]
    assert content_bytes(content) == len('[{"tag":"p","children":["é"]}]'.encode())
    assert MAX_CONTENT_BYTES == 65_536


def test_title_author_and_fingerprint() -> None:
    assert page_title("  A\n title\x00 ") == "A title"
    assert page_title("") == "…"
    long = page_title("w" * 300)
    assert len(long) == 256 and long.endswith("…")
    assert page_title("w" * 256) == "w" * 256
    assert author_name("  Lumen\n Blog " + "x" * 200) == ("Lumen Blog " + "x" * 200)[:128]
    assert author_url("https://blog.example/p") == "https://blog.example/p"
    assert author_url("javascript:alert(1)") == ""
    assert author_url(None) == ""
    assert author_url("https://blog.example/" + "p" * 500) == ""
    content: list[Node] = ["a"]
    assert fingerprint("t", content) != fingerprint("t", ["b"])
    assert fingerprint("t", content) != fingerprint("u", content)
    assert len(fingerprint("t", content)) == 64


# Generated posts: known tags, unknown ones, dangerous ones, attributes of every kind.
_TAG_NAMES = [
    "p", "div", "span", "b", "i", "em", "strong", "a", "h1", "h2", "h5", "ul", "ol", "li",
    "blockquote", "pre", "code", "figure", "figcaption", "section", "del", "u", "sup",
    "custom-tag", "font", "center", "article", "aside", "dl", "dt", "dd",
]  # fmt: skip
_ATTRS = [
    'href="https://x.example/a"', 'href="javascript:alert(1)"', 'src="https://i.example/p.png"',
    'onclick="evil()"', 'style="color:red"', 'onmouseover="x"', 'href="/rel"', 'class="c"',
]  # fmt: skip
_TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>&"),
    max_size=12,
)


@st.composite
def posts(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 9 if depth < 4 else 2))
        if kind <= 2:
            parts.append(html.escape(draw(_TEXT), quote=False))
        elif kind == 3:
            parts.append(f"<img {draw(st.sampled_from(_ATTRS))}>")
        elif kind == 4:
            parts.append(draw(st.sampled_from(["<br>", "<hr>", "&amp;", "&lt;b&gt;", "&#128512;"])))
        elif kind == 5:
            hidden = draw(st.sampled_from(["script", "style", "iframe", "noscript"]))
            parts.append(f"<{hidden}>{html.escape(draw(_TEXT))}</{hidden}>")
        else:
            tag = draw(st.sampled_from(_TAG_NAMES))
            attrs = " ".join(draw(st.lists(st.sampled_from(_ATTRS), max_size=2)))
            parts.append(f"<{tag} {attrs}>{draw(posts(depth + 1))}</{tag}>")
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(posts())
def test_only_telegraph_tags_and_attributes_are_ever_emitted(post: str) -> None:
    found = page_content(post, BASE)
    if isinstance(found, str):
        return
    for element in walk(found):
        assert set(element) <= {"tag", "attrs", "children"}
        assert element["tag"] in TAGS and element["tag"] not in REFUSED_EVER
        attrs = element.get("attrs", {})
        assert isinstance(attrs, dict)
        assert set(attrs) <= ATTRIBUTES
        for value in attrs.values():
            assert str(value).startswith(("https://", "http://"))
    encoded = json.dumps(found).lower()
    assert "javascript:" not in encoded and "onclick" not in encoded and "evil" not in encoded


@settings(max_examples=300, deadline=None)
@given(posts())
def test_every_visible_character_is_kept_in_order(post: str) -> None:
    found = page_content(post, BASE)
    if found == NO_TEXT:
        assert visible(post) == ""
        return
    assert isinstance(found, list)
    assert squeezed(plain_text(found)) == visible(post)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_any_text_at_all_is_a_page_or_a_reason(text: str) -> None:
    found = page_content(text, BASE)
    assert isinstance(found, list | str)
    if isinstance(found, list):
        assert content_bytes(found) <= MAX_CONTENT_BYTES
        assert all(e["tag"] in TAGS for e in walk(found))


def test_no_empty_or_whitespace_only_blocks() -> None:
    found = nodes("<p> </p><p>a</p><div>  </div><ul><li> </li></ul><blockquote><br></blockquote>")
    assert found == [{"tag": "p", "children": ["a"]}]
    assert not re.search(r'"children":\[\]', json.dumps(found))


def test_shapes_at_the_edges_of_each_rule() -> None:
    pic = {"tag": "img", "attrs": {"src": "https://i.example/a.jpg"}}
    assert nodes('a<img src="https://i.example/a.jpg">b') == [
        {"tag": "p", "children": ["a"]},
        {"tag": "figure", "children": [pic]},
        {"tag": "p", "children": ["b"]},
    ]
    for tag in ("aside", "figcaption", "li"):
        assert nodes(f"<{tag}>a</{tag}>b") == [
            {"tag": "p", "children": ["a"]},
            {"tag": "p", "children": ["b"]},
        ], tag
    assert nodes("<ol><li>x</li></ol>") == [
        {"tag": "ol", "children": [{"tag": "li", "children": ["x"]}]}
    ]
    inner = {"tag": "ul", "children": [{"tag": "li", "children": ["b"]}]}
    assert nodes("<ol><li>a<ul><li>b</li></ul></li></ol>") == [
        {"tag": "ol", "children": [{"tag": "li", "children": ["a", inner]}]}
    ]
    assert nodes("<pre>\n</pre><p>x</p>") == [{"tag": "p", "children": ["x"]}]
    assert nodes("<pre>  a\n</pre>") == [{"tag": "pre", "children": ["  a"]}]
    assert nodes("<pre>\nXa\n</pre>") == [{"tag": "pre", "children": ["Xa"]}]
    assert nodes("<p>a<br>b <i>c</i></p>") == [
        {"tag": "p", "children": ["a", {"tag": "br"}, "b ", {"tag": "i", "children": ["c"]}]}
    ]
    bold = {"tag": "b", "children": ["a"]}
    assert nodes("<blockquote><b>a</b><div></div></blockquote>") == [
        {"tag": "blockquote", "children": [bold]}
    ]
    assert nodes("<blockquote><div></div><b>a</b></blockquote>") == [
        {"tag": "blockquote", "children": [bold]}
    ]


def test_control_characters_are_dropped_not_replaced() -> None:
    assert nodes("<p>a\x01b</p>") == [{"tag": "p", "children": ["ab"]}]
    assert author_name("A\x01B") == "AB"


def test_lists_nested_past_the_counted_depth_keep_their_text() -> None:
    """`<li>` closes itself, so `nesting` does not count it: lxml's tree is deeper than 48
    and what lies past that is kept as its text, in order."""
    found = nodes("<ul><li>" * 30 + "<b>x</b><i>y</i>z")
    assert squeezed(plain_text(found)) == "xyz"


def test_the_limits_hold_at_exactly_their_values() -> None:
    exact = "x" * (MAX_CONTENT_BYTES - len('[{"tag":"p","children":[""]}]'))
    content = nodes(f"<p>{exact}</p>")
    assert content_bytes(content) == MAX_CONTENT_BYTES
    assert page_content(f"<p>{exact}x</p>") == TOO_BIG
    padding = MAX_HTML_CHARS - len("<p>x</p>")
    assert isinstance(page_content("<p>x</p>" + "<br>" * (padding // 4)), list)
    assert nesting("<br><b><i>x") == 2
    assert nesting("<b><i></i><u><s>") == 3
    link = "https://blog.example/" + "p" * (512 - len("https://blog.example/"))
    assert author_url(link) == link
    spaced = page_title("w" * 254 + " " + "w" * 50)
    assert spaced == "w" * 254 + "…"
