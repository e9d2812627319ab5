"""A subscription's and a chat's settings: /filter, /keywords, /edits, /preview, /format,
/silent, /pause, /resume, /timezone, /quiet, and the edits/previews buttons under /list."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from telegram import Update

from bot.core.lang import N_, Translator, then
from bot.core.messages.escape import esc
from bot.core.modes import EDITS, FORMAT, PREVIEW, SILENT, Mode
from bot.core.rules.filters import (
    FilterSyntaxError,
    describe_keywords,
    parse_keywords,
)
from bot.core.rules.quiet import QuietSyntaxError, parse_quiet
from bot.core.types import KeywordFilter, Reader
from bot.db.store import FeedView
from bot.services.subscribing import Overview
from bot.telegram.commands.common import not_subscribed, pressed, setting_command
from bot.telegram.commands.current import show_current, show_mode
from bot.telegram.commands.filters import filter_test
from bot.telegram.commands.subscriptions import current_list, edit
from bot.telegram.context import Context
from bot.telegram.spec import Command
from bot.telegram.views import SWITCHES


async def cmd_keywords(update: Update, context: Context) -> None:
    """/keywords SLUG WORD[, "TWO WORDS"…] | off"""
    cmd = await setting_command(context, "keywords", current=_show_keywords)
    if cmd is None:
        return
    tr, feed, spec = cmd.tr, cmd.feed, cmd.rest
    if spec.strip().lower() == "off":
        words = KeywordFilter()
    else:
        try:
            limit = context.svc.settings.max_categories_per_filter
            words = parse_keywords(spec, max_keywords=limit)
        except FilterSyntaxError as exc:
            await context.reply(
                then(esc(exc.sentence(tr)), await context.usage("keywords"), tr.language)
            )
            return
    chat_id = context.chat_id
    if await context.svc.subscriptions.set_keywords(chat_id, feed.id, words):
        text = tr.gettext("Keywords for <b>{title}</b>: {keywords}.")
        shown = esc(describe_keywords(words, tr))
        test = await filter_test(context, feed)
        await context.reply(text.format(title=esc(feed.title), keywords=shown) + "\n\n" + test)
    else:
        await context.reply(not_subscribed(feed, tr))


async def _show_keywords(context: Context, slug: str) -> None:
    def sentence(reader: Reader, feed: FeedView, _seen: Overview, tr: Translator) -> str:
        text = tr.gettext("Keywords for <b>{title}</b>: {keywords}.")
        shown = esc(describe_keywords(reader.keywords, tr))
        said = text.format(title=esc(feed.title), keywords=shown)
        return f"<code>{esc(feed.slug)}</code>: {said}"

    await show_current(context, "keywords", slug, sentence)


async def set_mode_command(context: Context, mode: Mode) -> None:
    """`/COMMAND FEED VALUE` for any mode of `core/modes.py`: checks, sets, replies."""
    cmd = await setting_command(
        context, mode.command, lambda rest: mode.parse(rest) is not None, show_mode(mode)
    )
    if cmd is None:
        return
    tr, feed, chat_id = cmd.tr, cmd.feed, context.chat_id
    value = mode.parse(cmd.rest)
    assert value is not None  # setting_command checked it
    if await context.svc.subscriptions.set_mode(chat_id, feed.id, value):
        await context.reply(tr.gettext(mode.replies[value]).format(title=esc(feed.title)))
    else:
        await context.reply(not_subscribed(feed, tr))


async def cmd_edits(update: Update, context: Context) -> None:
    """/edits SLUG all|substantive|off (`on` is `all`)"""
    await set_mode_command(context, EDITS)


async def cmd_preview(update: Update, context: Context) -> None:
    """/preview SLUG image|link|off (`on` is read as `link`, as it meant before images)."""
    await set_mode_command(context, PREVIEW)


async def cmd_format(update: Update, context: Context) -> None:
    """/format SLUG title|summary|full"""
    await set_mode_command(context, FORMAT)


async def cmd_silent(update: Update, context: Context) -> None:
    """/silent SLUG on|off: that feed's messages are sent without a notification sound."""
    await set_mode_command(context, SILENT)


async def on_toggle(update: Update, context: Context) -> None:
    """The edits/previews buttons under /list step the mode and redraw the list."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    mode = SWITCHES[button.action]
    await context.svc.subscriptions.toggle(context.chat_id, button.feed_id, mode)
    await edit(query, *await current_list(context, feed_id=button.feed_id))
    await query.answer()


async def cmd_pause(update: Update, context: Context) -> None:
    """/pause: no notifications here until /resume; subscriptions and filters are kept."""
    await _pause(context, paused=True)


async def cmd_resume(update: Update, context: Context) -> None:
    """/resume"""
    await _pause(context, paused=False)


async def _pause(context: Context, *, paused: bool) -> None:
    tr = await context.tr()
    if not await context.may_change():
        return
    await context.remember_chat()
    chat_id = context.chat_id
    await context.svc.chats.pause(chat_id, paused=paused)
    if paused:
        text = tr.gettext("Paused. Subscriptions and filters are kept; /resume to restart.")
    else:
        text = tr.gettext("Resumed: new posts will appear here again.")
    await context.reply(text)


async def cmd_timezone(update: Update, context: Context) -> None:
    """/timezone ZONE; alone, the chat's zone."""
    tr = await context.tr()
    if not context.args_text.strip():
        seen = await context.svc.subscriptions.overview(context.chat_id)
        text = tr.gettext("Time zone: {zone}.").format(zone=esc(seen.timezone))
        await context.reply(text + "\n\n" + await context.usage("timezone"))
        return
    if not await context.may_change():
        return
    name = known_zone(context.args_text)
    if name is None:
        text = tr.gettext("Unknown time zone. {usage}")
        await context.reply(text.format(usage=await context.usage("timezone")))
        return
    await context.remember_chat()
    chat_id = context.chat_id
    await context.svc.chats.set_timezone(chat_id, name)
    await context.reply(tr.gettext("Time zone: {zone}.").format(zone=esc(name)))


@cache
def _zones() -> dict[str, str]:
    """IANA zone names by their folded form; `localtime` and `posix/…` aliases are not zones."""
    return {
        zone.casefold(): zone
        for zone in available_timezones()
        if zone != "localtime" and not zone.startswith(("posix/", "right/"))
    }


def known_zone(text: str) -> str | None:
    """The canonical IANA name for what was typed (`europe/berlin` → `Europe/Berlin`)."""
    return _zones().get(text.strip().casefold()) if len(text) <= 64 else None


async def cmd_quiet(update: Update, context: Context) -> None:
    """/quiet HH:MM-HH:MM | off: messages due in the window (this chat's time zone) are held
    and delivered when it ends. Alone: the chat's quiet hours."""
    tr = await context.tr()
    text = context.args_text.strip()
    if not text:
        seen = await context.svc.subscriptions.overview(context.chat_id)
        usage = await context.usage("quiet")
        await context.reply(_quiet_sentence(tr, seen.quiet, seen.timezone) + "\n\n" + usage)
        return
    if not await context.may_change():
        return
    if text.lower() == "off":
        window = None
    else:
        try:
            window = str(parse_quiet(text))
        except QuietSyntaxError as exc:
            await context.reply(then(exc.sentence(tr), await context.usage("quiet"), tr.language))
            return
    await context.remember_chat()
    chat_id = context.chat_id
    zone = await context.svc.chats.set_quiet(chat_id, window)
    await context.reply(_quiet_sentence(tr, window, zone))


def _quiet_sentence(tr: Translator, window: str | None, zone: str) -> str:
    if window is None:
        return tr.gettext("Quiet hours off: messages arrive as they come.")
    reply = tr.gettext(
        "Quiet hours {window} ({zone}): messages are held and delivered when they end, as a "
        "digest when there are more than a few. /quiet off to stop."
    )
    return reply.format(window=window, zone=esc(zone))


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "keywords",
        cmd_keywords,
        about=N_("only posts with some words"),
        usage=N_(
            '/keywords <i>feed name</i> WORD[, "TWO WORDS"…] — a leading - excludes; e.g. '
            '<code>/keywords {feed} compiler, "open source", -webinar</code>; '
            "<code>/keywords {feed} off</code> clears them"
        ),
        more=N_(
            "Keywords match whole words in the title and text (Chinese and Japanese ones "
            "anywhere in it), ignoring case and accents; categories and keywords must both match."
        ),
    ),
    Command(
        "edits",
        cmd_edits,
        about=N_("notify about edits or not"),
        usage=N_(
            "/edits <i>feed name</i> all|substantive|off — every edit (the default; minor ones say "
            "so), substantive ones only (not typo fixes or a changed word), or none; e.g. "
            "<code>/edits {feed} substantive</code>"
        ),
    ),
    Command(
        "preview",
        cmd_preview,
        about=N_("the post's image, link preview or none"),
        usage=N_(
            "/preview <i>feed name</i> image|link|off — the post's image above the text (the "
            "default), Telegram's preview of its link, or none; e.g. "
            "<code>/preview {feed} link</code>"
        ),
    ),
    Command(
        "format",
        cmd_format,
        about=N_("title only, a summary, or the whole post"),
        usage=N_(
            "/format <i>feed name</i> title|summary|full — the title and source only, a summary "
            "(the default), or the whole post; e.g. <code>/format {feed} full</code>"
        ),
    ),
    Command(
        "silent",
        cmd_silent,
        about=N_("a feed's messages without sound"),
        usage=N_(
            "/silent <i>feed name</i> on|off — e.g. <code>/silent {feed} on</code>: its messages "
            "arrive without a notification sound"
        ),
    ),
    Command(
        "pause",
        cmd_pause,
        about=N_("pause every notification here"),
    ),
    Command(
        "resume",
        cmd_resume,
        about=N_("resume notifications"),
    ),
    Command(
        "timezone",
        cmd_timezone,
        about=N_("this chat's time zone"),
        usage=N_("/timezone ZONE — e.g. <code>/timezone Europe/Berlin</code>"),
    ),
    Command(
        "quiet",
        cmd_quiet,
        about=N_("hold messages at night, deliver them after"),
        usage=N_(
            "/quiet HH:MM-HH:MM|off — in this chat's time zone (/timezone); e.g. "
            "<code>/quiet 22:00-07:00</code>"
        ),
    ),
)
