"""Slow operator work (adding a feed, importing an OPML list) runs beside command handling.

An `/addfeed` or an import fetched inline, up to 100 feeds × 30 s, froze every command. Here
the handler returns at once; the work answers with its result when it is quick, and otherwise
shows one progress message after a second and edits it in place as it goes and at the end.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.core.messages.paging import split_message

log = logging.getLogger(__name__)
SHOW_AFTER_SECONDS = 1.0
EDIT_EVERY_SECONDS = 2.0


class Progress:
    """One message that says how far the work got; created only if the work is slow."""

    def __init__(self, origin: Message, waiting: str) -> None:
        self.origin = origin
        self.text = waiting
        self.shown: Message | None = None
        self._edited_at = 0.0

    async def note(self, text: str) -> None:
        """Remember the latest state; edit the message at most every couple of seconds."""
        self.text = text
        if self.shown is not None and time.monotonic() - self._edited_at >= EDIT_EVERY_SECONDS:
            await self._edit(text)

    async def show(self) -> None:
        self.shown = await self.origin.reply_text(
            self.text, parse_mode=ParseMode.HTML, do_quote=False
        )
        self._edited_at = time.monotonic()

    async def finish(self, text: str, keyboard: InlineKeyboardMarkup | None = None) -> None:
        """The result: it replaces the progress message, or is the reply if none was shown
        (the keyboard under its last part)."""
        parts = split_message(text)
        if self.shown is not None and len(parts) == 1:
            await self._edit(parts[0], keyboard)
            return
        if self.shown is not None:
            await self._edit(parts[0])
            parts = parts[1:]
        for number, part in enumerate(parts, start=1):
            markup = keyboard if number == len(parts) else None
            await self.origin.reply_text(
                part, parse_mode=ParseMode.HTML, reply_markup=markup, do_quote=False
            )

    async def _edit(self, text: str, keyboard: InlineKeyboardMarkup | None = None) -> None:
        assert self.shown is not None
        self._edited_at = time.monotonic()
        try:
            await self.shown.edit_text(text, parse_mode=ParseMode.HTML, reply_markup=keyboard)
        except BadRequest as exc:  # "message is not modified": nothing to do
            log.debug("progress edit skipped: %s", exc)


# The answer: a text, or a text with buttons under it.
Answer = str | tuple[str, InlineKeyboardMarkup | None]
Work = Callable[[Progress], Awaitable[Answer]]


def start(
    jobs: set[asyncio.Task[None]], origin: Message, waiting: str, work: Work, failed: str
) -> None:
    """Run `work` in the background; its returned text is the answer (`failed` if it raised)."""

    async def run() -> None:
        progress = Progress(origin, waiting)
        task = asyncio.ensure_future(work(progress))
        try:
            done, _ = await asyncio.wait({task}, timeout=SHOW_AFTER_SECONDS)
            if not done:
                await progress.show()
            try:
                answer = await task
            except Exception:
                log.exception("background work for chat %s failed", origin.chat_id)
                answer = failed
            text, keyboard = (answer, None) if isinstance(answer, str) else answer
            await progress.finish(text, keyboard)
        except asyncio.CancelledError:
            task.cancel()
            raise
        except Exception as exc:  # Telegram refused the progress message: the log says so
            log.warning("chat %s: could not report background work: %s", origin.chat_id, exc)

    job = asyncio.create_task(run(), name=f"feedwatch-job-{origin.chat_id}")
    jobs.add(job)
    job.add_done_callback(jobs.discard)
