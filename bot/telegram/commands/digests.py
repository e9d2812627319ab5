"""/digest: one message per hour or per day instead of one per post."""

from __future__ import annotations

from telegram import Update

from bot.core.lang import N_, then
from bot.core.messages.digest import DigestMode, DigestSchedule, DigestSyntaxError, parse_schedule
from bot.core.messages.escape import esc
from bot.telegram.commands.common import not_subscribed, setting_command
from bot.telegram.context import Context
from bot.telegram.spec import Command


async def cmd_digest(update: Update, context: Context) -> None:
    """/digest SLUG hourly|daily HH:MM|off"""
    cmd = await setting_command(context, "digest")
    if cmd is None:
        return
    tr, feed = cmd.tr, cmd.feed
    _ = tr.gettext
    words = cmd.rest.lower().split()
    schedule: DigestSchedule | None = None
    if words != ["off"]:
        try:
            schedule = parse_schedule(words)
        except DigestSyntaxError as exc:
            await context.reply(
                then(esc(exc.sentence(tr)), await context.usage("digest"), tr.language)
            )
            return
    done = await context.svc.subscriptions.set_digest(context.chat_id, feed.id, schedule)
    zone, title = done.zone, esc(feed.title)
    if not done.subscribed:
        await context.reply(not_subscribed(feed, tr))
    elif schedule is None:
        text = _("Digest for <b>{title}</b>: off, every post is sent at once.")
        await context.reply(text.format(title=title))
    elif schedule.mode is DigestMode.HOURLY:
        await context.reply(_("Digest for <b>{title}</b>: every hour.").format(title=title))
    else:
        text = _("Digest for <b>{title}</b>: every day at {time} ({zone}).")
        await context.reply(text.format(title=title, time=schedule.at_text, zone=esc(zone)))


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "digest",
        cmd_digest,
        about=N_("one summary per hour or day"),
        usage=N_(
            "/digest <i>feed name</i> hourly|daily HH:MM|off — e.g. "
            "<code>/digest {feed} daily 08:30</code>"
        ),
    ),
)
