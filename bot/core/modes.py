"""A subscription's modes, each declared once.

A mode is a setting with a few named values (`/format FEED title|summary|full`). Each has an
enum here and one `Mode` row in `MODES`: its command, its values and the words also read as one
of them, the reply after each value is set, the /list label of each value that differs from the
default, and (for the switches under /list) the button's labels and cycle. The settings handlers,
their replies, the bare command's answer, /list and the store's one setter all read this table,
so a new value or a new mode is one edit here (and its texts in the catalogs).

Why one table: the same mode used to be spelled in about seven places (two booleans for
previews, two for edits, bare strings for the format and the summary) and they drifted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bot.core.lang import N_


class Format(StrEnum):
    """How much of a post a message shows (`/format`)."""

    TITLE = "title"
    SUMMARY = "summary"
    FULL = "full"


class Preview(StrEnum):
    """What is shown above or below a message's text (`/preview`)."""

    IMAGE = "image"  # the post's own image, large, above the text
    LINK = "link"  # Telegram's preview of the post's link
    OFF = "off"


class Edits(StrEnum):
    """Which edits of a post are announced (`/edits`)."""

    ALL = "all"  # every edit; minor ones say so
    SUBSTANTIVE = "substantive"  # not typo fixes or a changed word
    OFF = "off"


class SummaryMode(StrEnum):
    """Who writes a message's summary (`/summary`)."""

    EXTRACT = "extract"  # the post's own sentences
    MODEL = "model"  # the operator's language model


class Sound(StrEnum):
    """`/silent FEED on`: messages arrive without a notification sound."""

    LOUD = "off"
    SILENT = "on"


AnyMode = Format | Preview | Edits | SummaryMode | Sound


@dataclass(frozen=True, slots=True)
class Mode:
    """One mode: everything the chat's commands and views say about it."""

    command: str  # the chat command that sets it (`/format FEED VALUE`)
    column: str  # the subscription's stored column
    values: tuple[AnyMode, ...]  # in the order they are offered
    default: AnyMode
    replies: Mapping[AnyMode, str]  # after setting a value; `{title}` is the feed's
    labels: Mapping[AnyMode, str]  # /list's words for each value but the default
    aliases: Mapping[str, AnyMode] = field(default_factory=dict)  # other words read as values
    buttons: Mapping[AnyMode, str] = field(default_factory=dict)  # the switch under /list
    cycle: tuple[AnyMode, ...] = ()  # what the switch steps through

    def parse(self, word: str) -> AnyMode | None:
        """The value a typed word means (any case, an alias too), or None."""
        folded = word.strip().lower()
        for value in self.values:
            if folded == value.value:
                return value
        return self.aliases.get(folded)

    def toggled(self, value: AnyMode) -> AnyMode:
        """The value after pressing the switch under /list (a value outside the cycle goes to
        its last step: `substantive` edits → off)."""
        if value in self.cycle:
            return self.cycle[(self.cycle.index(value) + 1) % len(self.cycle)]
        return self.cycle[-1]

    def label(self, value: AnyMode) -> str | None:
        """/list's words for the value, or None for the default (not worth a word)."""
        return None if value == self.default else self.labels[value]


FORMAT = Mode(
    command="format",
    column="message_format",
    values=tuple(Format),
    default=Format.SUMMARY,
    replies={
        Format.TITLE: N_("Messages from <b>{title}</b> now show the title and source only."),
        Format.SUMMARY: N_("Messages from <b>{title}</b> now show a summary of the post."),
        Format.FULL: N_("Messages from <b>{title}</b> now show the whole post, as much as fits."),
    },
    labels={Format.TITLE: N_("titles only"), Format.FULL: N_("whole posts")},
)
PREVIEW = Mode(
    command="preview",
    column="preview_mode",
    values=tuple(Preview),
    default=Preview.IMAGE,
    replies={
        Preview.IMAGE: N_("Messages from <b>{title}</b> now show the post's image above the text."),
        Preview.LINK: N_("Messages from <b>{title}</b> now show a preview of the post's link."),
        Preview.OFF: N_("Messages from <b>{title}</b> now show no preview."),
    },
    labels={Preview.LINK: N_("link previews"), Preview.OFF: N_("no previews")},
    aliases={"on": Preview.LINK},  # what `on` meant before images
    buttons={
        Preview.IMAGE: N_("previews: image"),
        Preview.LINK: N_("previews: link"),
        Preview.OFF: N_("previews: off"),
    },
    cycle=(Preview.IMAGE, Preview.LINK, Preview.OFF),
)
EDITS = Mode(
    command="edits",
    column="edit_mode",
    values=tuple(Edits),
    default=Edits.ALL,
    replies={
        Edits.ALL: N_("Edit notifications for <b>{title}</b>: every edit (minor ones say so)."),
        Edits.SUBSTANTIVE: N_(
            "Edit notifications for <b>{title}</b>: substantive edits only (not typo fixes or a "
            "changed word; a changed number always counts)."
        ),
        Edits.OFF: N_("Edit notifications for <b>{title}</b>: off."),
    },
    labels={Edits.SUBSTANTIVE: N_("substantive edits only"), Edits.OFF: N_("no edits")},
    aliases={"on": Edits.ALL},
    buttons={
        Edits.ALL: N_("edits on"),
        Edits.SUBSTANTIVE: N_("edits on"),
        Edits.OFF: N_("edits off"),
    },
    cycle=(Edits.ALL, Edits.OFF),
)
SUMMARY = Mode(
    command="summary",
    column="summary_mode",
    values=tuple(SummaryMode),
    default=SummaryMode.EXTRACT,
    replies={
        SummaryMode.MODEL: N_(
            "Messages from <b>{title}</b> now have a summary written by the language model, in "
            "this chat's language (the post's own sentences whenever the model cannot answer)."
        ),
        SummaryMode.EXTRACT: N_(
            "Messages from <b>{title}</b> now summarise with the post's own sentences."
        ),
    },
    labels={SummaryMode.MODEL: N_("model summaries")},
)
SILENT = Mode(
    command="silent",
    column="silent",
    values=(Sound.SILENT, Sound.LOUD),
    default=Sound.LOUD,
    replies={
        Sound.SILENT: N_("Messages from <b>{title}</b> now arrive without a sound."),
        Sound.LOUD: N_("Messages from <b>{title}</b> now arrive with a notification sound."),
    },
    labels={Sound.SILENT: N_("silent")},
)

MODES: dict[str, Mode] = {m.command: m for m in (EDITS, PREVIEW, FORMAT, SUMMARY, SILENT)}
"""Every mode by its command."""

_BY_TYPE: dict[type, Mode] = {type(m.default): m for m in MODES.values()}


def mode_of(value: AnyMode) -> Mode:
    """The mode a value belongs to."""
    return _BY_TYPE[type(value)]
