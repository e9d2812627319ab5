"""Each mode declared once (issue 41, item 2): the table every handler, reply, /list line and
store setter reads."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core.modes import (
    EDITS,
    FORMAT,
    MODES,
    PREVIEW,
    SILENT,
    SUMMARY,
    Edits,
    Format,
    Preview,
    Sound,
    SummaryMode,
    mode_of,
)
from bot.core.types import Reader

POT = Path(__file__).resolve().parents[2] / "bot" / "locale" / "messages.pot"


def _message_ids() -> set[str]:
    text = POT.read_text()
    ids = set()
    for block in re.findall(r'^msgid ((?:".*"\n)+)', text, re.M):
        ids.add("".join(re.findall(r'"(.*)"', block)).replace('\\"', '"').replace("\\n", "\n"))
    return ids


def test_every_mode_is_a_command_with_its_column_and_its_values() -> None:
    assert list(MODES) == ["edits", "preview", "format", "summary", "silent"]
    columns = {m.command: m.column for m in MODES.values()}
    assert columns == {
        "edits": "edit_mode",
        "preview": "preview_mode",
        "format": "message_format",
        "summary": "summary_mode",
        "silent": "silent",
    }
    assert [v.value for v in FORMAT.values] == ["title", "summary", "full"]
    assert [v.value for v in PREVIEW.values] == ["image", "link", "off"]
    assert [v.value for v in EDITS.values] == ["all", "substantive", "off"]
    assert [v.value for v in SUMMARY.values] == ["extract", "model"]
    assert [v.value for v in SILENT.values] == ["on", "off"]
    defaults = [m.default for m in MODES.values()]
    assert defaults == [Edits.ALL, Preview.IMAGE, Format.SUMMARY, SummaryMode.EXTRACT, Sound.LOUD]
    for value in (Format.FULL, Preview.OFF, Edits.OFF, SummaryMode.MODEL, Sound.SILENT):
        assert mode_of(value).values.count(value) == 1


def test_every_value_has_a_reply_and_each_other_than_the_default_a_label() -> None:
    known = _message_ids()
    for mode in MODES.values():
        assert set(mode.replies) == set(mode.values), mode.command
        assert set(mode.labels) == set(mode.values) - {mode.default}, mode.command
        for text in (*mode.replies.values(), *mode.labels.values(), *mode.buttons.values()):
            assert text in known, text  # a message id the catalogs translate
        for value, reply in mode.replies.items():
            assert "{title}" in reply, (mode.command, value)


def test_words_read_as_values() -> None:
    assert FORMAT.parse(" FULL ") is Format.FULL and FORMAT.parse("whole") is None
    assert EDITS.parse("on") is Edits.ALL and EDITS.parse("Substantive") is Edits.SUBSTANTIVE
    assert PREVIEW.parse("on") is Preview.LINK and PREVIEW.parse("image") is Preview.IMAGE
    assert SILENT.parse("on") is Sound.SILENT and SILENT.parse("off") is Sound.LOUD
    assert SUMMARY.parse("on") is None and SUMMARY.parse("") is None


def test_the_switches_under_list_step_through_their_cycle() -> None:
    assert [PREVIEW.toggled(v) for v in Preview] == [Preview.LINK, Preview.OFF, Preview.IMAGE]
    assert EDITS.toggled(Edits.ALL) is Edits.OFF and EDITS.toggled(Edits.OFF) is Edits.ALL
    assert EDITS.toggled(Edits.SUBSTANTIVE) is Edits.OFF  # off the cycle: its last step
    three = replace(FORMAT, cycle=(Format.TITLE, Format.SUMMARY, Format.FULL))
    assert three.toggled(Preview.OFF) is Format.FULL
    assert EDITS.buttons[Edits.SUBSTANTIVE] == EDITS.buttons[Edits.ALL] == "edits on"
    assert EDITS.buttons[Edits.OFF] == "edits off"
    assert PREVIEW.buttons[Preview.IMAGE] == "previews: image"


@pytest.mark.parametrize(
    ("reader", "labels"),
    [
        (Reader(1), []),
        (Reader(1, edits=Edits.SUBSTANTIVE), ["substantive edits only"]),
        (
            Reader(
                1,
                edits=Edits.OFF,
                preview=Preview.LINK,
                message_format=Format.TITLE,
                summary_mode=SummaryMode.MODEL,
                silent=True,
            ),
            ["no edits", "link previews", "titles only", "model summaries", "silent"],
        ),
        (
            Reader(1, preview=Preview.OFF, message_format=Format.FULL),
            ["no previews", "whole posts"],
        ),
    ],
)
def test_list_labels_name_only_what_differs_from_the_default(
    reader: Reader, labels: list[str]
) -> None:
    shown = [m.label(reader.value_of(m)) for m in MODES.values()]
    assert [label for label in shown if label is not None] == labels
