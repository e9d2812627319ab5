"""What a post is sent as (`bot/core/messages/media.py`, issue 47)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.media import (
    CAPTION_LIMIT,
    FILE_URL_LIMIT,
    TEXT_LIMIT,
    Media,
    caption_fits,
    decode,
    enclosure_line,
    encode,
    has_player,
    media_for,
    playable,
    visible,
    with_line,
)
from bot.core.types import Enclosure, MediaKind

A, B, C = (f"https://img.example/{n}.jpg" for n in "abc")
MP3 = "https://cdn.example/ep.mp3"


def test_two_to_ten_pictures_are_an_album_of_at_most_ten() -> None:
    assert media_for([A], None) is None
    assert media_for([A, A], None) is None  # one picture twice is one picture
    assert media_for([A, B], None) == Media(MediaKind.ALBUM, (A, B))
    many = [f"https://img.example/{n}.jpg" for n in range(12)]
    album = media_for(many, None)
    assert album is not None and album.urls == tuple(many[:10])


def test_a_playable_enclosure_wins_over_the_pictures() -> None:
    episode = Enclosure(MP3, MediaKind.AUDIO, length=FILE_URL_LIMIT, duration=60, performer="Ada")
    assert media_for([A, B], episode, "Ep 1") == Media(
        MediaKind.AUDIO, (MP3,), title="Ep 1", performer="Ada", duration=60
    )
    too_big = Enclosure(MP3, MediaKind.AUDIO, length=FILE_URL_LIMIT + 1)
    assert media_for([A, B], too_big, "Ep 1") == Media(MediaKind.ALBUM, (A, B))
    assert media_for([], Enclosure(MP3, MediaKind.VIDEO), "x") is None  # size unknown
    assert media_for([], Enclosure(MP3, MediaKind.VIDEO, length=0), "x") is None
    assert media_for([], Enclosure(MP3, MediaKind.VIDEO, length=1), "") == Media(
        MediaKind.VIDEO, (MP3,)
    )


def test_playable_is_within_the_limit_for_files_sent_by_url() -> None:
    assert playable(Enclosure(MP3, MediaKind.AUDIO, length=1))
    assert playable(Enclosure(MP3, MediaKind.AUDIO, length=20 * 1024 * 1024))
    assert not playable(Enclosure(MP3, MediaKind.AUDIO, length=20 * 1024 * 1024 + 1))
    assert not playable(Enclosure(MP3, MediaKind.AUDIO, length=None))


def test_a_caption_is_counted_as_telegram_counts_it() -> None:
    link = '<a href="https://example.com/' + "x" * 500 + '">'
    assert caption_fits(link + "a" * CAPTION_LIMIT + "</a>")
    assert not caption_fits(link + "a" * (CAPTION_LIMIT + 1) + "</a>")
    assert caption_fits("&amp;" * CAPTION_LIMIT)  # one character each
    assert not caption_fits("😀" * (CAPTION_LIMIT // 2 + 1))  # two UTF-16 units each
    assert visible("<b>a &lt; b</b>") == "a < b"


def test_the_enclosure_line_says_length_and_size_and_links_the_file() -> None:
    line = enclosure_line(
        Enclosure(MP3 + "?a=1&b=2", MediaKind.AUDIO, length=68_000_000, duration=4385), "Episode"
    )
    assert line == '▶ <a href="https://cdn.example/ep.mp3?a=1&amp;b=2">Episode, 73 min, 68 MB</a>'
    assert enclosure_line(Enclosure(MP3, MediaKind.AUDIO, duration=20), "Episode").endswith(
        ">Episode, 1 min</a>"
    )
    assert enclosure_line(Enclosure(MP3, MediaKind.VIDEO, length=1_500_000), "V").endswith(
        ">V, 2 MB</a>"
    )
    assert enclosure_line(Enclosure(MP3, MediaKind.VIDEO, length=10), "<Video>").endswith(
        ">&lt;Video&gt;, 1 MB</a>"
    )


def test_a_line_is_added_only_when_the_message_still_fits() -> None:
    assert with_line("<b>Post</b>", "▶ x") == "<b>Post</b>\n\n▶ x"
    full = "a" * (TEXT_LIMIT - 3)
    assert with_line(full, "▶ x") == full
    assert with_line("a" * (TEXT_LIMIT - 5), "▶ x") == "a" * (TEXT_LIMIT - 5) + "\n\n▶ x"


def test_video_pages_with_a_player_card() -> None:
    for link in (
        "https://www.youtube.com/watch?v=abc",
        "https://m.youtube.com/watch?v=abc",
        "https://youtube.com/shorts/abc",
        "https://youtube.com/live/abc",
        "https://youtu.be/abc",
        "https://youtu.be/a",
        "https://vimeo.com/12345",
    ):
        assert has_player(link), link
    assert not has_player(None)
    for unplayed in (
        "",
        "https://youtu.be/",
        "https://vimeo.com/",
        "https://www.youtube.com/channel/abc",
        "https://blog.example/watch",
        "http://[::1",
    ):
        assert not has_player(unplayed), unplayed


@given(
    st.sampled_from(list(MediaKind)),
    st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=10),
    st.one_of(st.none(), st.text(max_size=20)),
    st.one_of(st.none(), st.integers(min_value=1, max_value=10**6)),
)
def test_the_stored_form_reads_back(
    kind: MediaKind, urls: list[str], title: str | None, duration: int | None
) -> None:
    media = Media(kind, tuple(urls), title=title, performer=title, duration=duration)
    assert decode(encode(media)) == media


def test_an_unreadable_stored_form_is_no_media() -> None:
    assert encode(None) is None
    for stored in (None, "", "[", "{}", '{"kind": "gif", "urls": []}', '{"kind": "album"}', "3"):
        assert decode(stored) is None
    assert decode('{"kind": "audio", "urls": ["u"], "duration": "9"}') == Media(
        MediaKind.AUDIO, ("u",)
    )
