"""Detection, round 3 (issue 26), the parse side: Mastodon's media descriptions, JSON Feed 1.0's
http:// version. Fixtures in the shapes those generators emit; the text is ours."""

from __future__ import annotations

import json

from bot.core.parse import parse_feed

MASTODON = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:webfeeds="http://webfeeds.org/rss/1.0" xmlns:media="http://search.yahoo.com/mrss/">
<channel><title>Ada (@ada@social.example)</title><link>https://social.example/@ada</link>
<item><guid isPermaLink="true">https://social.example/@ada/1130</guid>
<link>https://social.example/@ada/1130</link><pubDate>Mon, 30 Nov 2026 10:00:00 +0000</pubDate>
<description>&lt;p&gt;%s&lt;/p&gt;</description>
<media:content url="https://files.social.example/a.png" type="image/png" fileSize="1000" medium="image">
<media:rating scheme="urn:simple">nonadult</media:rating>
<media:description type="plain">A cat asleep on a keyboard</media:description>
</media:content></item></channel></rss>"""


def test_a_mastodon_post_s_text_is_its_description_not_the_image_alt_text() -> None:
    (before,) = parse_feed(MASTODON % b"Our new build runs twice as fast.").items
    assert before.text == "Our new build runs twice as fast."
    assert before.image == "https://files.social.example/a.png"
    (after,) = parse_feed(MASTODON % b"Our new build runs three times as fast.").items
    assert after.fingerprint != before.fingerprint  # the edit reaches the fingerprint


def test_plain_text_content_is_the_body_when_nothing_else_is() -> None:
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><id>1</id>'
        b'<title>Hi</title><content type="text">Plain body text.</content></entry></feed>'
    )
    (item,) = parse_feed(atom).items
    assert item.text == "Plain body text."


def test_json_feed_1_0_with_an_http_version_is_a_feed() -> None:
    body = json.dumps(
        {
            "version": "http://jsonfeed.org/version/1",
            "title": "Old plugin",
            "items": [{"id": "1", "url": "https://b.example/1", "content_html": "<p>Hi.</p>"}],
        }
    ).encode()
    (item,) = parse_feed(body, {"content-type": "application/json"}).items
    assert item.text == "Hi."
