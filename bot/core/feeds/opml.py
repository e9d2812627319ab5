"""OPML 2.0 subscription lists: read the feed URLs out of one, write one."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime

from bot.core.feeds.xmlsafe import REFUSED, parse_xml
from bot.core.lang import N_, UserError
from bot.core.text import clean_inline
from bot.core.urls import safe_link


class OpmlError(UserError):
    """Not an OPML document we can read."""


@dataclass(frozen=True, slots=True)
class OpmlFeed:
    title: str
    url: str


def parse_opml(data: bytes) -> list[OpmlFeed]:
    """Every outline with an http(s) `xmlUrl`, at any depth, first occurrence of each URL."""
    try:
        root = parse_xml(data)
    except ET.ParseError as exc:
        raise OpmlError(N_("not valid XML: {detail}"), detail=exc) from None
    except ValueError:
        raise OpmlError(N_("not valid XML: {detail}"), detail=REFUSED) from None
    if root.tag.lower() != "opml":
        raise OpmlError(N_("not an OPML document (no <opml> root)"))
    feeds: dict[str, OpmlFeed] = {}
    for outline in root.iter("outline"):
        url = safe_link(outline.get("xmlUrl") or outline.get("xmlurl"))
        if url and url not in feeds:
            title = clean_inline(outline.get("title") or outline.get("text") or "")[:200]
            feeds[url] = OpmlFeed(title=title, url=url)
    return list(feeds.values())


def render_opml(title: str, feeds: list[OpmlFeed], *, created: datetime) -> bytes:
    root = ET.Element("opml", version="2.0")
    head = ET.SubElement(root, "head")
    ET.SubElement(head, "title").text = title
    ET.SubElement(head, "dateCreated").text = format_datetime(created)
    body = ET.SubElement(root, "body")
    for feed in feeds:
        ET.SubElement(
            body, "outline", type="rss", text=feed.title, title=feed.title, xmlUrl=feed.url
        )
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"
