"""/digest: one message per hour or per day instead of one per post."""

from __future__ import annotations

from telegram import Update

from bot.core.lang import N_, Translator, then
from bot.core.messages.digest import (
    DigestMode,
    DigestSchedule,
    DigestSyntaxError,
    is_off,
    parse_schedule,
)
from bot.core.messages.escape import esc
from bot.core.messages.ranked import DEFAULT_TOP, is_all, split_top
from bot.core.types import Reader
from bot.db.store import FeedView
from bot.services.subscribing import Overview
from bot.telegram.commands.common import not_subscribed, setting_command
from bot.telegram.commands.current import show_current
from bot.telegram.context import Context
from bot.telegram.spec import Command


async def cmd_digest(update: Update, context: Context) -> None:
    """/digest SLUG hourly|daily HH:MM|off, or /digest all daily HH:MM [top N]|off"""
    words = context.args_text.split(maxsplit=1)
    if len(words) == 2 and is_all(words[0]):
        await _digest_all(context, words[1])
        return
    cmd = await setting_command(context, "digest", current=_show_digest)
    if cmd is None:
        return
    tr, feed = cmd.tr, cmd.feed
    _ = tr.gettext
    words = cmd.rest.lower().split()
    schedule: DigestSchedule | None = None
    if not is_off(words):
        try:
            schedule = parse_schedule(words)
        except DigestSyntaxError as exc:
            await context.reply(
                then(esc(exc.sentence(tr)), await context.usage("digest"), tr.language)
            )
            return
    done = await context.svc.subscriptions.set_digest(context.chat_id, feed.id, schedule)
    if not done.subscribed:
        await context.reply(not_subscribed(feed, tr))
    else:
        await context.reply(_digest_sentence(tr, feed.title, schedule, done.zone))


async def _digest_all(context: Context, rest: str) -> None:
    """Every feed of the chat on one schedule, and one ranked digest across them."""
    if not await context.may_change():
        return
    tr = await context.tr()
    schedule: DigestSchedule | None = None
    top = DEFAULT_TOP
    try:
        if not is_off(rest.lower().split()):
            text, top = split_top(rest.lower())
            schedule = parse_schedule(text.split())
    except DigestSyntaxError as exc:
        usage = await context.usage("digest")
        await context.reply(then(esc(exc.sentence(tr)), usage, tr.language))
        return
    count, zone = await context.svc.subscriptions.set_digest_all(context.chat_id, schedule, top)
    _ = tr.gettext
    if not count:
        await context.reply(_("This chat follows no feed yet: <code>/subscribe URL</code> first."))
    elif schedule is None:
        await context.reply(_("Digests for every feed: off, every post is sent at once."))
    else:
        when = (
            _("every hour")
            if schedule.mode is DigestMode.HOURLY
            else _("every day at {time} ({zone})").format(time=schedule.at_text, zone=esc(zone))
        )
        text = tr.ngettext(
            "One digest for this chat's {feeds} feed, {when}: the {top} posts that matter "
            "most to it first (keywords, field rules, 👍/👎, how many feeds carried them, "
            "recency), then the rest as links.",
            "One digest for this chat's {feeds} feeds, {when}: the {top} posts that matter "
            "most to it first (keywords, field rules, 👍/👎, how many feeds carried them, "
            "recency), then the rest as links.",
            count,
        )
        await context.reply(text.format(feeds=count, when=when, top=top))


def _digest_sentence(tr: Translator, title: str, schedule: DigestSchedule | None, zone: str) -> str:
    _ = tr.gettext
    if schedule is None:
        text = _("Digest for <b>{title}</b>: off, every post is sent at once.")
        return text.format(title=esc(title))
    if schedule.mode is DigestMode.HOURLY:
        return _("Digest for <b>{title}</b>: every hour.").format(title=esc(title))
    text = _("Digest for <b>{title}</b>: every day at {time} ({zone}).")
    return text.format(title=esc(title), time=schedule.at_text, zone=esc(zone))


async def _show_digest(context: Context, slug: str) -> None:
    def sentence(reader: Reader, feed: FeedView, seen: Overview, tr: Translator) -> str:
        said = _digest_sentence(tr, feed.title, seen.digests.get(feed.id), seen.timezone)
        return f"<code>{esc(feed.slug)}</code>: {said}"

    await show_current(context, "digest", slug, sentence)


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "digest",
        cmd_digest,
        about=N_("one summary per hour or day"),
        usage=N_(
            "/digest <i>feed name</i> hourly|daily HH:MM|off — e.g. "
            "<code>/digest {feed} daily 08:30</code>; every feed in one ranked digest: "
            "<code>/digest all daily 08:00 top 5</code>"
        ),
    ),
)
