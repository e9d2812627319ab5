"""Delivery: walk the outbox to the chats, in order per chat, never losing a message.

A delivery is marked sent only after Telegram confirms it, and a chat's next message waits for
that mark, so a crash repeats at most the messages in flight (one per concurrent chat; one with
the default settings). Concurrent chats' marks share a transaction (`marks.py`).
Error policy, by the edge's `Answer` (`bot/telegram/messenger.py` maps Telegram's errors to it):
- WAIT (429): that chat's queue waits as told (not an attempt); every other chat goes on;
- MOVED: move the chat to its new id, send there;
- BLOCKED: the bot was blocked or removed: deactivate the chat, cancel its pending messages;
- ENTITIES: resend once as plain text; REFUSED: failed;
- UNREACHABLE (timeout, network error, 5xx): retry with backoff. While Telegram accepts nothing from
  anyone (an outage) no attempt is spent, however long it lasts; when it accepts other messages
  and not this one, the message fails after `delivery_max_attempts`.

Telegram's message id is stored with each sent message, so an "Updated:" message replies to the
chat's original message about the item (and is sent anyway if that message was deleted).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.messages.media import decode
from bot.core.messages.render import to_plain
from bot.core.types import MessageKind
from bot.db import store
from bot.db.engine import transaction
from bot.db.store import NewStory, Queued
from bot.runtime import metrics
from bot.runtime.clock import Clock, utcnow
from bot.services import run
from bot.services.marks import SentMarks
from bot.services.messenger import Messenger, Outgoing, Reply
from bot.services.retries import Retries
from bot.services.stories import SEND, Stories

log = logging.getLogger(__name__)
MAX_RETRY_AFTER = 3600.0


class Sent(StrEnum):
    """How one attempt at a message ended, and what the chat's queue does next."""

    SENT = "sent"  # go on with the chat's next message
    NEXT = "next"  # failed for good: go on with the next message
    RETRY = "retry"  # the same message again (after a 429 wait)
    MOVED = "moved"  # the chat has a new id: it is claimed under that id
    STOP = "stop"  # leave the chat for now


class UnrecordedSends(RuntimeError):
    """Telegram accepted messages the database would not record: back off, do not resend."""


class Deliverer:
    def __init__(
        self,
        engine: Engine,
        messenger: Messenger,
        *,
        max_attempts: int = 8,
        concurrency: int = 1,
        retry_base: float = 5.0,
        lease_seconds: float = 120.0,
        owner: str = "feedwatch",
        clock: Clock = utcnow,
    ) -> None:
        self.engine = engine
        self.concurrency = concurrency
        # Chats leased per claim: the next one is claimed when half are done, so half a batch
        # must outlast a claim (at 16 in flight and 1,000/s, 64 chats take 64 ms; a claim 5).
        self.batch = max(50, 8 * concurrency)
        self.lease = timedelta(seconds=lease_seconds)
        self.owner = owner
        self._lease_ends: dict[int, datetime] = {}
        self.clock = clock
        self.stopping = False
        self.sender = Sender(
            engine, messenger, max_attempts=max_attempts, retry_base=retry_base, clock=clock
        )

    async def deliver_due(self) -> int:
        """Send everything due now; return how many messages Telegram accepted.

        Batches overlap: the next one is claimed when half of the current one's chats are done,
        and its chats queue at the same gate, so the chats in flight never run dry while a claim
        is read (waiting for each batch's last chat and then its claim cost a 1,000/s fan-out
        7% of its rate, issue 30).
        """
        gate = asyncio.Semaphore(self.concurrency)
        batches: list[asyncio.Task[int]] = []
        try:
            while not self.stopping:
                if any(_stalled(b) for b in batches):
                    break  # it failed, or everything left is waiting for a retry time
                # The chats of this worker's batches in flight are the ones with a lease end.
                claimed = await asyncio.to_thread(self._claim, frozenset(self._lease_ends))
                if not claimed:
                    break
                half = asyncio.Event()
                batches.append(asyncio.create_task(self._drain_batch(claimed, gate, half)))
                await half.wait()
                if self.sender.unmarked:
                    break  # the database refuses marks: no more sends until it records them
        finally:  # every batch in flight ends (and releases its chats) before this returns
            counts = await asyncio.gather(*batches, return_exceptions=True)
        for count in counts:
            if isinstance(count, BaseException):
                raise count
        unmarked = self.sender.unmarked
        if unmarked:  # the caller backs off until the database records them
            raise UnrecordedSends(f"{len(unmarked)} sent messages not yet recorded")
        return sum(c for c in counts if isinstance(c, int))

    async def _drain_batch(
        self, claimed: dict[int, list[Queued]], gate: asyncio.Semaphore, half: asyncio.Event
    ) -> int:
        """Drain a claimed batch's chats at the shared gate; `half` is set when half of them
        are done (and when all are), then one statement releases the whole batch."""
        left = len(claimed)

        async def drain(chat_id: int, queue: list[Queued]) -> int:
            nonlocal left
            try:
                async with gate:
                    return await self._drain_chat(chat_id, queue)
            finally:
                left -= 1
                if left <= len(claimed) // 2:
                    half.set()

        try:
            await self.sender.stories.prime(claimed)  # its own read, after the claim
            counts = await asyncio.gather(*(drain(c, q) for c, q in claimed.items()))
        finally:
            half.set()
            for chat_id in claimed:
                self._lease_ends.pop(chat_id, None)
            self.sender.stories.done(list(claimed))
            release = functools.partial(store.release_chats, chat_ids=list(claimed))
            await run.write(self.engine, functools.partial(release, owner=self.owner))
        return sum(counts)

    def _claim(self, held: frozenset[int] = frozenset()) -> dict[int, list[Queued]]:
        """Lease a batch of chats with due messages (other workers skip them until released)
        and read their pending messages, oldest first, in one thread hop. `held`: chats in this
        worker's batches, skipped (one waiting past its lease was claimed and sent twice)."""
        now = self.clock()
        until = now + self.lease
        with transaction(self.engine) as session:
            claimed = store.claim_chats(
                session, now=now, owner=self.owner, lease_until=until, limit=self.batch, skip=held
            )
        for chat_id in claimed:
            self._lease_ends[chat_id] = until
        if not claimed:
            return {}
        with Session(self.engine, expire_on_commit=False) as session:
            queues = store.pending_by_chat(session, chat_ids=claimed)
        return {chat_id: queues.get(chat_id, []) for chat_id in claimed}

    async def _hold_lease(self, chat_id: int) -> bool:
        """Renew the chat's lease when half used, and every such lease of this worker's batches
        (chats waiting at the gate keep theirs); False if another worker took the chat's."""
        now = self.clock()
        if now + self.lease / 2 < self._lease_ends.get(chat_id, now):
            return True
        until = now + self.lease
        due = {chat_id, *(c for c, end in self._lease_ends.items() if now + self.lease / 2 >= end)}
        renew = functools.partial(store.renew_chats, chat_ids=due, owner=self.owner)
        kept = await run.write(self.engine, lambda s: renew(s, lease_until=until))
        self._lease_ends.update({c: until for c in kept if c in self._lease_ends})
        if chat_id not in kept:
            log.warning("chat %s: delivery lease lost; leaving it to another worker", chat_id)
        return chat_id in kept

    async def _drain_chat(self, chat_id: int, queue: list[Queued]) -> int:
        """Send the chat's messages in order; stop at the first that must wait."""
        sent = 0
        index = 0
        while not self.stopping and index < len(queue):
            delivery = queue[index]
            if delivery.next_attempt_at > self.clock() or not await self._hold_lease(chat_id):
                return sent
            if delivery.id in self.sender.unmarked:
                status = await self.sender.record_sent(delivery)
                if status is not Sent.SENT:
                    return sent
                index += 1
                continue
            started = time.monotonic()
            status = await self.sender.send(delivery)
            metrics.SEND_SECONDS.observe(time.monotonic() - started)
            metrics.DELIVERIES.labels(status).inc()
            if status in (Sent.SENT, Sent.NEXT):
                sent += status is Sent.SENT
                index += 1
            elif (
                status is not Sent.RETRY
            ):  # stop, or moved: a migrated chat is claimed under its new id
                return sent
        return sent


def _follow_button(delivery: Queued) -> tuple[str, int] | None:
    """A new post's message carries the button that follows its changes."""
    if delivery.follow_label and delivery.item_id is not None:
        return (delivery.follow_label, delivery.item_id)
    return None


def _stalled(batch: asyncio.Task[int]) -> bool:
    """A batch that ended sending nothing (or raised): claiming more would spin."""
    if not batch.done():
        return False
    return batch.cancelled() or batch.exception() is not None or batch.result() == 0


class Sender:
    """One attempt at one message, and what each Telegram answer means (the policy above)."""

    def __init__(
        self,
        engine: Engine,
        messenger: Messenger,
        *,
        max_attempts: int,
        retry_base: float,
        clock: Clock,
    ) -> None:
        self.engine = engine
        self.messenger = messenger
        self.retries = Retries(max_attempts, retry_base, clock)
        self.clock = clock
        # Sent, but the database refused to record it: never sent again, only marked again
        # (delivery id → Telegram's message id).
        self.unmarked: dict[int, int | None] = {}
        self.sending = 0  # messages awaiting Telegram's answer
        self.marks = SentMarks(engine, sending=lambda: self.sending)  # one transaction for many
        self.stories = Stories(engine, messenger, clock)  # one story, one message

    async def send(self, delivery: Queued, *, plain: bool = False) -> Sent:
        """One attempt at one message."""
        assert delivery.id is not None
        reply_to = await self._original(delivery)
        silent, story = delivery.silent, SEND
        if reply_to is not None and not plain and await self.stories.told_edit(delivery, reply_to):
            return await self.record_sent(delivery)  # another copy's edit told this change
        if not plain:
            story = await self.stories.decide(delivery)
            if story.folded is not None:  # the chat's message about it now names this feed
                return await self.record_sent(delivery, story.folded)
            if story.reply_to is not None:
                reply_to, silent = story.reply_to, True
        self.sending += 1
        try:
            answer = await self.messenger.send(
                Outgoing(
                    delivery.chat_id,
                    to_plain(delivery.text) if plain else delivery.text,
                    html=not plain,
                    preview=delivery.preview,
                    image_url=delivery.image_url,
                    thread_id=delivery.thread_id,
                    silent=silent,
                    reply_to=reply_to,
                    follow=_follow_button(delivery),
                    media=None if plain else decode(delivery.media),
                )
            )
        finally:
            self.sending -= 1
        reply = answer.reply
        if reply is Reply.WAIT:
            wait = min(answer.wait_seconds, MAX_RETRY_AFTER)
            log.warning("chat %s: Telegram asked to wait %.0f s (429)", delivery.chat_id, wait)
            until = self.clock() + timedelta(seconds=wait)
            await run.write(
                self.engine,
                lambda s: store.hold_delivery(s, delivery_id=delivery.id or 0, until=until),
            )
            return Sent.STOP  # this chat waits; the others go on
        if reply is Reply.MOVED and answer.new_chat_id is not None:
            new_id = answer.new_chat_id
            log.info("chat %s migrated to %s; moving its subscriptions", delivery.chat_id, new_id)
            await run.write(
                self.engine, lambda s: store.migrate_chat(s, old_id=delivery.chat_id, new_id=new_id)
            )
            return Sent.MOVED
        if reply is Reply.BLOCKED:
            log.warning("chat %s: deactivated (%s)", delivery.chat_id, answer.error)
            await run.write(
                self.engine,
                lambda s: store.set_chat_active(s, chat_id=delivery.chat_id, active=False),
            )
            return Sent.STOP
        if reply is Reply.ENTITIES and not plain:
            log.warning(
                "delivery %s: HTML refused (%s); resending as text", delivery.id, answer.error
            )
            return await self.send(delivery, plain=True)  # its story is recorded then
        if reply in (Reply.ENTITIES, Reply.REFUSED):
            log.warning(
                "delivery %s to chat %s failed: %s", delivery.id, delivery.chat_id, answer.error
            )
            error = answer.error
            await run.write(
                self.engine,
                lambda s: store.mark_failed(s, delivery_id=delivery.id or 0, error=error),
            )
            return Sent.NEXT
        if reply is not Reply.ACCEPTED:  # unreachable
            return await self._network_failure(delivery, answer.error)
        self.retries.accepted(delivery.id)
        self.stories.sent(delivery, answer.message_id, story.new)
        return await self.record_sent(delivery, answer.message_id, story.new)

    async def _network_failure(self, delivery: Queued, error: str) -> Sent:
        """Telegram or the network failed: `Retries` says when again and whether it counts."""
        retry = await self.retries.after_failure(delivery, error, self.messenger.answers)
        await run.write(
            self.engine,
            lambda s: store.mark_retry(
                s,
                delivery_id=delivery.id or 0,
                error=error,
                retry_at=retry.at,
                give_up=retry.give_up,
                spend=retry.spend,
            ),
        )
        return Sent.NEXT if retry.give_up else Sent.STOP

    async def _original(self, delivery: Queued) -> int | None:
        """For an edit: the chat's first message about the item, replied to if still there."""
        item_id = delivery.item_id
        if delivery.kind not in (MessageKind.EDITED, MessageKind.WITHDRAWN) or item_id is None:
            return None
        chat_id = delivery.chat_id
        found = await run.write(
            self.engine, lambda s: store.original_message_id(s, chat_id=chat_id, item_id=item_id)
        )
        return found

    async def record_sent(
        self, delivery: Queued, message_id: int | None = None, story: NewStory | None = None
    ) -> Sent:
        """Mark a message Telegram accepted. If the database refuses, remember it here and leave
        the chat: it is not sent again, only marked once the database answers."""
        assert delivery.id is not None
        message_id = self.unmarked.get(delivery.id, message_id)
        try:
            pending = await self.marks.mark(delivery.id, self.clock(), message_id, story)
        except Exception as exc:
            if delivery.id not in self.unmarked:
                log.error(
                    "delivery %s to chat %s was sent but cannot be recorded (%s); "
                    "holding the chat until the database answers",
                    delivery.id,
                    delivery.chat_id,
                    str(exc).splitlines()[0][:200],
                )
            self.unmarked[delivery.id] = message_id
            return Sent.STOP
        self.unmarked.pop(delivery.id, None)
        if not pending:  # cancelled while in flight (/pause, /unsubscribe): send no more
            return Sent.STOP
        return Sent.SENT
