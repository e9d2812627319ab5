"""`python -m bot feed …`: the operator's commands for watched feeds (add, list, set, move,
rename, remove, import, export). Imported only when a `feed` command runs (`main.py`)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from bot.cli.errors import CliError
from bot.core.detection.churn import reissued
from bot.core.feeds.entries import MAX_ITEMS
from bot.core.feeds.opml import OpmlError, OpmlFeed, parse_opml, render_opml
from bot.core.polls.schedule import format_duration, parse_duration
from bot.db import store
from bot.db.engine import transaction
from bot.db.reserve import freeing_write
from bot.runtime import eventloop
from bot.runtime.clock import utcnow
from bot.runtime.config import Settings
from bot.services.catalog import Catalog
from bot.services.outcome import PollOutcome
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher, open_database


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
