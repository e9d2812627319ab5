"""The cheap pass that cuts a feed into its items (issue 48): exactly feedparser's entries,
whatever CDATA, comments and namespaces hold, and None for anything it cannot vouch for."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.feeds.split import READ_VERSION, split_feed, vouched_split, without

RSS1 = "http://purl.org/rss/1.0/"
ATOM = "http://www.w3.org/2005/Atom"

# Pieces an item's body may hold: text, CDATA with markup (an `</item>` too), comments,
# elements of other namespaces, entities of XML's own.
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>&]\x00"),
    max_size=20,
)
PIECES = st.one_of(
    _TEXT,
    _TEXT.map(lambda t: f"<![CDATA[{t}</item></entry><item>]]>"),
    _TEXT.map(lambda t: f"<!-- {t.replace('-', '')} <item> -->"),
    _TEXT.map(lambda t: f"<content:encoded><![CDATA[<p>{t}</p>]]></content:encoded>"),
    _TEXT.map(lambda t: f"<media:group><media:title>{t}</media:title></media:group>"),
    st.just("&amp;&lt;&gt;&#233;"),
    st.just("<rdf:item>not an entry</rdf:item>"),
)
BODIES = st.lists(PIECES, max_size=5).map("".join)


def rss2(items: list[str], between: str = "") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:media="http://search.yahoo.com/mrss/" '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        f"<channel><title>T</title>{between.join(items)}</channel></rss>"
    )


def atom(items: list[str], between: str = "") -> str:
    return (
        f'<feed xmlns="{ATOM}" xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:media="http://search.yahoo.com/mrss/" '
        'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        f"<title>T</title>{between.join(items)}</feed>"
    )


def rdf(items: list[str], between: str = "") -> str:
    return (
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        f'xmlns="{RSS1}" xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:media="http://search.yahoo.com/mrss/">'
        f'<channel rdf:about="x"><title>T</title></channel>{between.join(items)}</rdf:RDF>'
    )


FORMATS = {"rss2": (rss2, "item"), "atom": (atom, "entry"), "rdf": (rdf, "item")}


@given(
    st.sampled_from(sorted(FORMATS)),
    st.lists(BODIES, max_size=6),
    st.sampled_from(["", "\n  ", "<!-- </item> -->", "<?pi x?>"]),
)
def test_the_items_are_cut_exactly_where_they_are(
    kind: str, bodies: list[str], between: str
) -> None:
    write, tag = FORMATS[kind]
    items = [f"<{tag}>{b}</{tag}>" for b in bodies]
    data = write(items, between).encode()
    split = split_feed(data)
    assert split is not None
    assert [data[a:b].decode() for a, b in split.spans] == items
    assert len(set(split.hashes)) == len(set(items))
    # Cutting some out keeps every other byte in place.
    drop = frozenset(range(0, len(items), 2))
    kept = [item for n, item in enumerate(items) if n not in drop]
    assert without(data, split.spans, drop) == write(kept, between).encode() or between != ""
    shorter = split_feed(without(data, split.spans, drop))
    assert shorter is not None
    assert [h for n, h in enumerate(split.hashes) if n not in drop] == list(shorter.hashes)


def test_without_keeps_what_is_between_the_items() -> None:
    data = b"<r>a<item>1</item>b<item>2</item>c<item>3</item>d</r>"
    split = split_feed(data)
    assert split is not None
    assert without(data, split.spans, frozenset({1})) == b"<r>a<item>1</item>bc<item>3</item>d</r>"
    assert without(data, split.spans, frozenset({0, 2})) == b"<r>ab<item>2</item>cd</r>"
    assert without(data, split.spans, frozenset()) == data


def test_the_hash_covers_the_bytes_the_context_and_what_encloses_the_item() -> None:
    def hashes(data: str, context: str = "") -> tuple[str, ...]:
        split = split_feed(data.encode(), context)
        assert split is not None
        return split.hashes

    base = hashes(rss2(["<item>a</item>", "<item>b</item>"]))
    assert len(base) == 2 and all(len(h) == 64 for h in base)
    assert hashes(rss2(["<item>a</item>", "<item>c</item>"]))[0] == base[0]
    assert hashes(rss2(["<item>a</item>", "<item>c</item>"]))[1] != base[1]
    assert hashes(rss2(["<item>a</item>", "<item>b</item>"]), "other url") != base
    # Whatever else the head holds (a build date) changes nothing...
    dated = rss2(["<item>a</item>"]).replace("<title>T</title>", "<lastBuildDate>x</lastBuildDate>")
    assert hashes(dated)[0] == base[0]
    # ...but what encloses the item, or a namespace in scope, does.
    assert hashes(rss2(["<item>a</item>"]).replace('version="2.0"', 'version="0.92"'))[0] != base[0]
    assert hashes(rss2(["<item>a</item>"]).replace("/mrss/", "/mrss2/"))[0] != base[0]
    assert hashes(rss2(["<item>a</item>"]).replace("<channel>", '<channel a="1">'))[0] != base[0]
    assert READ_VERSION.startswith("1/feedparser-")


def test_the_item_names_feedparser_reads_as_entries() -> None:
    def count(data: str) -> int | None:
        split = split_feed(data.encode())
        return None if split is None else len(split.spans)

    assert count("<rss><channel><ITEM>a</ITEM><Entry>b</Entry></channel></rss>") == 2
    assert count(f'<feed xmlns="{ATOM}"><entry>a</entry></feed>') == 1
    assert count('<r xmlns:a="http://purl.org/atom/ns#"><a:entry>x</a:entry></r>') == 1
    assert count('<r xmlns:u="http://backend.userland.com/rss2"><u:item>x</u:item></r>') == 1
    assert count(f'<r xmlns:rss="{RSS1}"><rss:item>x</rss:item></r>') == 1
    # In a namespace feedparser prefixes, `item` is no entry (it may be inside one).
    assert count('<r xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:item>x</dc:item></r>') == 0
    inside = '<r xmlns:dc="http://purl.org/dc/elements/1.1/"><item><dc:item/></item></r>'
    assert count(inside) == 1
    assert count("<r><items><rdf>x</rdf></items><item>y</item></r>") == 1
    assert count("<item>a document that is one item</item>") == 1


@pytest.mark.parametrize(
    "data",
    [
        '<?xml version="1.0"?><!DOCTYPE rss><rss><item>a</item></rss>',
        '<!DOCTYPE r [<!ENTITY e "x">]><r><item>&e;</item></r>',
        '<r><item>a</item><!-- <!ENTITY e "x"> --></r>',
        '<r xml:base="http://a.example/"><item>a</item></r>',
        '<r><item xmlns:x="http://x.example/"><x:y/></item></r>',
        "<r><item><item>a</item></item></r>",
        "<r><item><entry>a</entry></item></r>",
        '<r xmlns:x="http://unknown.example/"><x:item>a</x:item></r>',
        '<r><item xmlns="http://unknown.example/">a</item></r>',
        "<r><item/></r>",
        "<r><items><item/></items></r>",
        '<?xml version="1.0" encoding="iso-8859-1"?><r><item>plain ASCII</item></r>',  # expat points at `</items>`, which starts like `</item`
        '<?xml version="1.0" encoding="iso-8859-1"?><r><item>caf\u00e9</item></r>',
        "<r><item>a</item>",
        "<r><item>&nbsp;</item></r>",
        "not xml at all",
    ],
)
def test_what_the_pass_cannot_vouch_for_is_read_whole(data: str) -> None:
    encoded = data.encode("latin-1") if "iso-8859-1" in data else data.encode()
    assert split_feed(encoded) is None


def test_utf_16_and_broken_utf_8_are_read_whole() -> None:
    assert split_feed("<r><item>a</item></r>".encode("utf-16")) is None
    assert split_feed(b"<r><item>\xff</item></r>") is None
    assert split_feed(b"\xef\xbb\xbf<r><item>a</item></r>") is not None  # a UTF-8 BOM is fine


@pytest.mark.parametrize(
    ("headers", "body", "vouched"),
    [
        ({}, "<r><item>é</item></r>", True),
        ({"content-type": "application/rss+xml"}, "<r><item>é</item></r>", True),
        ({"content-type": "application/xml; charset=UTF-8"}, "<r><item>é</item></r>", True),
        ({"content-type": "application/xml; charset=utf8"}, "<r><item>é</item></r>", True),
        ({"content-type": "application/atom+xml; charset=latin-1"}, "<r><item>e</item></r>", False),
        ({"content-type": "text/xml"}, "<r><item>e</item></r>", True),  # us-ascii, and it is
        ({"content-type": "text/xml"}, "<r><item>é</item></r>", False),
        ({"content-type": "text/xml; charset=ascii"}, "<r><item>e</item></r>", True),
        ({"content-type": "text/rss+xml; charset=utf-8"}, "<r><item>é</item></r>", True),
        ({"content-type": "text/html"}, "<r><item>e</item></r>", False),
        ({"content-type": "application/octet-stream"}, "<r><item>e</item></r>", False),
        ({"content-location": "http://a.example/"}, "<r><item>e</item></r>", False),
    ],
)
def test_only_what_feedparser_reads_as_utf_8_without_complaint_is_split(
    headers: dict[str, str], body: str, vouched: bool
) -> None:
    assert (vouched_split(body.encode(), headers, "u") is not None) is vouched


def test_the_url_and_headers_are_part_of_every_hash() -> None:
    body = b"<r><item>a</item></r>"
    one = vouched_split(body, {}, "http://a.example/feed")
    other = vouched_split(body, {}, "http://b.example/feed")
    typed = vouched_split(body, {"content-type": "application/xml"}, "http://a.example/feed")
    assert one is not None and other is not None and typed is not None
    assert len({one.hashes, other.hashes, typed.hashes}) == 3
    assert one.spans == other.spans == ((3, 17),)


def test_a_hash_is_pinned() -> None:
    """Every stored raw hash misses once when this changes (each feed's items are read again
    once): change it only with `READ_VERSION`, on purpose. Pinned for feedparser 6.0.14."""
    data = (
        b'<?xml version="1.0"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"'
        b' xmlns="http://purl.org/rss/1.0/"><channel a="1"><item>a</item></channel></rss>'
    )
    split = split_feed(data, "ctx")
    assert split is not None and split.spans == ((132, 146),)
    assert split_feed(data) == split_feed(data, "")  # no context: an empty one
    assert READ_VERSION == "1/feedparser-6.0.14"
    assert split.hashes == ("ddc043235f4ff3b0420c82e5bcc8095c64f9fa497247dfd2c23fd76b955080e8",)
    typed = vouched_split(b"<r><item>a</item></r>", {"content-type": "application/xml"}, "u:")
    assert typed is not None
    assert typed.hashes == ("5720e810ab6b71d3bc4f11df55c7e8654c309921a4d7bec4c2f79526bdf0af73",)
