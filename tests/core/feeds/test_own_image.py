"""The post's own picture or none (issue 42): avatars, feed-service pixels and buttons, share
blocks, emoji, logos and anything declared or sized under about 300 px are never shown large
above a message; relative pictures and links resolve against the entry's or the feed's URL."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

from bot.core.feeds.entries import picture_base
from bot.core.feeds.images import MIN_SIDE, Candidate, body_images, is_furniture, own_images
from bot.core.feeds.parse import parse_feed, site_of


def own_image(candidates: Iterable[object]) -> str | None:
    """The one picture shown above a message: the first own picture of the candidates."""
    found = own_images(candidates, limit=1)
    return found[0] if found else None


MEDIA = 'xmlns:media="http://search.yahoo.com/mrss/"'


def rss(item_xml: str, link: str = "") -> str:
    linked = f"<link>{link}</link>" if link else ""
    return (
        f'<?xml version="1.0"?><rss version="2.0" {MEDIA}><channel><title>T</title>'
        f"<item><guid>g</guid><title>P</title>{linked}{item_xml}</item></channel></rss>"
    )


def image_of(body_html: str, link: str = "", extra: str = "") -> str | None:
    from html import escape

    return (
        parse_feed(rss(f"{extra}<description>{escape(body_html)}</description>", link).encode())
        .items[0]
        .image
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://secure.gravatar.com/avatar/0a1b2c3d?s=96&d=identicon&r=G",
        "https://avatars.githubusercontent.com/in/4242?s=60&v=4",
        "http://feeds.feedburner.com/~ff/ExampleBlog?d=AbCdEf",
        "http://feeds.feedburner.com/~r/ExampleBlog/~4/XyZ",
        "https://forum.example/user_avatar/forum.example/ana/48/17_2.png",
        "https://forum.example/letter_avatar_proxy/v4/letter/a/8797f3/48.png",
        "https://s.w.org/images/core/emoji/15.0/72x72/1f642.png",
        "https://cdn.example/sd/twitter_icon_large.png",
        "https://podcast.example/plugins/social/images/icons/www-128.png",
        "https://blog.example/files/flattr-badge-large.png",
        "https://blog.example/images/Our+Blog+logo.jpg",
        "https://cdn.example/files/2026/09/thumb.jpg?w=150",
        "https://lh3.example.com/img/AbC/s72-c/photo.jpg",
        "https://blog.example/uploads/2026/09/hero-150x150.jpg",
        "https://b.thumbs.redditmedia.com/AbCdEf123.jpg",
        "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
        "http://forum.example/skins/default/filetype/jpg.gif",  # a forum's attachment-type icon
        "http://www.news.example/scale/geometry/264/q80/imgs/18/wildfly.jpeg",  # a resize service
        "https://cdn.example/resize/200x150/photo.jpg",
        "https://wobsite.example/images/post_images/2026-10-03-reader.svg",  # no preview of SVG
        "https://wobsite.example/images/diagram.SVGZ",
    ],
)
def test_furniture_by_its_address_is_never_the_picture(url: str) -> None:
    assert is_furniture(Candidate(url))
    assert own_image([url]) is None


@pytest.mark.parametrize(
    "url",
    [
        "https://blog.example/uploads/2026/09/silicon-valley-office.jpg",
        "https://cdn.example/files/2026/09/pixel-10-review.jpg?w=1024",
        "https://lh3.example.com/img/AbC/s1600/photo.jpg",
        "https://blog.example/uploads/2026/11/launch-1200x630.png",
        "https://img.example/catalogue/cover.jpg",
        "https://cdn.example/resize/1200x630/photo.jpg",
        "https://cdn.example/thumb/800/photo.jpg",
    ],
)
def test_a_real_picture_is_kept(url: str) -> None:
    assert own_image([url]) == url


def test_declared_sizes_under_about_300_px_are_thumbnails() -> None:
    assert MIN_SIDE == 300
    assert own_image([Candidate("https://i.example/a.jpg", width=150, height=150)]) is None
    assert own_image([Candidate("https://i.example/a.jpg", width=299)]) is None
    assert own_image([Candidate("https://i.example/a.jpg", height=104)]) is None
    assert own_image([Candidate("https://i.example/a.jpg", width=300)]) == "https://i.example/a.jpg"
    # the width decides: a wide banner is a picture
    wide = Candidate("https://i.example/b.jpg", width=1200, height=250)
    assert own_image([wide]) == "https://i.example/b.jpg"


def test_media_rss_thumbnail_sizes_count() -> None:
    small = '<media:thumbnail url="https://img.example/t.jpg" width="104" height="78"/>'
    big = '<media:content url="https://img.example/c.jpg" medium="image" width="1280"/>'
    assert image_of("<p>Words.</p>", extra=small) is None
    assert image_of("<p>Words.</p>", extra=small + big) == "https://img.example/c.jpg"


def test_images_in_a_share_or_author_block_are_not_the_post_s() -> None:
    body = (
        "<p>The launch went well.</p>"
        '<div class="share-buttons"><a href="https://x.example/share"><img src="https://cdn.example/x.png"></a></div>'
        '<div class="author-box"><img src="https://cdn.example/me.jpg" width="400"></div>'
        '<p><img src="https://cdn.example/launch.jpg"></p>'
    )
    assert image_of(body) == "https://cdn.example/launch.jpg"
    found = body_images(body)
    assert [c.furniture for c in found] == [True, True, False]


@pytest.mark.parametrize(
    "href",
    [
        "https://apoia.se/jornal_enchentes",
        "https://www.patreon.com/somebody",
        "https://ko-fi.com/somebody",
        "https://news.example/donate?from=post",
        "/support-us",
    ],
)
def test_a_banner_linking_to_a_donation_page_is_not_the_post_s_picture(href: str) -> None:
    body = (
        "<p>The council voted on the new bus lanes.</p>"
        f'<p><a href="{href}"><img src="https://cdn.news.example/assets/give.gif"></a></p>'
        '<p><a href="https://cdn.news.example/full/lanes.jpg"><img src="https://cdn.news.'
        'example/lanes.jpg"></a></p>'
    )
    assert image_of(body) == "https://cdn.news.example/lanes.jpg"
    assert [c.furniture for c in body_images(body)] == [True, False]
    classed = body.replace(f'<a href="{href}">', f'<a class="wide" href="{href}">')
    assert [c.furniture for c in body_images(classed)] == [True, False]


def test_reddit_s_link_to_a_picture_is_the_post_s_picture() -> None:
    body = (
        '<table><tr><td><a href="https://www.reddit.com/r/pics/comments/1/x/"><img src="https:'
        '//a.thumbs.redditmedia.com/abc.jpg" alt="x"></a></td><td> submitted by <a href="https:'
        '//www.reddit.com/user/ana">/u/ana</a><br><span><a href="https://i.imgur.com/pTR7.jpg">'
        '[link]</a></span> <span><a href="https://www.reddit.com/r/pics/comments/1/x/">[12 '
        "comments]</a></span></td></tr></table>"
    )
    assert image_of(body) == "https://i.imgur.com/pTR7.jpg"
    quoted = body.replace('"https://i.imgur.com/pTR7.jpg"', "'https://i.imgur.com/pTR7.jpg'")
    assert image_of(quoted) == "https://i.imgur.com/pTR7.jpg"


def test_a_thumbnail_s_full_size_picture_is_taken_when_the_thumbnail_is_too_small() -> None:
    body = (
        '<p><a href="https://cdn.cast.example/ep207.jpg"><img src="https://cdn.cast.example/'
        'ep207-thumb.jpg" width="150"></a></p><p>We talk about planetariums.</p>'
    )
    assert image_of(body) == "https://cdn.cast.example/ep207.jpg"


def test_pictures_linked_from_the_text_or_beside_the_post_s_own_are_not_taken() -> None:
    notes = (
        '<ul><li><a href="https://shop.example/cheese.jpg">Cream cheese</a></li>'
        '<li><a href="https://giphy.example/g.gif">[link] to a gif</a></li></ul>'
    )
    assert image_of(notes) is None
    own = (
        '<p><img src="https://blog.example/photo.jpg"></p>'
        '<p><a href="https://i.imgur.com/other.jpg">[link]</a></p>'
    )
    assert image_of(own) == "https://blog.example/photo.jpg"
    assert [c.url for c in body_images(own)] == ["https://blog.example/photo.jpg"]


def test_a_tracking_pixel_and_an_emoji_before_the_photo_are_skipped() -> None:
    body = (
        '<p>Hello <img src="https://blog.example/smile.png" class="wp-smiley" style="height: 1em">'
        '<img src="https://stats.example/p.gif" width="1" height="1"></p>'
        '<img src="https://blog.example/photo.jpg" style="width: 700px; height: 467px;">'
    )
    assert image_of(body) == "https://blog.example/photo.jpg"


def test_only_furniture_gives_no_image() -> None:
    body = (
        '<p>Post.</p><a href="http://feeds.feedburner.com/~ff/Blog?a=1">'
        '<img src="http://feeds.feedburner.com/~ff/Blog?d=yIl2AUoC8zA" border="0"></a>'
        '<img src="http://feeds.feedburner.com/~r/Blog/~4/AbC" height="1" width="1" alt=""/>'
    )
    assert image_of(body) is None


def test_a_relative_body_image_resolves_against_the_entry_link() -> None:
    body = '<p>See.</p><img src="/uploads/2026/chart.png">'
    assert image_of(body, link="https://blog.example/2026/09/post/") == (
        "https://blog.example/uploads/2026/chart.png"
    )
    assert image_of(body) is None  # nothing to resolve it against


def test_a_link_post_s_relative_picture_is_the_feed_s_site_s() -> None:
    """A link post's link is the project it points at (GitHub); its "/assets/…" picture is
    on the blog that published it: the feed's <link>, else the feed's own address."""
    from html import escape

    body = escape('<p>Ten years on.</p><img src="/assets/portmap-window.png" width="400">')
    item = (
        "<item><guid>g</guid><title>P</title><link>https://github.com/someone/portmap</link>"
        f"<description>{body}</description></item>"
    )
    site = f"<link>https://www.notes.example/</link>{item}"
    head = '<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
    with_site = parse_feed(f"{head}{site}</channel></rss>".encode(), url="https://x.example/f")
    assert with_site.items[0].image == "https://www.notes.example/assets/portmap-window.png"
    fetched = parse_feed(f"{head}{item}</channel></rss>".encode(), url="https://notes.example/f")
    assert fetched.items[0].image == "https://notes.example/assets/portmap-window.png"


def test_a_relative_site_link_resolves_against_the_feed_url() -> None:
    """A channel `<link>/</link>` is the site at the feed's own address."""
    parsed = {"feed": {"link": "/"}}
    assert site_of(parsed, "https://notes.example/blog/feed.xml") == "https://notes.example/"
    assert site_of({"feed": {}}, "https://notes.example/feed.xml") == (
        "https://notes.example/feed.xml"
    )


@pytest.mark.parametrize(
    ("link", "site", "base"),
    [
        ("https://blog.example/p/1/", "https://blog.example", "https://blog.example/p/1/"),
        ("https://www.blog.example/p/1/", "https://blog.example", "https://www.blog.example/p/1/"),
        ("https://github.com/a/b", "https://blog.example/", "https://blog.example/"),
        ("https://github.com/a/b", "", "https://github.com/a/b"),
        (None, "https://blog.example/", "https://blog.example/"),
        (None, "", None),
    ],
)
def test_a_picture_resolves_against_the_post_unless_it_links_off_the_site(
    link: str | None, site: str, base: str | None
) -> None:
    assert picture_base(link, site) == base


def test_relative_entry_links_resolve_against_the_feed_url() -> None:
    document = rss("<description>Body.</description>", link="/2026/09/08/hello-world/")
    plain = parse_feed(document.encode())
    fetched = parse_feed(document.encode(), url="https://notes.example/atom.xml")
    assert plain.items[0].link is None  # no base: no link at all
    assert fetched.items[0].link == "https://notes.example/2026/09/08/hello-world/"
    assert fetched.items[0].key == plain.items[0].key  # stored posts keep their identity
    atom = (
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>N</title>'
        '<entry><id>tag:n,1</id><title>Hi</title><link href="posts/hi.html"/>'
        "<content type='html'>x</content></entry></feed>"
    )
    assert parse_feed(atom.encode(), url="https://n.example/blog/atom.xml").items[0].link == (
        "https://n.example/blog/posts/hi.html"
    )


def test_relative_json_feed_urls_resolve_too() -> None:
    document = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "J",
            "items": [{"id": "1", "url": "/p/1", "content_text": "Hi."}],
        }
    ).encode()
    item = parse_feed(document, url="https://j.example/feed.json").items[0]
    assert item.link == "https://j.example/p/1"
    assert item.key == "1"


def test_every_own_picture_in_order_once_at_most_ten() -> None:
    from bot.core.feeds.images import own_images

    pics = [f"https://img.example/walk-{n}.jpg" for n in range(12)]
    offered = [pics[0], "https://gravatar.com/avatar/1", pics[1], pics[0], "/rel.jpg", *pics[2:]]
    found = own_images(offered, "https://blog.example/post/")
    assert found[:3] == (pics[0], pics[1], "https://blog.example/rel.jpg")
    assert len(found) == 10
    assert own_images(pics, limit=2) == tuple(pics[:2])
    assert own_images([]) == ()


def test_a_media_rss_mapping_may_name_its_address_href() -> None:
    assert own_image([{"href": "https://img.example/cover.jpg"}]) == "https://img.example/cover.jpg"
    assert own_image([{"url": None, "href": "https://img.example/b.jpg"}]) == (
        "https://img.example/b.jpg"
    )


@pytest.mark.parametrize(
    "sizes",
    [
        {"width": "150"},
        {"height": "104"},
        {"width": "150px"},
        {"width": 120, "height": 900},
    ],
)
def test_a_media_rss_mapping_declared_small_is_a_thumbnail(sizes: dict[str, object]) -> None:
    assert own_image([{"url": "https://img.example/t.jpg", **sizes}]) is None


def test_a_media_rss_mapping_as_wide_as_a_banner_is_kept() -> None:
    banner = {"url": "https://img.example/banner.jpg", "width": "1200", "height": "250"}
    assert own_image([banner]) == "https://img.example/banner.jpg"
    assert own_image([{"url": "https://img.example/p.jpg", "width": "640PX"}]) == (
        "https://img.example/p.jpg"
    )


def test_an_address_that_cannot_be_read_is_never_the_picture() -> None:
    assert is_furniture(Candidate("https://[::1/broken.jpg"))


def test_a_number_in_the_query_that_is_not_a_size_says_nothing() -> None:
    assert own_image(["https://img.example/photo.jpg?v=2"]) == "https://img.example/photo.jpg?v=2"
    assert own_image(["https://img.example/photo.jpg?w=large"]) == (
        "https://img.example/photo.jpg?w=large"
    )


@pytest.mark.parametrize(
    "img",
    [
        '<img src="https://img.example/a.jpg" width="150">',
        '<img src="https://img.example/a.jpg" height="100">',
        '<img src="https://img.example/a.jpg" width="150px">',
        '<img src="https://img.example/a.jpg" style="width: 120px">',
        '<img src="https://img.example/a.jpg" style="height: 64px">',
        '<img src="https://img.example/a.jpg" width="1200" style="width: 90px">',  # CSS wins
    ],
)
def test_a_body_image_declared_small_by_any_attribute_is_a_thumbnail(img: str) -> None:
    assert image_of(f"<p>Words.</p>{img}") is None


def test_a_body_image_the_style_sizes_as_a_wide_banner_is_kept() -> None:
    img = '<img src="https://img.example/banner.jpg" style="width: 1200px; height: 250px">'
    assert image_of(img) == "https://img.example/banner.jpg"
    (found,) = body_images(img)
    assert (found.width, found.height) == (1200, 250)
    (found,) = body_images('<img src="https://img.example/b.jpg" width="800" height="450">')
    assert (found.width, found.height) == (800, 450)


def test_a_lazy_loaded_body_image_is_read_from_data_src() -> None:
    lazy = '<img src="" data-src="https://img.example/lazy.jpg">'
    assert image_of(f"<p>Words.</p>{lazy}") == "https://img.example/lazy.jpg"
    assert image_of('<img data-src="https://img.example/only.jpg">') == (
        "https://img.example/only.jpg"
    )


def test_a_stray_closing_tag_before_the_picture_is_ignored() -> None:
    body = '</div></p><img src="https://img.example/photo.jpg">'
    assert [c.url for c in body_images(body)] == ["https://img.example/photo.jpg"]
    assert image_of(body) == "https://img.example/photo.jpg"


def test_a_share_block_ends_at_its_closing_tag_even_around_unclosed_paragraphs() -> None:
    body = (
        '<div class="sharedaddy"><p>Share this: <a href="https://x.example/s">X</a></div>'
        '<img src="https://img.example/photo.jpg">'
    )
    assert [c.furniture for c in body_images(body)] == [False]
    assert image_of(body) == "https://img.example/photo.jpg"


def test_a_plain_block_inside_a_share_block_closes_itself_not_the_share_block() -> None:
    """Tags without a class or id are not read for marks, but still open and close blocks:
    the inner `</div>` ends the inner div, and the picture after it is still the share's."""
    body = (
        '<div class="sharedaddy"><div><p>Share this</p></div>'
        '<img src="https://cdn.example/share.png" width="400"></div>'
        '<img src="https://img.example/photo.jpg">'
    )
    assert [c.furniture for c in body_images(body)] == [True, False]
    assert image_of(body) == "https://img.example/photo.jpg"


@pytest.mark.parametrize("empty", ["<div/>", "<div / >", "<div />"])
def test_a_plain_self_closed_tag_opens_no_block(empty: str) -> None:
    """`<div/>` holds nothing: the share block's `</div>` closes the share block itself."""
    body = f'<div class="sharedaddy">{empty}</div><img src="https://img.example/photo.jpg">'
    assert [c.furniture for c in body_images(body)] == [False]


def test_a_block_named_as_furniture_by_its_id_holds_furniture() -> None:
    body = (
        '<div id="author-box"><img src="https://cdn.example/me.jpg" width="400"></div>'
        '<img src="https://img.example/photo.jpg">'
    )
    assert [c.furniture for c in body_images(body)] == [True, False]
    assert image_of(body) == "https://img.example/photo.jpg"


@pytest.mark.parametrize(
    "empty",
    [
        '<hr class="footer-rule">',
        '<div class="share-buttons"/>',
        '<div class="share-buttons" / >',
        '<span class="author-avatar"></span>',
    ],
)
def test_an_empty_or_void_furniture_element_holds_none_of_what_follows(empty: str) -> None:
    body = f'<p>Words.</p>{empty}<img src="https://img.example/photo.jpg">'
    assert [c.furniture for c in body_images(body)] == [False]
    assert image_of(body) == "https://img.example/photo.jpg"
