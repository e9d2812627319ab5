"""Command line: `python -m bot …` (also installed as `feedwatch`).

Each command imports what it needs when it runs: `--help` costs 1.5 s of CPU when every
command's dependencies (sqlmodel, alembic, aiohttp, PTB, the store) load before argparse, and
cron, scripts and the tests start the CLI hundreds of times. `--help` imports none of them,
`health` only SQLAlchemy's core, a dry-run poll no PTB, and one of quiet feeds neither
SQLModel nor the ORM (`tests/cli/test_startup.py`).
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot import __version__
from bot.cli.errors import CliError
from bot.core.modes import Format

if TYPE_CHECKING:
    from bot.runtime.config import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="feedwatch", description="Watch blog feeds and tell Telegram chats what changed."
    )
    parser.add_argument("--version", action="version", version=f"feedwatch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run the bot: Telegram updates, feed polling, delivery")
    run.add_argument("--webhook", action="store_true", help="receive updates by webhook")
    sub.add_parser("worker", help="feed polling and delivery only (no Telegram updates)")

    poll = sub.add_parser("poll", help="poll feeds once (for cron or a quick check)")
    poll.add_argument("--once", action="store_true", required=True, help="poll every feed once")
    poll.add_argument("--dry-run", action="store_true", help="print events; store and send nothing")

    feed = sub.add_parser("feed", help="manage watched feeds")
    feed_sub = feed.add_subparsers(dest="feed_command", required=True, metavar="ACTION")
    add = feed_sub.add_parser("add", help="watch a feed: fetch it once and store its baseline")
    add.add_argument("url")
    add.add_argument("--name", metavar="SLUG", help="short name used in chat commands")
    feed_sub.add_parser("list", help="feeds with item counts, last check and status")
    remove = feed_sub.add_parser("remove", help="stop watching a feed and forget its items")
    remove.add_argument("slug")
    rename = feed_sub.add_parser("rename", help="give a feed another name, keeping its chats")
    rename.add_argument("slug")
    rename.add_argument("new_slug")
    move = feed_sub.add_parser("move", help="give a feed a new URL, keeping its items and chats")
    move.add_argument("slug")
    move.add_argument("url")
    imports = feed_sub.add_parser("import", help="watch every feed listed in an OPML file")
    imports.add_argument("file", metavar="FILE.opml")
    feed_sub.add_parser("export", help="print every watched feed as OPML")
    pace = feed_sub.add_parser("set", help="change a feed's settings")
    pace.add_argument("slug")
    pace.add_argument(
        "--interval",
        metavar="DURATION",
        help="poll it every DURATION (90s, 15m, 2h, 1d; 1m to 7d), or `default`",
    )
    pace.add_argument(
        "--full-text",
        choices=("on", "off"),
        help="read each new post's page and summarise the article (for excerpt-only feeds)",
    )
    pace.add_argument(
        "--edits",
        choices=("on", "off"),
        help="report edits of its posts (on, the default) or only new posts (off)",
    )

    preview = sub.add_parser("preview", help="print the newest items' messages (no database)")
    preview.add_argument("source", metavar="URL_OR_FILE")
    preview.add_argument("--limit", type=int, default=3, help="how many items (default 3)")
    preview.add_argument(
        "--model", action="store_true", help="also print what the language model would write"
    )
    preview.add_argument(
        "--format",
        dest="form",
        choices=[f.value for f in Format],
        default=Format.SUMMARY.value,
        help="what a chat with this /format receives (default summary)",
    )
    preview.add_argument(
        "--language",
        default="en",
        help="the chat's language (en, es, zh), also the model's for --model",
    )
    preview.add_argument(
        "--html", action="store_true", help="print the Telegram HTML exactly as it is sent"
    )
    preview.add_argument(
        "--base",
        metavar="URL",
        help="the address a saved FILE was fetched from: its relative links resolve against it",
    )

    sub.add_parser("migrate", help="upgrade the database schema to the latest version")
    sub.add_parser("health", help="exit 0 when the database answers and polling is recent")
    return parser


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(0)  # a stop request during start-up; `run` installs its own handler later


def _loaded(module: str, name: str) -> type[BaseException] | None:
    """An exception class of a module only when something already imported it (an exception
    of a module never loaded cannot have been raised, and importing it costs the start-up)."""
    found = sys.modules.get(module)
    return getattr(found, name, None) if found is not None else None


def _user_errors() -> tuple[type[BaseException], ...]:
    """Failures printed as one line: settings, the CLI's own, a feed that cannot be added."""
    loaded = (
        _loaded("bot.runtime.config", "SettingsError"),
        _loaded("bot.services.catalog", "FeedAddError"),
    )
    return (CliError, *(error for error in loaded if error is not None))


def _telegram_errors() -> tuple[type[BaseException], ...]:
    error = _loaded("telegram.error", "TelegramError")
    return (error,) if error is not None else ()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    secrets: list[str] = []
    try:
        from bot.runtime.config import load_settings
        from bot.runtime.logs import setup_logging

        settings = load_settings()
        secrets = settings.secrets()
        setup_logging(settings.log_level, settings.log_format, secrets)
        return dispatch(args, settings)
    except _user_errors() as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except _telegram_errors() as exc:  # e.g. `poll --once` while Telegram is unreachable
        from bot.runtime.logs import RedactFilter

        detail = RedactFilter(secrets).redact(str(exc))  # PTB puts the token in some messages
        print(f"error: Telegram: {detail} (pending messages are kept)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def run() -> int:
    """The process's entry point (`python -m bot`, the `feedwatch` script): `main`, then the
    heap frozen before the interpreter exits. Its teardown otherwise walks every object the
    imports made (SQLAlchemy's, pydantic's, aiohttp's, the tables) in full collections: 0.3 s
    of CPU, a quarter of a quiet `poll --once`. Frozen, they are freed with the process. Tests
    call `main` in a process that goes on; only a process that ends calls this."""
    try:
        return main()
    finally:
        gc.freeze()


def dispatch(args: argparse.Namespace, settings: Settings) -> int:
    """Run one command, importing only what it needs."""
    from bot.runtime import eventloop

    command = args.command
    if command == "migrate":
        from bot.db.migrate import upgrade

        upgrade(settings.database_url)
        print("database is at the latest schema version")
        return 0
    if command == "preview":
        from bot.cli.preview import PreviewError, preview

        try:
            return eventloop.run(
                preview(
                    settings,
                    args.source,
                    args.limit,
                    args.model,
                    args.language,
                    form=Format(args.form),
                    as_html=args.html,
                    base=args.base,
                ),
                settings.event_loop,
            )
        except PreviewError as exc:
            raise CliError(str(exc)) from None
    if command == "health":
        from bot.cli.health import check_health

        ok, line = check_health(settings)
        print(line, file=sys.stdout if ok else sys.stderr)
        return 0 if ok else 1
    if command == "feed":
        from bot.cli.feeds import feed_command

        return feed_command(args, settings)
    if command == "poll":
        from bot.cli.poll import poll_once

        return eventloop.run(poll_once(settings, dry_run=args.dry_run), settings.event_loop)
    if command in ("run", "worker"):
        from bot.telegram.lifecycle import run_bot

        return run_bot(settings, updates=command == "run", webhook=getattr(args, "webhook", False))
    raise CliError(f"unknown command {command}")


if __name__ == "__main__":
    sys.exit(run())
