"""A post's image: Media RSS first, then image enclosures, then the body's first `<img>`;
absolute http(s) only; never part of the fingerprint."""

from __future__ import annotations

from bot.core.feeds.parse import parse_feed
from tests.core.feeds.test_own_image import own_image

MEDIA = 'xmlns:media="http://search.yahoo.com/mrss/"'


def image_of(item_xml: str) -> str | None:
    body = (
        f'<?xml version="1.0"?><rss version="2.0" {MEDIA}><channel><title>T</title>'
        f"<item><guid>g</guid><title>P</title>{item_xml}</item></channel></rss>"
    )
    return parse_feed(body.encode()).items[0].image


def test_media_thumbnail_comes_first() -> None:
    assert (
        image_of(
            '<media:thumbnail url="https://img.example/t.jpg"/>'
            '<media:content url="https://img.example/c.jpg" medium="image"/>'
            "<description>&lt;img src='https://img.example/body.jpg'&gt;</description>"
        )
        == "https://img.example/t.jpg"
    )


def test_image_media_content_then_image_enclosures() -> None:
    assert (
        image_of(
            '<media:content url="https://v.example/clip.mp4" type="video/mp4"/>'
            '<media:content url="https://img.example/c.png" type="image/png"/>'
        )
        == "https://img.example/c.png"
    )
    assert (
        image_of(
            '<enclosure url="https://a.example/talk.mp3" type="audio/mpeg" length="1"/>'
            '<enclosure url="https://img.example/e.webp" type="image/webp" length="1"/>'
        )
        == "https://img.example/e.webp"
    )


def test_else_the_first_img_of_the_body() -> None:
    html = (
        "&lt;p&gt;Intro&lt;/p&gt;&lt;img class='wp-image' SRC=\"https://img.example/a.png?w=1200&amp;amp;h=630\"&gt;"
        "&lt;img src='https://img.example/b.png'&gt;"
    )
    assert (
        image_of(f"<description>{html}</description>") == "https://img.example/a.png?w=1200&h=630"
    )


def test_relative_or_unsafe_images_are_skipped() -> None:
    html = "&lt;img src='/uploads/rel.png'&gt;&lt;img src='javascript:x'&gt;&lt;img src='https://img.example/ok.png'&gt;"
    assert image_of(f"<description>{html}</description>") == "https://img.example/ok.png"
    assert image_of("<description>No picture here.</description>") is None
    assert own_image([None, 3, "data:image/png;base64,AAAA", "https://i.example/x.gif"]) == (
        "https://i.example/x.gif"
    )


def test_an_image_change_is_not_an_edit() -> None:
    before = image_of(
        '<media:thumbnail url="https://img.example/1.jpg"/><description>Same.</description>'
    )
    feed = (
        '<?xml version="1.0"?><rss version="2.0" ' + MEDIA + "><channel><title>T</title>"
        "<item><guid>g</guid><title>P</title>{}<description>Same.</description></item>"
        "</channel></rss>"
    )
    one = parse_feed(feed.format('<media:thumbnail url="https://img.example/1.jpg"/>').encode())
    two = parse_feed(feed.format('<media:thumbnail url="https://img.example/2.jpg"/>').encode())
    assert before == one.items[0].image != two.items[0].image
    assert one.items[0].fingerprint == two.items[0].fingerprint


def test_media_content_marked_as_an_image_by_its_medium_alone() -> None:
    assert image_of('<media:content url="https://img.example/m.jpg" medium="image"/>') == (
        "https://img.example/m.jpg"
    )
    assert image_of('<media:content url="https://v.example/v.mp4" medium="video"/>') is None


def test_an_image_enclosure_of_a_few_bytes_is_no_picture_but_length_one_means_unknown() -> None:
    tiny = '<enclosure url="https://img.example/dot.jpg" type="image/jpeg" length="501"/>'
    assert image_of(tiny) is None
    for length in ("2", "2047"):
        edge = f'<enclosure url="https://img.example/e.jpg" type="image/jpeg" length="{length}"/>'
        assert image_of(edge) is None, length
    for length in ("0", "1", "2048", "", "many"):
        photo = f'<enclosure url="https://img.example/p.jpg" type="image/jpeg" length="{length}"/>'
        assert image_of(photo) == "https://img.example/p.jpg", length
