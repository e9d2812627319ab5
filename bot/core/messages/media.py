"""How a post is best shown in Telegram: an album of its own pictures, a playable episode or
video, or a message (with a line saying what the enclosure is, when Telegram cannot play it).

Why here: the choice is a rule about the post, not about Telegram's wire format, so it is pure
and tested alone; `bot/telegram/messenger.py` only sends what this decides. The limits are the
Bot API's for files sent by URL (Telegram fetches them itself): photos up to 5 MB, other files
up to 20 MB; an album holds 2-10 items, and a caption is at most 1,024 characters after entity
parsing. A declared length is trusted only when the feed gives one: an enclosure of unknown
size is linked, never sent (Telegram refuses what it cannot fetch, and a refusal costs a try).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import unescape
from urllib.parse import urlsplit

from bot.core.lang import N_
from bot.core.messages.escape import esc, esc_attr
from bot.core.types import Enclosure, MediaKind

ALBUM_MIN = 2
ALBUM_MAX = 10
CAPTION_LIMIT = 1024  # UTF-16 code units after entity parsing
TEXT_LIMIT = 4096  # a message's, likewise
EPISODE_LABEL = N_("Episode")
VIDEO_LABEL = N_("Video")
_TAG = re.compile(r"<[^>]+>")
FILE_URL_LIMIT = 20 * 1024 * 1024  # bytes: audio, video and documents sent by URL
PHOTO_URL_LIMIT = 5 * 1024 * 1024  # bytes: photos sent by URL


@dataclass(frozen=True, slots=True)
class Media:
    """What is sent instead of a plain message: an album's picture URLs, or one file's URL."""

    kind: MediaKind
    urls: tuple[str, ...]
    title: str | None = None
    performer: str | None = None
    duration: int | None = None


def media_for(
    images: Sequence[str], enclosure: Enclosure | None, title: str | None = None
) -> Media | None:
    """A playable enclosure first (the episode is the post), else an album of 2-10 pictures,
    else None (a message, with its one picture above the text)."""
    if enclosure is not None and playable(enclosure):
        return Media(
            enclosure.kind,
            (enclosure.url,),
            title=title or None,
            performer=enclosure.performer,
            duration=enclosure.duration,
        )
    distinct = tuple(dict.fromkeys(images))
    if len(distinct) >= ALBUM_MIN:
        return Media(MediaKind.ALBUM, distinct[:ALBUM_MAX])
    return None


def has_player(link: str | None) -> bool:
    """A video page Telegram previews as a player card (YouTube, Vimeo): the card is better
    than the feed's thumbnail shown as a still photo."""
    if not link:
        return False
    try:
        parts = urlsplit(link)
    except ValueError:
        return False
    host = (parts.hostname or "").lower().removeprefix("www.").removeprefix("m.")
    if host == "youtu.be" or host == "vimeo.com":
        return len(parts.path) > 1
    return host == "youtube.com" and (
        parts.path == "/watch" or parts.path.startswith(("/shorts/", "/live/"))
    )


def playable(enclosure: Enclosure) -> bool:
    """Telegram can fetch it: a declared length within the limit for files sent by URL."""
    return enclosure.length is not None and 0 < enclosure.length <= FILE_URL_LIMIT


def with_line(message_html: str, line: str) -> str:
    """The message with `line` below it, when both fit one message (else the message alone)."""
    joined = f"{message_html}\n\n{line}"
    return joined if _units(visible(joined)) <= TEXT_LIMIT else message_html


def caption_fits(message_html: str) -> bool:
    """The message fits as a caption: Telegram counts its text after entity parsing (the
    markup and the links' addresses do not count)."""
    return _units(visible(message_html)) <= CAPTION_LIMIT


def visible(message_html: str) -> str:
    """What Telegram shows of a message's HTML: its text, entities decoded."""
    return unescape(_TAG.sub("", message_html))


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def enclosure_line(enclosure: Enclosure, label: str) -> str:
    """ "▶ Episode, 73 min, 68 MB", linked to the file: what a chat gets when it cannot play it."""
    parts = [label]
    if enclosure.duration:
        parts.append(f"{max(1, round(enclosure.duration / 60))} min")
    if enclosure.length:
        parts.append(f"{max(1, round(enclosure.length / 1_000_000))} MB")
    return f'▶ <a href="{esc_attr(enclosure.url)}">{esc(", ".join(parts))}</a>'


def encode(media: Media | None) -> str | None:
    """The stored form (the outbox's `media` column)."""
    if media is None:
        return None
    return json.dumps(
        {
            "kind": media.kind.value,
            "urls": list(media.urls),
            "title": media.title,
            "performer": media.performer,
            "duration": media.duration,
        },
        ensure_ascii=False,
    )


def decode(stored: str | None) -> Media | None:
    """The stored form read back; None for anything else (an older row, a damaged one)."""
    if not stored:
        return None
    try:
        data = json.loads(stored)
        kind = MediaKind(data["kind"])
        urls = tuple(str(u) for u in data["urls"])
    except (ValueError, KeyError, TypeError):
        return None
    duration = data.get("duration")
    return Media(
        kind,
        urls,
        title=data.get("title"),
        performer=data.get("performer"),
        duration=duration if isinstance(duration, int) else None,
    )
