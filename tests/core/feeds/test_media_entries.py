"""What a feed says of a post's media (issue 47): its pictures for an album, its audio or video
enclosure with the iTunes duration and author."""

from __future__ import annotations

import pytest

from bot.core.feeds.entries import duration_seconds
from bot.core.feeds.parse import parse_feed
from bot.core.types import Enclosure, MediaKind
from tests.support.fixtures.media_feeds import Post, rss

WHEN = "Tue, 01 Dec 2026 09:00:00 GMT"


def one(post: Post) -> object:
    [item] = parse_feed(rss("Feed", "https://f.example", (post,))).items
    return item


def test_media_content_pictures_are_the_album_in_order() -> None:
    pics = tuple(f"https://files.example/m/{n}.jpg" for n in range(4))
    item = one(Post("https://social.example/1", "", "<p>Hi</p>", WHEN, pics))
    assert item.images == pics  # type: ignore[attr-defined]
    assert item.image == pics[0]  # type: ignore[attr-defined]


def test_body_pictures_make_the_album_when_the_feed_lists_none() -> None:
    body = (
        '<p><img src="https://blog.example/a.jpg"><img src="https://blog.example/b.jpg" '
        'width="640"><img src="https://gravatar.com/avatar/x?s=60"></p>'
    )
    item = one(Post("https://blog.example/1", "Gallery", body, WHEN))
    assert item.images == ("https://blog.example/a.jpg", "https://blog.example/b.jpg")  # type: ignore[attr-defined]


def test_a_thumbnail_and_the_body_picture_are_not_mixed_into_an_album() -> None:
    body = '<p><img src="https://blog.example/big.jpg"></p>'
    post = Post("https://blog.example/1", "One", body, WHEN, ("https://blog.example/thumb.jpg",))
    item = one(post)
    assert len(item.images) == 1  # type: ignore[attr-defined]


def test_an_audio_enclosure_with_itunes_tags() -> None:
    post = Post(
        "https://pod.example/2",
        "Ep 2",
        "<p>Notes</p>",
        WHEN,
        (),
        ("https://cdn.pod.example/2.mp3", "audio/mpeg", 68_000_000),
        "1:13:05",
    )
    assert one(post).enclosure == Enclosure(  # type: ignore[attr-defined]
        "https://cdn.pod.example/2.mp3", MediaKind.AUDIO, 68_000_000, 4385, "Ada Lindqvist"
    )


@pytest.mark.parametrize(
    ("kind", "length", "expected"),
    [("video/mp4", 10, (MediaKind.VIDEO, 10)), ("audio/x-m4a", 0, (MediaKind.AUDIO, None))],
)
def test_video_and_unknown_lengths(kind: str, length: int, expected: tuple[object, ...]) -> None:
    post = Post(
        "https://pod.example/3", "x", "<p>y</p>", WHEN, (), ("https://c.example/f", kind, length)
    )
    enclosure = one(post).enclosure  # type: ignore[attr-defined]
    assert (enclosure.kind, enclosure.length) == expected


def test_other_enclosures_are_not_episodes() -> None:
    for kind, url in (
        ("application/pdf", "https://c.example/f.pdf"),
        ("audio/mpeg", "javascript:x"),
    ):
        post = Post("https://pod.example/4", "x", "<p>y</p>", WHEN, (), (url, kind, 10))
        assert one(post).enclosure is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("4385", 4385),
        ("73:05", 4385),
        ("1:13:05", 4385),
        ("01:13:05.5", 4385),
        ("0", None),
        ("", None),
        (None, None),
        ("an hour", None),
        ("1:2:3:4", None),
    ],
)
def test_itunes_durations(value: object, seconds: int | None) -> None:
    assert duration_seconds(value) == seconds


def entry(images: list[str], html: str) -> tuple[str, ...]:
    from bot.core.feeds.entries import raw_entry

    made = raw_entry(
        key="k",
        title="t",
        link="https://blog.example/p/",
        author=None,
        published=None,
        terms=(),
        html=html,
        position=0,
        images=images,
    )
    return made.images


def test_an_album_takes_one_source_the_feeds_list_first() -> None:
    body = "".join(f'<img src="https://a.example/{n}.jpg">' for n in range(3))
    listed = ["https://z.example/1.jpg", "https://z.example/2.jpg"]
    assert entry(listed, body) == tuple(listed)  # two listed: the body is not scanned
    one = ["https://z.example/1.jpg"]
    assert entry(one, body) == tuple(f"https://a.example/{n}.jpg" for n in range(3))
    assert entry([], "<p>no pictures</p>") == ()


def test_relative_pictures_resolve_against_the_post() -> None:
    assert entry(["/m/1.jpg", "/m/2.jpg"], "") == (
        "https://blog.example/m/1.jpg",
        "https://blog.example/m/2.jpg",
    )
    assert entry([], '<img src="a.jpg"><img src="b.jpg">') == (
        "https://blog.example/p/a.jpg",
        "https://blog.example/p/b.jpg",
    )
