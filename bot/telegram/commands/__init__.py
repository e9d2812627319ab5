"""Chat commands, one module per area. A new command goes in its area's module and into the
table below; `app.py` wires whatever is listed here.

- `start`: /start (and its deep links), /help, /feeds (+ operators' full-text switches)
- `subscriptions`: /subscribe, /unsubscribe, /list, /categories, /export (+ backlog, ✖ and
  /start's feed buttons)
- `adding`: /subscribe URL, a pasted link, the buttons of the feeds found at an address
- `channels`: /channel (a channel managed from a private chat) and Telegram's chat picker
- `filters`: /filter (categories, field rules, `all`, the filter test)
- `settings`: /keywords, /edits, /preview, /format, /silent, /pause, /resume, /timezone,
  /quiet
  (+ switches)
- `models`: /summary, /translate (the operator's language model)
- `digests`: /digest
- `language`: /language (+ its buttons)
- `operators`: /addfeed, /removefeed, OPML files (operators only)
- `membership`: the bot added or removed, group upgrades, the error handler
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Update

from bot.telegram.commands import (
    adding,
    channels,
    digests,
    filters,
    language,
    models,
    operators,
    settings,
    start,
    subscriptions,
)
from bot.telegram.context import Context
from bot.telegram.views import ROUTES

Handler = Callable[[Update, Context], Coroutine[Any, Any, Any]]

CHAT_COMMANDS: dict[str, Handler] = {
    "start": start.cmd_start,
    "help": start.cmd_help,
    "feeds": start.cmd_feeds,
    "subscribe": subscriptions.cmd_subscribe,
    "unsubscribe": subscriptions.cmd_unsubscribe,
    "list": subscriptions.cmd_list,
    "categories": subscriptions.cmd_categories,
    "export": subscriptions.cmd_export,
    "filter": filters.cmd_filter,
    "keywords": settings.cmd_keywords,
    "edits": settings.cmd_edits,
    "preview": settings.cmd_preview,
    "format": settings.cmd_format,
    "summary": models.cmd_summary,
    "translate": models.cmd_translate,
    "silent": settings.cmd_silent,
    "pause": settings.cmd_pause,
    "resume": settings.cmd_resume,
    "timezone": settings.cmd_timezone,
    "quiet": settings.cmd_quiet,
    "digest": digests.cmd_digest,
    "language": language.cmd_language,
    "channel": channels.cmd_channel,
}
OPERATOR_COMMANDS: dict[str, Handler] = {
    "addfeed": operators.cmd_addfeed,
    "removefeed": operators.cmd_removefeed,
}
# Buttons, routed by `CallbackQueryHandler(pattern=…)`; anything else is an expired button.
BUTTONS: list[tuple[str, Handler]] = [
    (ROUTES["backlog"], subscriptions.on_backlog),
    (ROUTES["unsub"], subscriptions.on_unsub),
    (ROUTES["toggle"], settings.on_toggle),
    (ROUTES["lang"], language.on_language_button),
    (ROUTES["sub"], subscriptions.on_subscribe_button),
    (ROUTES["page"], subscriptions.on_list_page),
    (ROUTES["add"], adding.on_add_button),
    (ROUTES["full"], start.on_full_text),
]
EXPIRED_BUTTON: Handler = subscriptions.on_expired
