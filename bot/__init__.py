"""Feedwatch: a Telegram bot that watches blog feeds for new posts and real edits.

The layers import only downwards (`tests/test_architecture.py`):

- `core`: the pure rules (parse, detect, summarise, filter, render, decide): data in, data out
- `runtime`: settings, clock, logs, metrics, event loop, languages
- `net`: HTTP to feeds, pages and the language model, behind the SSRF guard
- `db`: tables, migrations and storage by domain
- `services`: use cases sequencing the core and storage (no PTB)
- `telegram`: the Telegram edge (PTB)
- `cli`: the command line on top
"""

__version__ = "0.3.0.dev0"
