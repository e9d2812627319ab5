"""An OPML file sent in any chat (issue 43, item 4): a private chat, a group by its admins, a
channel managed from a private chat. Each feed it lists goes through exactly what a pasted link
goes through (`adding`: discovery through the SSRF guard, one search per person at a time,
MAX_FEEDS and MAX_FEEDS_PER_USER, FEED_ADDING) and the chat is subscribed to it; the answer
has one line per feed (subscribed, already, refused and why). Operators keep `feed import` on
the command line for the watch list alone. The import runs in the background (`background`)
with one progress message."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from telegram import Update

from bot.core.feeds.opml import OpmlError, OpmlFeed, parse_opml
from bot.core.lang import N_, Translator
from bot.core.messages.escape import esc
from bot.core.urls import shown_url
from bot.services.catalog import AddError, FeedAddError
from bot.services.discovery import Discovery
from bot.services.subscribing import Subscribed
from bot.telegram import background, texts
from bot.telegram.commands.adding import AddingClosed, explain, may_add, watch
from bot.telegram.commands.common import topic_of
from bot.telegram.context import Context

log = logging.getLogger(__name__)

MAX_OPML_BYTES = 1024 * 1024
MAX_ENTRIES = 100  # feeds read from one file
IMPORT_SECONDS = 600.0  # no feed is tried after this; each one has discovery's own budget
_importing: set[object] = set()  # people (or chats, for anonymous admins) importing now

PROGRESS = N_("Importing {done} of {total} feeds…")
HEADER = N_("<b>OPML import</b>: {added} subscribed, {had} already subscribed, {refused} refused.")
ADDED = N_("✅ <b>{title}</b>: subscribed.")
RESTORED = N_("✅ <b>{title}</b>: subscribed again, with the settings this chat had.")
HAD = N_("☑️ <b>{title}</b>: already subscribed.")
REFUSED = N_("✖ {name}: refused. {reason}")
OVER_TIME = N_("Not tried: the import took too long. Send a file with the rest.")
FIRST_ONLY = N_("Only the first {count} feeds of the file were read.")
EMPTY = N_("That file lists no feed addresses.")
BUSY = N_("Still importing the last file you sent. Send the next one when it is done.")
TOO_LARGE = N_("That file is too large for an OPML list (1 MB at most).")
UNREADABLE = N_("Could not read that file: {reason}")


@dataclass(frozen=True, slots=True)
class Line:
    entry: OpmlFeed
    result: Subscribed | None  # None: refused, for `reason`
    title: str = ""
    reason: str = ""
    kind: AddError | None = None  # why a new feed was refused


async def on_document(update: Update, context: Context) -> None:
    """A file: an OPML list (`.opml`; `.xml` too in a private chat) to subscribe this chat to."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or message.document is None or chat is None:
        return
    name = (message.document.file_name or "").lower()
    if not (name.endswith(".opml") or (chat.type == "private" and name.endswith(".xml"))):
        return
    if not await context.may_change():
        return
    tr = await context.tr()
    _ = tr.gettext
    document = message.document
    if document.file_size is not None and document.file_size > MAX_OPML_BYTES:
        await context.reply(_(TOO_LARGE))
        return
    telegram_file = await document.get_file()
    data = bytes(await telegram_file.download_as_bytearray())[:MAX_OPML_BYTES]
    try:
        listed = parse_opml(data)
    except OpmlError as exc:
        await context.reply(_(UNREADABLE).format(reason=esc(exc.translated(tr))))
        return
    if not listed:
        await context.reply(_(EMPTY))
        return
    who = context.actor_id
    if who in _importing:
        await context.reply(_(BUSY))
        return
    _importing.add(who)
    entries, thread_id = listed[:MAX_ENTRIES], topic_of(message)

    async def work(progress: background.Progress) -> str:
        try:
            await context.remember_chat()
            lines = await import_all(context, entries, thread_id, progress, tr)
        finally:
            _importing.discard(who)
        text = report(lines, tr)
        if len(listed) > MAX_ENTRIES:
            text += "\n" + _(FIRST_ONLY).format(count=MAX_ENTRIES)
        return context.decorate(text)

    waiting = context.decorate(_(PROGRESS).format(done=0, total=len(entries)))
    background.start(context.svc.jobs, message, waiting, work, _(texts.SOMETHING_WRONG))


async def import_all(
    context: Context,
    entries: list[OpmlFeed],
    thread_id: int | None,
    progress: background.Progress,
    tr: Translator,
) -> list[Line]:
    """Each entry in turn, as if its address had been pasted; once the person's or the bot's
    feed limit is reached, only feeds already watched can still be subscribed."""
    lines: list[Line] = []
    capped: str | None = None  # the limit's sentence, once one was reached
    deadline = time.monotonic() + IMPORT_SECONDS
    for done, entry in enumerate(entries):
        text = tr.gettext(PROGRESS).format(done=done, total=len(entries))
        await progress.note(context.decorate(text))
        if time.monotonic() > deadline:
            lines.append(Line(entry, None, reason=tr.gettext(OVER_TIME)))
            continue
        line = await import_one(context, entry, thread_id, tr, capped)
        lines.append(line)
        if line.kind in (AddError.MAX_FEEDS, AddError.MAX_USER):
            capped = line.reason
    return lines


async def import_one(
    context: Context, entry: OpmlFeed, thread_id: int | None, tr: Translator, capped: str | None
) -> Line:
    """One feed of the file: found (and added) like a pasted link, then subscribed."""
    discovery = Discovery(context.svc.catalog, context.svc.searches)
    try:
        if capped is not None or not may_add(context):
            known = await discovery.watched(entry.url)
            if known is None:
                reason = capped or tr.gettext(texts.ADDING_CLOSED)
                return Line(entry, None, reason=reason)
            options = [known]
        else:
            options = await discovery.find(entry.url, who=context.actor_id)
        feed, _note = await watch(context, options[0], tr)
    except AddingClosed:
        return Line(entry, None, reason=tr.gettext(texts.ADDING_CLOSED))
    except FeedAddError as exc:
        log.info("chat %s: OPML entry not added: %s", context.chat_id, exc)
        return Line(entry, None, reason=explain(exc, context, tr), kind=exc.kind)
    result = await context.svc.subscriptions.subscribe(context.chat_id, feed.id, thread_id)
    if result is Subscribed.LIMIT:
        limit = context.svc.settings.max_subscriptions_per_chat
        text = tr.gettext("This chat already has {limit} subscriptions, the most allowed.")
        return Line(entry, None, feed.title, text.format(limit=limit))
    return Line(entry, result, feed.title)


def report(lines: list[Line], tr: Translator) -> str:
    """The header with the counts, then one line per feed, in the file's order."""
    _ = tr.gettext
    counts = {
        "added": sum(line.result in (Subscribed.ADDED, Subscribed.RESTORED) for line in lines),
        "had": sum(line.result is Subscribed.HAD for line in lines),
        "refused": sum(line.result is None for line in lines),
    }
    out = [_(HEADER).format(**counts)]
    for line in lines:
        title = esc(_short(line.title or line.entry.title or shown_url(line.entry.url)))
        if line.result is Subscribed.ADDED:
            out.append(_(ADDED).format(title=title))
        elif line.result is Subscribed.RESTORED:
            out.append(_(RESTORED).format(title=title))
        elif line.result is Subscribed.HAD:
            out.append(_(HAD).format(title=title))
        else:
            url = esc(_short(shown_url(line.entry.url), 80))
            name = (
                f"<b>{title}</b> (<code>{url}</code>)"
                if line.entry.title
                else f"<code>{url}</code>"
            )
            out.append(_(REFUSED).format(name=name, reason=line.reason))
    return "\n".join(out)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
