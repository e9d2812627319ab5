"""Telegram edge, built on python-telegram-bot: application, command handlers, background jobs."""
