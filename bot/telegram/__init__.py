"""Telegram edge, built on python-telegram-bot: application, command handlers, background jobs.

- `app`: wiring only (the PTB application, handlers, start-up work)
- `lifecycle`: running and stopping a process (`run`, `worker`)
- `webhook`: Telegram's updates over HTTP, the secret checked first
- `hookserver`: the webhook's HTTP server (connection cap, header and body timeouts)
- `request`: PTB's Bot API requests over aiohttp
- `messenger`: an outgoing message posted to the Bot API, Telegram's errors mapped
- `budget`: the rate budget that belongs to the bot token
- `spec`: a chat command declared once (name, handler, menu line, usage, who)
- `commands`: the chat commands, one module per area (their own list)
- `context`: the context every handler gets
- `shared`: what the handlers share
- `buttons`: button actions and their codec
- `views`: the /list view and inline keyboards
- `texts`: user-facing texts shared by several handlers
- `help_screen`: /help as a phone screen
- `offers`: feeds offered under a message
- `rights`: who may change a chat's settings
- `guard`: one noisy chat or user kept from slowing everyone else
- `background`: slow operator work beside command handling
"""

import os

# Opt in to PTB's future behaviour (durations as timedelta) now; delivery handles both.
os.environ.setdefault("PTB_TIMEDELTA", "1")
