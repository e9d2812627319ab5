"""Each vocabulary is declared once and everything else is derived from it (issue 24): every
command a handler names exists with a usage line, every button action has a shape and a
handler, every way adding a feed fails has a sentence, and /help and the menu list the same
commands."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from bot.runtime.i18n import translator
from bot.services.catalog import AddError
from bot.telegram import help_screen, texts
from bot.telegram.buttons import SHAPES, Action, Button, decode, encode
from bot.telegram.commands import BUTTONS, TABLE
from bot.telegram.spec import Command, CommandTable, Who

ROOT = Path(__file__).resolve().parents[2] / "bot" / "telegram"
NAMING = {"usage": 0, "setting_command": 1, "find_feed": 2}  # where the command name is


def named_commands() -> set[str]:
    """Every command name a handler passes to `usage`, `setting_command` or `find_feed`."""
    found = set()
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if name in NAMING and len(node.args) > NAMING[name]:
                arg = node.args[NAMING[name]]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
    return found


def test_every_command_a_handler_names_is_declared_with_a_usage_line() -> None:
    named = named_commands()
    assert len(named) >= 10  # the scan finds them
    for name in named:
        assert TABLE.by_name[name].usage is not None, name


def test_commands_are_declared_once_with_a_coroutine_and_a_menu_line() -> None:
    for command in TABLE:
        assert inspect.iscoroutinefunction(command.handler), command.name
        assert command.about and command.name.islower()
    assert [c.name for c in TABLE.menu()] == [c.name for c in TABLE if c.who is not Who.OPERATORS]
    assert {"addfeed", "removefeed"} == {c.name for c in TABLE if c.who is Who.OPERATORS}


def test_a_command_declared_twice_is_refused() -> None:
    twice = Command("start", TABLE.by_name["start"].handler, about="x")
    try:
        CommandTable((twice, twice))
    except ValueError:
        return
    raise AssertionError("two /start commands were accepted")


def test_help_lists_the_menu_and_hides_private_commands_in_groups() -> None:
    tr = translator("en")
    private = help_screen.help_text(tr, TABLE, private=True)
    group = help_screen.help_text(tr, TABLE, private=False)
    for command in TABLE.menu():
        assert f"/{command.name} — {command.about}" in private
        assert (f"/{command.name} — " in group) is (command.who is not Who.PRIVATE)
    assert "/addfeed —" not in private
    keywords = help_screen.command_help(tr, TABLE, "/keywords@feedwatch_bot", "lumen")
    assert keywords is not None and "<code>/keywords lumen" in keywords
    assert "match whole words" in keywords  # the command's `more`
    assert help_screen.command_help(tr, TABLE, "pause", "lumen") is None  # no arguments


def test_every_button_action_has_a_shape_a_handler_and_a_round_trip() -> None:
    assert set(SHAPES) == set(Action) == set(BUTTONS)
    examples = {
        Action.LANG: Button(Action.LANG, language="zh"),
        Action.ADD: Button(Action.ADD, count=2, token="0123abcd"),
        Action.PAGE: Button(Action.PAGE, count=12),
        Action.BACKLOG: Button(Action.BACKLOG, feed_id=7, count=3),
        Action.MODE: Button(Action.MODE, feed_id=7, setting="edits", value="substantive"),
        Action.CHAT: Button(Action.CHAT, setting="translate", value="off"),
        Action.UNDO_ALL: Button(Action.UNDO_ALL, count=1_796_300_000),
    }
    for action in Action:
        button = examples.get(action, Button(action, feed_id=42))
        assert decode(encode(button)) == button
        assert decode(encode(button) + "x") is None  # nothing past the shape
    assert decode("nope:1") is None and decode(None) is None


def test_every_way_adding_a_feed_fails_has_a_sentence() -> None:
    assert set(texts.FEED_ERRORS) == set(AddError)
