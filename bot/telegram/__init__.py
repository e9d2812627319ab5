"""Telegram edge, built on python-telegram-bot: application, command handlers, background jobs."""

import os

# Opt in to PTB's future behaviour (durations as timedelta) now; delivery handles both.
os.environ.setdefault("PTB_TIMEDELTA", "1")
