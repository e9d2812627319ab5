"""A chat command declared once: its name, handler, menu line, usage line and who may use it.

Each area module lists its commands in `COMMANDS`; `commands/__init__.py` joins them into one
`CommandTable`, from which the app registers handlers and the menu, `/help` lists the lines, and
a wrong argument is answered with the usage line. Nothing else names a command.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot.core.lang import Translator

if TYPE_CHECKING:
    from telegram import Update

    from bot.telegram.context import Context

Handler = Callable[["Update", "Context"], Coroutine[Any, Any, Any]]


class Who(StrEnum):
    """Who may use a command (group admins are checked by the handlers that change things)."""

    ANYONE = "anyone"  # in any chat
    PRIVATE = "private"  # in a private chat only (listed in /help there)
    OPERATORS = "operators"  # the bot's operators (BOT_ADMIN_IDS); not in the menu


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    handler: Handler
    about: str  # the menu's and /help's line (a message id)
    usage: str | None = None  # `{feed}` names an example feed (a message id)
    who: Who = Who.ANYONE
    more: str | None = None  # said after the usage line by `/help NAME`
    needs_model: bool = False  # offered only when the operator set a language model


class CommandTable:
    """Every command, in menu order."""

    def __init__(self, commands: Iterable[Command]) -> None:
        self.commands = tuple(commands)
        self.by_name = {c.name: c for c in self.commands}
        if len(self.by_name) != len(self.commands):
            raise ValueError("a command is declared twice")

    def __iter__(self) -> Iterator[Command]:
        return iter(self.commands)

    def menu(self, *, model: bool = True) -> list[Command]:
        """What Telegram's command menu offers everyone (without a language model, not the
        commands that need one)."""
        return [
            c for c in self.commands if c.who is not Who.OPERATORS and (model or not c.needs_model)
        ]

    def usage(self, tr: Translator, name: str, feed: str = "blog") -> str:
        """A command's usage line, its examples naming one of this bot's feeds."""
        line = self.by_name[name].usage
        if line is None:
            raise KeyError(f"/{name} takes no arguments")
        return tr.gettext(line).format(feed=feed)
