"""`python -m bot poll --once [--dry-run]`: every feed polled once, for cron or a quick check.
Imported only when `poll` runs (`main.py`); a dry run prints the events and loads no PTB."""

from __future__ import annotations

import asyncio

from bot.db.runlock import acquire_poller_lock
from bot.runtime.config import Settings
from bot.services.polling import Poller
from bot.services.wiring import make_fetcher, open_database, worker_identity


async def poll_once(settings: Settings, *, dry_run: bool) -> int:
    engine = open_database(settings)
    lock = None if dry_run else acquire_poller_lock(settings.database_url)
    async with make_fetcher(settings) as fetcher:
        poller = Poller(engine, fetcher, settings, owner=worker_identity())
        report = await poller.poll_due(dry_run=dry_run, all_feeds=True)
        await poller.settle()  # full text: articles still coming are stored, not dropped
    if dry_run:
        for outcome in report.outcomes:
            if outcome.changes:  # the renderer loads only when there is something to print
                from bot.cli.preview import print_messages

                print_messages(outcome, settings.max_new_per_poll)
            if outcome.error:
                print(f"[error] {outcome.slug}: {outcome.error}")
        print(report.summary())
        return 0
    from bot.services.digests import run_digests
    from bot.services.quiet import release_quiet
    from bot.services.ranked import run_ranked_digests
    from bot.telegram.app import deliver_once

    await asyncio.to_thread(run_digests, engine)
    await run_ranked_digests(engine, poller.enricher.models)
    await asyncio.to_thread(release_quiet, engine)

    try:
        sent = await deliver_once(settings, engine)
    finally:
        if lock is not None:
            lock.release()
    print(f"{report.summary()}; {sent} messages sent")
    return 0
