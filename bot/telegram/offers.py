"""Feeds offered under a message (a pasted address, a page linking to several feeds) until
someone taps one. Button data holds 64 bytes, not a URL, so the button carries a short random
token and the addresses wait here (in memory: a restart turns the buttons into expired ones,
which say to send the address again)."""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Offered:
    url: str
    title: str


class Offers:
    """At most `size` offers, each for `ttl` seconds; the oldest go first."""

    def __init__(self, size: int = 1000, ttl: float = 3600.0) -> None:
        self.size, self.ttl = size, ttl
        self._items: OrderedDict[str, tuple[float, list[Offered]]] = OrderedDict()

    def put(self, feeds: list[Offered]) -> str:
        token = secrets.token_hex(4)
        self._items[token] = (time.monotonic() + self.ttl, feeds)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return token

    def get(self, token: str, number: int) -> Offered | None:
        found = self._items.get(token)
        if found is None or found[0] < time.monotonic():
            self._items.pop(token, None)
            return None
        feeds = found[1]
        return feeds[number] if 0 <= number < len(feeds) else None
