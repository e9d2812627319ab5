"""Feedwatch: a Telegram bot that watches blog feeds for new posts and real edits."""

__version__ = "0.3.0.dev0"
