"""Button actions, declared once, and the one codec for button data.

Each `Action` has one `Shape` (what follows its word: a feed id, a feed id and a count, a
language, an offer and a number, a page); the data pattern, the encoder and the routes are
derived from that table (`SHAPES`). Button data comes back from the client and can be forged
(`"²"` passes `str.isdigit`; an id above 2^63 overflows a database integer), so it is parsed
strictly against the shape and anything else is an expired button. Every encoding stays far
below Telegram's 64-byte limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum, StrEnum

from bot.core.modes import MODES


class Action(StrEnum):
    UNSUB = "unsub"  # ✖ under /list
    EDITS = "edits"  # the edits switch under /list
    PREVIEW = "preview"  # the preview switch under /list
    BACKLOG = "backlog"  # "Also the latest N" after subscribing
    LANG = "lang"  # /language's choices
    SUB = "sub"  # subscribe to a watched feed (/start)
    ADD = "add"  # subscribe to one of the feeds found at an address
    PAGE = "page"  # a page of /list
    FULL = "full"  # an operator's full-text switch under /feeds
    FOLLOW = "follow"  # "Follow changes" under a new post's message (a post's id)
    UNFOLLOW = "unfollow"  # ✖ under /following (a post's id)
    MODE = "mode"  # a mode's values under its bare command (`/format FEED`)
    CHAT = "chat"  # a chat-wide setting's values under its bare command (`/translate`)
    LEAVE = "leave"  # a feed to leave, under a bare /unsubscribe
    KEEP = "keep"  # "Keep it" under a bare /unsubscribe's question
    UNDO = "undo"  # Undo under "Unsubscribed from …"
    UNDO_ALL = "undoall"  # Undo under "/unsubscribe all"'s answer (the feeds left together)
    REJOIN = "rejoin"  # Undo under /list after its ✖
    MUTE = "mute"  # a 👎's offer: mute the post's feed for a day (the post's delivery id)
    FEWER = "fewer"  # a 👎's offer: fewer posts about one of its categories (delivery, which)
    EXCLUDE = "exclude"  # a 👎's offer: exclude a word of its title (delivery id)


# A mode's command, a feed, one of the mode's words (`core/modes.py`): nothing else decodes.
_MODE = "({}):([1-9][0-9]{{0,17}}):({})".format(
    "|".join(MODES), "|".join(sorted({v.value for m in MODES.values() for v in m.values}))
)


class Shape(Enum):
    FEED = r"([1-9][0-9]{0,17})"  # at most 18 digits: always below 2^63
    FEED_COUNT = r"([1-9][0-9]{0,17}):([0-9])"
    LANGUAGE = r"([a-z]{2})"
    OFFER = r"([0-9a-f]{8}):([0-9])"
    PAGE = r"([0-9]{1,3})"
    MODE = _MODE  # command, feed, value
    SETTING = r"(translate):(on|off)"  # command, value
    STAMP = r"([0-9]{1,12})"  # seconds since the epoch


SHAPES: dict[Action, Shape] = {
    Action.UNSUB: Shape.FEED,
    Action.EDITS: Shape.FEED,
    Action.PREVIEW: Shape.FEED,
    Action.SUB: Shape.FEED,
    Action.FULL: Shape.FEED,
    Action.FOLLOW: Shape.FEED,  # a post's id: the same digits
    Action.UNFOLLOW: Shape.FEED,
    Action.BACKLOG: Shape.FEED_COUNT,
    Action.LANG: Shape.LANGUAGE,
    Action.ADD: Shape.OFFER,
    Action.PAGE: Shape.PAGE,
    Action.MODE: Shape.MODE,
    Action.CHAT: Shape.SETTING,
    Action.LEAVE: Shape.FEED,
    Action.KEEP: Shape.FEED,
    Action.UNDO: Shape.FEED,
    Action.UNDO_ALL: Shape.STAMP,
    Action.REJOIN: Shape.FEED,
    Action.MUTE: Shape.FEED,  # a delivery's id: the same digits
    Action.FEWER: Shape.FEED_COUNT,
    Action.EXCLUDE: Shape.FEED,
}
# Buttons about one of the chat's subscriptions (checked to still exist before they act).
ABOUT_A_SUBSCRIPTION = frozenset(
    {Action.UNSUB, Action.EDITS, Action.PREVIEW, Action.BACKLOG, Action.MODE, Action.LEAVE}
)
_PATTERNS = {action: re.compile(shape.value, re.ASCII) for action, shape in SHAPES.items()}


@dataclass(frozen=True, slots=True)
class Button:
    action: Action
    feed_id: int = 0
    # backlog: how many posts; add: which of the offer's feeds; page: which; undoall: the stamp
    count: int = 0
    language: str = ""
    token: str = ""  # add: the offer
    setting: str = ""  # mode, chat: the command whose value it sets
    value: str = ""  # mode, chat: the value


def route(action: Action) -> str:
    """What `CallbackQueryHandler(pattern=…)` routes on: the action word; `decode` does the
    rest."""
    return f"^{action.value}:"


def encode(button: Button) -> str:
    shape = SHAPES[button.action]
    if shape is Shape.LANGUAGE:
        rest = button.language
    elif shape is Shape.FEED_COUNT:
        rest = f"{button.feed_id}:{button.count}"
    elif shape is Shape.OFFER:
        rest = f"{button.token}:{button.count}"
    elif shape in (Shape.PAGE, Shape.STAMP):
        rest = str(button.count)
    elif shape is Shape.MODE:
        rest = f"{button.setting}:{button.feed_id}:{button.value}"
    elif shape is Shape.SETTING:
        rest = f"{button.setting}:{button.value}"
    else:
        rest = str(button.feed_id)
    return f"{button.action.value}:{rest}"


def decode(data: str | None) -> Button | None:
    """The button, or None for anything this bot did not write."""
    word, _, rest = (data or "").partition(":")
    try:
        action = Action(word)
    except ValueError:
        return None
    match = _PATTERNS[action].fullmatch(rest)
    if match is None:
        return None
    shape, parts = SHAPES[action], match.groups()
    if shape is Shape.LANGUAGE:
        return Button(action, language=parts[0])
    if shape is Shape.FEED_COUNT:
        return Button(action, feed_id=int(parts[0]), count=int(parts[1]))
    if shape is Shape.OFFER:
        return Button(action, count=int(parts[1]), token=parts[0])
    if shape in (Shape.PAGE, Shape.STAMP):
        return Button(action, count=int(parts[0]))
    if shape is Shape.MODE:
        return Button(action, feed_id=int(parts[1]), setting=parts[0], value=parts[2])
    if shape is Shape.SETTING:
        return Button(action, setting=parts[0], value=parts[1])
    return Button(action, feed_id=int(parts[0]))
