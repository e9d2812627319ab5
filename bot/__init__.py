"""Feedwatch: a Telegram bot that watches blog feeds for new posts and real edits."""

__version__ = "0.2.0"
