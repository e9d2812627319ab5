"""The CLI's own failure: printed as one line by `main.py`, exit status 1."""

from __future__ import annotations


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 1."""
