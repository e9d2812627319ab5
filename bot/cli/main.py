"""Command line: `python -m bot …` (also installed as `feedwatch`)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session
from telegram.error import TelegramError

from bot import __version__
from bot.core.detection.churn import reissued
from bot.core.feeds.entries import MAX_ITEMS
from bot.core.feeds.opml import OpmlError, OpmlFeed, parse_opml, render_opml
from bot.core.modes import Format
from bot.core.polls.schedule import format_duration, parse_duration
from bot.db import store
from bot.db.engine import transaction
from bot.db.reserve import freeing_write
from bot.db.runlock import acquire_poller_lock
from bot.runtime import eventloop
from bot.runtime.clock import utcnow
from bot.runtime.config import Settings, SettingsError, load_settings
from bot.runtime.logs import RedactFilter, setup_logging
from bot.services.catalog import Catalog, FeedAddError
from bot.services.poll_result import PollOutcome
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher, open_database, worker_identity


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 1."""


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

    sub.add_parser("migrate", help="upgrade the database schema to the latest version")
    sub.add_parser("health", help="exit 0 when the database answers and polling is recent")
    return parser


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(0)  # a stop request during start-up; `run` installs its own handler later


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    secrets: list[str] = []
    try:
        settings = load_settings()
        secrets = settings.secrets()
        setup_logging(settings.log_level, settings.log_format, secrets)
        return dispatch(args, settings)
    except (SettingsError, CliError, FeedAddError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except TelegramError as exc:  # e.g. `poll --once` while Telegram is unreachable
        detail = RedactFilter(secrets).redact(str(exc))  # PTB puts the token in some messages
        print(f"error: Telegram: {detail} (pending messages are kept)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def dispatch(args: argparse.Namespace, settings: Settings) -> int:
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
        return feed_command(args, settings)
    if command == "poll":
        return eventloop.run(poll_once(settings, dry_run=args.dry_run), settings.event_loop)
    if command in ("run", "worker"):
        from bot.telegram.lifecycle import run_bot

        return run_bot(settings, updates=command == "run", webhook=getattr(args, "webhook", False))
    raise CliError(f"unknown command {command}")


def _items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def feed_command(args: argparse.Namespace, settings: Settings) -> int:
    engine = open_database(settings)
    if args.feed_command == "add":
        outcome = eventloop.run(_add(settings, engine, args.url, args.name), settings.event_loop)
        print(f"added {outcome.slug}: {outcome.feed_title} ({_items(outcome.items)})")
        with Session(engine) as session:
            added = store.get_feed(session, slug=outcome.slug)
        if added is not None and added.excerpt_only and not added.full_text:
            print(f"  {EXCERPT_HINT.format(slug=outcome.slug)}")
        if added is not None:
            _reissue_hint(engine, added.id, outcome.slug)
        return 0
    if args.feed_command == "list":
        with Session(engine) as session:
            rows = store.list_feeds(session)
        if not rows:
            print("no feeds yet: add one with `python -m bot feed add URL`")
        for row in rows:
            f = row.feed
            checked = (
                f.last_checked_at.strftime("%Y-%m-%d %H:%M UTC") if f.last_checked_at else "never"
            )
            status = f.status if not f.last_error else f"{f.status}: {f.last_error}"
            every = format_duration(f.interval_seconds or settings.poll_interval_seconds)
            owner = f"\tadded by {f.added_by}" if f.added_by is not None else ""
            text = "\tfull text" if f.full_text else ""
            if f.excerpt_only and not f.full_text:
                text = f"\texcerpts only: {EXCERPT_HINT.format(slug=f.slug)}"
            if not f.edits:
                text = f"\tnew posts only (edits off){text}"
            print(
                f"{f.slug}\t{f.url}\t{_items(row.items)}\tevery {every}\tchecked {checked}"
                f"\t{status}{owner}{text}"
            )
        return 0
    if args.feed_command == "set":
        return _set(args, settings, engine)
    if args.feed_command == "rename":
        eventloop.run(_rename(settings, engine, args.slug, args.new_slug), settings.event_loop)
        print(f"renamed {args.slug} to {args.new_slug}")
        return 0
    if args.feed_command == "move":
        eventloop.run(_move(settings, engine, args.slug, args.url), settings.event_loop)
        print(f"moved {args.slug} to {args.url}")
        return 0
    if args.feed_command == "import":
        return eventloop.run(_import(settings, engine, Path(args.file)), settings.event_loop)
    if args.feed_command == "export":
        with Session(engine) as session:
            rows = store.list_feeds(session)
        feeds = [OpmlFeed(title=r.feed.title, url=r.feed.url) for r in rows]
        sys.stdout.write(render_opml("Feedwatch feeds", feeds, created=utcnow()).decode())
        return 0
    if args.feed_command == "remove":
        if not freeing_write(engine, lambda s: store.remove_feed(s, slug=args.slug)):
            raise CliError(f"no feed named {args.slug!r} (see `feed list`)")
        print(f"removed {args.slug}")
        return 0
    raise CliError(f"unknown feed action {args.feed_command}")


EXCERPT_HINT = (
    "its feed gives only excerpts; `feed set {slug} --full-text on` summarises each new "
    "post's article from its page"
)


REISSUE_HINT = (
    "{recent} of its {total} items were stamped together within one day, as re-issued entries "
    "are (a planet, forecasts): `feed set {slug} --edits off` reports only its new posts"
)


def _reissue_hint(engine: Engine, feed_id: int, slug: str) -> None:
    """Say when a new feed's document looks re-issued (items stamped together by a build)."""
    with Session(engine) as session:
        items = store.latest_items(session, feed_id=feed_id, limit=MAX_ITEMS)
    recent, total = reissued(item.published for _, item in items)
    if recent:
        print(f"  {REISSUE_HINT.format(recent=recent, total=total, slug=slug)}")


def _set(args: argparse.Namespace, settings: Settings, engine: Engine) -> int:
    """`feed set SLUG --interval D --full-text on|off --edits on|off`: at least one of them."""
    if args.interval is None and args.full_text is None and args.edits is None:
        raise CliError(
            "nothing to set: give --interval DURATION, --full-text on|off or --edits on|off"
        )
    seconds = _interval(args.interval) if args.interval is not None else None
    with transaction(engine) as session:
        found = store.get_feed(session, slug=args.slug) is not None
        if found and args.interval is not None:
            store.set_interval(session, slug=args.slug, seconds=seconds, now=utcnow())
        if found and args.full_text is not None:
            store.set_full_text(session, slug=args.slug, on=args.full_text == "on")
        if found and args.edits is not None:
            store.set_feed_edits(session, slug=args.slug, on=args.edits == "on")
    if not found:
        raise CliError(f"no feed named {args.slug!r} (see `feed list`)")
    if args.interval is not None:
        shown = format_duration(seconds or settings.poll_interval_seconds)
        print(f"{args.slug}: polled every {shown}" + ("" if seconds else " (the default)"))
    if args.full_text == "on":
        print(f"{args.slug}: full text on: each new post's page is read for its article")
    elif args.full_text == "off":
        print(f"{args.slug}: full text off: messages use the feed's own text")
    if args.edits == "on":
        print(f"{args.slug}: edits on: new posts and edits of its posts are reported")
    elif args.edits == "off":
        print(f"{args.slug}: edits off: only new posts are reported")
    return 0


def _interval(text: str) -> int | None:
    if text.strip().lower() == "default":
        return None
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise CliError(str(exc)) from None


async def _add(settings: Settings, engine: Engine, url: str, slug: str | None) -> PollOutcome:
    async with make_fetcher(settings) as fetcher:
        catalog = Catalog(Poller(engine, fetcher, settings))
        return await catalog.add_feed(url, slug=slug, trusted=True)


async def _move(settings: Settings, engine: Engine, slug: str, url: str) -> None:
    async with make_fetcher(settings) as fetcher:
        await Catalog(Poller(engine, fetcher, settings)).move_feed(slug, url)


async def _rename(settings: Settings, engine: Engine, slug: str, new_slug: str) -> None:
    async with make_fetcher(settings) as fetcher:
        await Catalog(Poller(engine, fetcher, settings)).rename_feed(slug, new_slug)


async def _import(settings: Settings, engine: Engine, path: Path) -> int:
    try:
        listed = parse_opml(await asyncio.to_thread(path.read_bytes))
    except (OSError, OpmlError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None
    async with make_fetcher(settings) as fetcher:
        catalog = Catalog(Poller(engine, fetcher, settings))
        report = await catalog.import_feeds([entry.url for entry in listed], trusted=True)
    for outcome in report.added:
        print(f"added {outcome.slug}: {outcome.feed_title} ({_items(outcome.items)})")
    for line in report.failed:
        print(f"failed: {line}", file=sys.stderr)
    added, skipped, failed = len(report.added), report.skipped, len(report.failed)
    print(f"imported {added}, already watched {skipped}, failed {failed}")
    return 0 if failed == 0 else 1


async def poll_once(settings: Settings, *, dry_run: bool) -> int:
    engine = open_database(settings)
    lock = None if dry_run else acquire_poller_lock(settings.database_url)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, owner=worker_identity())
        report = await poller.poll_due(dry_run=dry_run, all_feeds=True)
        await poller.settle()  # full text: articles still coming are stored, not dropped
    if dry_run:
        from bot.cli.preview import print_messages

        for outcome in report.outcomes:
            print_messages(outcome, settings.max_new_per_poll)
            if outcome.error:
                print(f"[error] {outcome.slug}: {outcome.error}")
        print(report.summary())
        return 0
    from bot.services.digests import run_digests
    from bot.services.quiet import release_quiet
    from bot.telegram.app import deliver_once

    await asyncio.to_thread(run_digests, engine)
    await asyncio.to_thread(release_quiet, engine)

    try:
        sent = await deliver_once(settings, engine)
    finally:
        if lock is not None:
            lock.release()
    print(f"{report.summary()}; {sent} messages sent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
