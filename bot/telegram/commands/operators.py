"""Operators (`BOT_ADMIN_IDS`) manage the watched feeds: /addfeed, /removefeed, and an OPML file
sent in a private chat. `app.py` routes only operators here (`filters.User`); everyone else
gets `refuse`. Fetching runs in the background so command handling never waits for it."""

from __future__ import annotations

import logging

from telegram import Update

from bot.core.feeds.opml import OpmlError, parse_opml
from bot.core.lang import N_
from bot.core.messages.escape import esc
from bot.core.urls import shown_url
from bot.services.catalog import FeedAddError
from bot.telegram import background, texts
from bot.telegram.commands.adding import explain
from bot.telegram.context import Context
from bot.telegram.spec import Command, Who

log = logging.getLogger(__name__)

MAX_OPML_BYTES = 1024 * 1024


async def refuse(update: Update, context: Context) -> None:
    """An operator command from someone who is not one. While the bot has no operator at all,
    a private chat is told how to become one (its own user id and the setting)."""
    _ = (await context.tr()).gettext
    chat, user = update.effective_chat, update.effective_user
    if not context.svc.settings.bot_admin_ids and chat and chat.type == "private" and user:
        text = _(texts.NO_OPERATOR_YET).format(user_id=user.id)
        if context.svc.settings.feed_adding == "everyone":  # pasting links works: say so
            text += " " + _(texts.ANYONE_ADDS)
        await context.reply(text)
        return
    await context.reply(_(texts.OPERATORS_ONLY))


async def cmd_addfeed(update: Update, context: Context) -> None:
    """/addfeed URL [SLUG]"""
    message = update.effective_message
    if message is None:
        return
    tr = await context.tr()
    _ = tr.gettext
    parts = context.args_text.split()
    if not 1 <= len(parts) <= 2:
        await context.reply(await context.usage("addfeed"))
        return
    url, slug = parts[0], (parts[1].lower() if len(parts) == 2 else None)
    catalog = context.svc.catalog

    async def work(progress: background.Progress) -> str:
        try:
            outcome = await catalog.add_feed(url, slug=slug, trusted=False)
        except FeedAddError as exc:  # the chat's sentence; the technical line goes to the log
            log.info("/addfeed %s: %s", shown_url(url), exc)
            return _("Could not add the feed: {reason}").format(reason=explain(exc, context, tr))
        text = _("Now watching <b>{title}</b> as <code>{slug}</code> ({items} items so far).")
        return text.format(
            title=esc(outcome.feed_title), slug=esc(outcome.slug), items=outcome.items
        )

    waiting = _("Fetching {url}…").format(url=esc(shown_url(url, operator=True)))
    background.start(context.svc.jobs, message, waiting, work, _(texts.SOMETHING_WRONG))


async def cmd_removefeed(update: Update, context: Context) -> None:
    """/removefeed SLUG"""
    tr = await context.tr()
    slug = context.args_text.lower()
    if not slug or " " in slug:
        await context.reply(await context.usage("removefeed"))
        return
    if await context.svc.catalog.remove_feed(slug):
        await context.reply(
            tr.gettext("Stopped watching <code>{slug}</code>.").format(slug=esc(slug))
        )
    else:
        text = tr.gettext("There is no feed named <code>{slug}</code>.")
        await context.reply(text.format(slug=esc(slug[:64])))


async def on_document(update: Update, context: Context) -> None:
    """A file sent in a private chat: an OPML list to import (operators only)."""
    message = update.effective_message
    if message is None or message.document is None:
        return
    document = message.document
    if not (document.file_name or "").lower().endswith((".opml", ".xml")):
        return
    tr = await context.tr()
    _ = tr.gettext
    if not context.is_operator:
        await refuse(update, context)
        return
    if document.file_size is not None and document.file_size > MAX_OPML_BYTES:
        await context.reply(_("That file is too large for an OPML list (1 MB at most)."))
        return
    telegram_file = await document.get_file()
    data = bytes(await telegram_file.download_as_bytearray())[:MAX_OPML_BYTES]
    try:
        listed = parse_opml(data)
    except OpmlError as exc:
        text = _("Could not read that file: {reason}")
        await context.reply(text.format(reason=esc(exc.translated(tr))))
        return
    urls = [entry.url for entry in listed[:100]]
    catalog = context.svc.catalog

    def progress_text(done: int) -> str:
        return _("Importing {done} of {total} feeds…").format(done=done, total=len(urls))

    async def work(progress: background.Progress) -> str:
        async def step(done: int) -> None:
            await progress.note(progress_text(done))

        report = await catalog.import_feeds(urls, trusted=False, on_step=step)
        added, skipped, failed = [o.slug for o in report.added], report.skipped, report.failed
        summary = tr.ngettext(
            "Imported {added} feed, {skipped} already watched, {failed} failed.",
            "Imported {added} feeds, {skipped} already watched, {failed} failed.",
            len(added),
        )
        lines = [summary.format(added=len(added), skipped=skipped, failed=len(failed))]
        lines += [f"<code>{esc(slug)}</code>" for slug in added[:30]]
        lines += [esc(line[:200]) for line in failed[:10]]
        return "\n".join(lines)

    background.start(context.svc.jobs, message, progress_text(0), work, _(texts.SOMETHING_WRONG))


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "addfeed",
        cmd_addfeed,
        about=N_("add a feed to this bot (operators)"),
        usage=N_(
            "/addfeed URL [<i>feed name</i>] — e.g. "
            "<code>/addfeed https://example.org/feed/ example</code>"
        ),
        who=Who.OPERATORS,
    ),
    Command(
        "removefeed",
        cmd_removefeed,
        about=N_("stop watching a feed (operators)"),
        usage=N_("/removefeed <i>feed name</i>"),
        who=Who.OPERATORS,
    ),
)
