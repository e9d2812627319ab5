"""A response body read under a cap: raw bytes decoded here, so the limit holds *after*
decompression (a 10 KB gzip bomb must not become 10 GB in memory), and a web page pasted in a
chat is cut once its head is in (its feed links are there)."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Mapping

from bot.core.feeds.discover import SNIFF_BYTES, looks_like_html


class BodyError(Exception):
    """The body is over the limit (the message says raw or decompressed) or in an encoding we
    do not decode."""


async def read_capped(
    chunks: AsyncIterator[bytes],
    headers: Mapping[str, str],
    limit: int,
    page_bytes: int | None = None,
) -> bytes:
    """Read the raw stream and decode it here, refusing to produce more than `limit` bytes.
    With `page_bytes`, a body whose first bytes show a web page is cut at that many bytes."""
    coding = headers.get("content-encoding", "").strip().lower()
    decoder = _decoder_for(coding)
    cap = _Cap(limit, page_bytes, headers.get("content-type", ""))
    cap.what = "body" if decoder is None else "decompressed body"
    out = bytearray()
    raw_seen = 0
    async for chunk in chunks:
        if decoder is None:
            out += chunk
        else:
            data = chunk
            while data:
                out += decoder.decompress(data, limit - len(out) + 1)
                if cap.reached(out):
                    return bytes(out[: cap.cut])
                data = decoder.unconsumed_tail
        if cap.reached(out):  # a web page cut at its limit is kept, not an error
            return bytes(out[: cap.cut])
        raw_seen += len(chunk)
        if raw_seen > limit:
            raise BodyError(f"body larger than {limit} bytes")
    if decoder is not None:
        out += decoder.flush()
        if cap.reached(out):
            return bytes(out[: cap.cut])
    return bytes(out)


class _Cap:
    """The body's limit: an error past `limit`; for a web page (`page_bytes`, sniffed from
    the first bytes), a cut at `page_bytes` instead."""

    def __init__(self, limit: int, page_bytes: int | None, content_type: str) -> None:
        self.limit, self.page_bytes, self.content_type = limit, page_bytes, content_type
        self.cut: int | None = None
        self.what = "body"

    def reached(self, out: bytearray) -> bool:
        """True when reading should stop here and keep `out[:cut]`; raises past the limit."""
        if self.page_bytes is not None and self.cut is None and len(out) >= SNIFF_BYTES:
            if looks_like_html(bytes(out[:SNIFF_BYTES]), self.content_type):
                self.cut = min(self.page_bytes, self.limit)
            self.page_bytes = None  # sniffed once
        if self.cut is not None and len(out) >= self.cut:
            return True
        if len(out) > self.limit:
            raise BodyError(f"{self.what} larger than {self.limit} bytes")
        return False


def _decoder_for(coding: str) -> zlib._Decompress | None:
    if coding in ("", "identity"):
        return None
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS | 32)
    raise BodyError(f"unsupported content encoding {coding[:40]!r}")
