"""After the polls: followed posts' pages, and withdrawal checks.

Followed posts (`core/polls/follows.py`): each page is read once when the follow starts (the
baseline), then, once the post has left its feed, at most once per poll interval with a
conditional GET; a substantive change of its article is sent to every chat following it, as a
reply to its message. Withdrawals (`core/detection/withdrawal.py`): feeds that changed since the
last sweep are looked at for posts that vanished from between others; such a post some chat was
told about gets its page checked, now and `WITHDRAWAL_RECHECK_SECONDS` later, and two 404/410
answers send one "Withdrawn" reply (later, "Back" if it returns). Every state lives in storage
(`post_check`), so a restart loses no pending check. Pages go through the full-text reader's
guard, byte cap, per-host lock and killable workers (`articles.check_page`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.detection import withdrawal as rule
from bot.core.detection.withdrawal import Answer, Step
from bot.core.messages.notices import render_notice
from bot.core.messages.render import render_change
from bot.core.polls.follows import page_change, page_due, reading, rebaseline
from bot.core.text import html_to_text
from bot.core.types import Change, ChangeKind, FeedInfo, MessageKind, TextDiff
from bot.core.urls import redact_urls
from bot.db import store
from bot.db.store import OutboxRow
from bot.db.store import follows as followed
from bot.db.store import withdrawals as checks
from bot.db.store.follows import Page
from bot.db.store.withdrawals import Candidate
from bot.runtime.clock import Clock
from bot.runtime.config import Settings
from bot.runtime.i18n import translator
from bot.services import run
from bot.services.articles import PageReader, check_page

log = logging.getLogger(__name__)
SWEEP_KEY = "withdrawal_sweep"
PAGE_TEXT_BYTES = 256 * 1024  # a page without an article: its top, as visible text


class PostWatch:
    def __init__(self, engine: Engine, pages: PageReader, settings: Settings, clock: Clock) -> None:
        self.engine, self.pages, self.settings, self.clock = engine, pages, settings, clock
        self._lock = asyncio.Lock()

    async def run(self) -> int:
        """One round (after the round under way, if any); returns how many messages it queued."""
        async with self._lock:
            now = self.clock()
            await run.write(self.engine, lambda s: followed.expire_follows(s, now=now))
            pages = await run.read(self.engine, lambda s: followed.followed_pages(s, now=now))
            interval = self.settings.poll_interval_seconds
            due = [
                p
                for p in pages
                if p.post.item.link
                and page_due(p.page_at, now, interval, in_feed=p.in_feed, read=p.text is not None)
            ]
            sent = sum(await _each(self._follow(p, now) for p in due))
            await run.write(self.engine, lambda s: self._sweep(s, now))
            candidates = await run.read(self.engine, lambda s: checks.due_checks(s, now=now))
            sent += sum(await _each(self._check(c, now) for c in candidates))
            return sent

    async def _follow(self, page: Page, now: datetime) -> int:
        post = page.post
        link = post.item.link
        assert link is not None
        fresh = page.text is None or rebaseline(page.page_at, post.changed_at)
        validators = (None, None) if fresh else (page.etag, page.last_modified)
        origin = post.feed_url if post.trusted else None
        answer = await check_page(
            self.pages, link, origin=origin, title=post.item.title, validators=validators
        )
        article = answer.article
        if answer.status != 200 or article is None:
            if answer.status != 304:
                why = answer.error or f"HTTP {answer.status}"
                log.info("followed post %s: page not read (%s)", redact_urls(link), why)
            await run.write(
                self.engine, lambda s: followed.save_page(s, item_id=post.item_id, now=now)
            )
            return 0
        if article.ok:
            text = reading(html_to_text(article.html), "")
        else:  # no article on it: its whole visible text (off the loop: a page is large)
            whole = answer.body[:PAGE_TEXT_BYTES].decode("utf-8", "replace")
            text = reading(None, await asyncio.to_thread(html_to_text, whole))
        diff = None if fresh or page.text is None else page_change(page.text, text, post.item.title)

        def save(session: Session) -> int:
            followed.save_page(
                session,
                item_id=post.item_id,
                now=now,
                text=text,
                etag=answer.etag,
                last_modified=answer.last_modified,
            )
            if diff is None:
                return 0
            rows = _edit_rows(session, page, diff, now)
            store.enqueue(session, rows=rows)
            return len(rows)

        queued = await run.write(self.engine, save)
        if queued:
            log.info("followed post %s changed on its page: %d chat(s)", redact_urls(link), queued)
        return queued

    def _sweep(self, session: Session, now: datetime) -> None:
        """Posts that vanished from between others in feeds changed since the last sweep,
        and that some chat was told about, get their withdrawal check."""
        last = store.get_state(session, key=SWEEP_KEY)
        since = datetime.fromisoformat(last.value) if last else now - timedelta(days=1)
        for feed_id in checks.changed_feeds(session, since=since):
            found = rule.holes(checks.seen_items(session, feed_id=feed_id))
            told = sorted(checks.told_items(session, item_ids=found))
            started = checks.start_checks(session, item_ids=told, now=now)
            if started:
                log.info("feed #%d: %d post(s) left from between others", feed_id, len(started))
        store.set_state(session, key=SWEEP_KEY, value=now.isoformat(), now=now)

    async def _check(self, candidate: Candidate, now: datetime) -> int:
        recheck = timedelta(seconds=self.settings.withdrawal_recheck_seconds)
        link = candidate.link
        answer = Answer.UNSURE
        if link and not candidate.in_feed:
            origin = candidate.feed_url if candidate.trusted else None
            got = await check_page(self.pages, link, origin=origin, extract=False)
            answer = rule.answer_of(got.status)
        if candidate.withdrawn:
            step = rule.judge_withdrawn(
                answer, in_feed=candidate.in_feed, since=candidate.gone_since, now=now
            )
        elif candidate.in_feed or not link:
            step = rule.Next(Step.CLEARED)
        else:
            step = rule.judge(
                answer,
                misses=candidate.misses,
                since=candidate.gone_since,
                now=now,
                recheck=recheck,
                feed_ok=candidate.feed_ok,
            )
        return await run.write(self.engine, lambda s: _apply(s, candidate, step, now + recheck))


async def _each(jobs: Iterable[Coroutine[Any, Any, int]]) -> list[int]:
    """Run the jobs together; one that fails is logged and counts nothing (a bug on one page
    must not stop the others)."""
    done = await asyncio.gather(*jobs, return_exceptions=True)
    for failure in (d for d in done if isinstance(d, BaseException)):
        if isinstance(failure, asyncio.CancelledError):
            raise failure
        log.error("a followed page or withdrawal check failed", exc_info=failure)
    return [d for d in done if isinstance(d, int)]


def _apply(session: Session, candidate: Candidate, step: rule.Next, later: datetime) -> int:
    """Store a check's outcome; tell the chats when it is withdrawn or back."""
    item_id = candidate.item_id
    if step.step is Step.WAIT:
        at = step.at or later
        checks.set_check(session, item_id=item_id, check_at=at, misses=step.misses)
        return 0
    if step.step is Step.CLEARED:
        checks.set_check(session, item_id=item_id, check_at=None, cleared=True)
        return 0
    withdrawn = step.step is Step.WITHDRAWN
    if withdrawn:
        checks.set_check(
            session, item_id=item_id, check_at=later, misses=step.misses, withdrawn=True
        )
    else:
        checks.set_check(session, item_id=item_id, check_at=None, cleared=True)
    rows = [
        OutboxRow(
            chat_id=told.chat_id,
            feed_id=candidate.feed_id,
            item_id=item_id,
            kind=MessageKind.WITHDRAWN,
            text=render_notice(
                withdrawn, candidate.title, candidate.link, translator(told.language)
            ),
            thread_id=told.thread_id,
        )
        for told in checks.told_chats(session, item_id=item_id)
    ]
    store.enqueue(session, rows=rows)
    log.info(
        "post %s %s: %d chat(s) told",
        redact_urls(candidate.link or f"#{item_id}"),
        "withdrawn" if withdrawn else "back",
        len(rows),
    )
    return len(rows)


def _edit_rows(session: Session, page: Page, diff: TextDiff, now: datetime) -> list[OutboxRow]:
    """The page's change as an edit message to each chat following the post."""
    post = page.post
    info = FeedInfo(slug=post.feed_slug, title=post.feed_title)
    change = Change(ChangeKind.EDITED, post.item, diff)
    rows = []
    for follower in followed.followers(
        session, feed_id=post.feed_id, keys=[post.item.key], now=now
    ):
        text = render_change(change, info, translator(follower.language), zone=follower.timezone)
        rows.append(
            OutboxRow(
                chat_id=follower.chat_id,
                feed_id=post.feed_id,
                item_id=post.item_id,
                kind=MessageKind.EDITED,
                text=text,
                thread_id=follower.thread_id,
            )
        )
    return rows
