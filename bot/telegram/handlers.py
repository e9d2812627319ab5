"""Chat command handlers: one `async def cmd_x(update, context)` per command, as in PTB's examples.

Each handler validates its arguments and answers every mistake with the right form; the error
handler turns anything unexpected into a short apology instead of silence.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from zoneinfo import available_timezones

from sqlmodel import Session
from telegram import (
    Chat,
    ChatMember,
    ChatMemberUpdated,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.ext import ApplicationHandlerStop, ContextTypes

from bot.core.digest import DigestSyntaxError, parse_schedule
from bot.core.filters import (
    FilterSyntaxError,
    describe,
    describe_keywords,
    parse_filter,
    parse_keywords,
    unknown_categories,
)
from bot.core.lang import N_, Translator
from bot.core.model import CategoryFilter, KeywordFilter
from bot.core.opml import OpmlError, OpmlFeed, parse_opml, render_opml
from bot.core.paging import split_message
from bot.core.urls import shown_url
from bot.db import store
from bot.db.tables import Chat as DbChat
from bot.db.tables import Feed
from bot.i18n import LANGUAGES, from_client, parse_choice, translator
from bot.pipeline import FeedAddError
from bot.telegram import background, texts
from bot.telegram.callback_data import Button, encode
from bot.telegram.guard import Verdict
from bot.telegram.services import services

log = logging.getLogger(__name__)
Context = ContextTypes.DEFAULT_TYPE
ANONYMOUS_ADMIN_ID = 1087968824  # @GroupAnonymousBot posts for anonymous group admins


def esc(value: object) -> str:
    return html.escape(str(value), quote=False)


async def reply(update: Update, text: str, keyboard: InlineKeyboardMarkup | None = None) -> None:
    """Answer in the chat, split into several messages when it outgrows Telegram's limit (the
    keyboard goes under the last one)."""
    message = update.effective_message
    if message is None:
        return
    parts = split_message(text)
    for number, part in enumerate(parts, start=1):
        await message.reply_text(
            part,
            parse_mode=ParseMode.HTML,
            reply_markup=keyboard if number == len(parts) else None,
            do_quote=False,
        )


def command_args(message: Message) -> str:
    """Everything after the command word (`/filter@bot a, b` → `a, b`), whitespace-trimmed."""
    parts = (message.text or "").split(maxsplit=1)
    return parts[1].strip() if len(parts) > 1 else ""


def client_language(update: Update) -> str:
    user = update.effective_user
    return from_client(user.language_code if user is not None else None)


async def remember_chat(
    update: Update, context: Context, *, chosen: str | None = None
) -> Chat | None:
    """Record the chat. Its language is the sender's client language until one is `chosen`."""
    chat = update.effective_chat
    if chat is None:
        return None
    title = chat.title or chat.full_name or chat.username or ""
    spoken, fixed = chosen or client_language(update), chosen is not None
    await services(context).write(
        lambda s: store.upsert_chat(
            s, chat_id=chat.id, type_=chat.type, title=title, language=spoken, chosen=fixed
        )
    )
    return chat


async def chat_translator(update: Update, context: Context) -> Translator:
    """The chat's chosen language; until it has one, the sender's client language (kept then)."""
    chat, guess = update.effective_chat, client_language(update)
    if chat is None:
        return translator(guess)
    svc = services(context)
    known, language = await svc.read(lambda s: store.chat_language(s, chat_id=chat.id))
    if known and language is None:  # a chat from before languages: the client's from now on
        await remember_chat(update, context)
    return translator(language or guess)


async def is_chat_admin(update: Update, context: Context) -> bool:
    """Private chats are their own admin; in groups ask Telegram (anonymous admins count).

    A button press is judged by who pressed it: the message under it is the bot's own. The
    answer is cached briefly, so a burst of commands costs one `getChatMember`.
    """
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    if chat is None:
        return False
    if chat.type == ChatType.PRIVATE:
        return True
    pressed = update.callback_query is not None
    if not pressed and message is not None and message.sender_chat is not None:
        return message.sender_chat.id == chat.id
    if user is None:
        return False
    cache = services(context).guard.admins
    known = cache.get((chat.id, user.id))
    if known is not None:
        return bool(known)
    member = await context.bot.get_chat_member(chat.id, user.id)
    admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
    cache.put((chat.id, user.id), admin)
    return admin


def is_operator(update: Update, context: Context) -> bool:
    user = update.effective_user
    return user is not None and user.id in services(context).settings.bot_admin_ids


async def find_feed(
    update: Update, context: Context, tr: Translator, slug: str, command: str
) -> Feed | None:
    """The feed named `slug`, or the only feed when no slug is given and there is just one."""
    _ = tr.gettext
    svc = services(context)
    rows = await svc.read(store.list_feeds)
    if not slug:
        if len(rows) == 1:
            return rows[0].feed
        if not rows:
            await reply(update, _("No feeds are watched yet."))
        else:
            text = _("Which feed? Usage: {usage}\nFeeds: {feeds}")
            await reply(update, text.format(usage=_(texts.USAGE[command]), feeds=_slugs(rows, tr)))
        return None
    for row in rows:
        if row.feed.slug == slug.lower():
            return row.feed
    text = _("There is no feed named <code>{slug}</code>. Feeds: {feeds}")
    await reply(update, text.format(slug=esc(slug[:64]), feeds=_slugs(rows, tr)))
    return None


def _slugs(rows: list[store.FeedRow], tr: Translator) -> str:
    return ", ".join(f"<code>{esc(r.feed.slug)}</code>" for r in rows) or tr.gettext("none yet")


@dataclass(frozen=True, slots=True)
class SettingCommand:
    """A `/command SLUG REST` that passed the checks every subscription setting needs."""

    message: Message
    tr: Translator
    feed: Feed
    feed_id: int
    rest: str


async def setting_command(
    update: Update, context: Context, command: str, valid: Callable[[str], bool] = bool
) -> SettingCommand | None:
    """Admin check, `SLUG REST` arguments (`valid(REST)`), the feed; replies to any mistake."""
    message = update.effective_message
    tr = await chat_translator(update, context)
    if message is None or not await _may_change(update, context, tr):
        return None
    parts = command_args(message).split(maxsplit=1)
    if len(parts) < 2 or not valid(parts[1]):
        await reply(update, usage(tr, command))
        return None
    feed = await find_feed(update, context, tr, parts[0], command)
    if feed is None or feed.id is None:
        return None
    return SettingCommand(message, tr, feed, feed.id, parts[1])


def usage(tr: Translator, command: str) -> str:
    """The wrong-argument reply: `Usage: ` and the command's usage line."""
    return tr.gettext("Usage: {usage}").format(usage=tr.gettext(texts.USAGE[command]))


# --- commands ----------------------------------------------------------------------------------


async def cmd_help(update: Update, context: Context) -> None:
    """/start and /help: what the bot does and every command with an example."""
    await remember_chat(update, context)
    await reply(update, texts.help_text(await chat_translator(update, context)))


async def cmd_feeds(update: Update, context: Context) -> None:
    """/feeds: the feeds this bot watches."""
    _ = (await chat_translator(update, context)).gettext
    rows = await services(context).read(store.list_feeds)
    if not rows:
        await reply(update, _("No feeds are watched yet."))
        return
    lines = [_("<b>Watched feeds</b>")]
    for row in rows:
        status = "" if row.feed.status == "ok" else f" ({esc(row.feed.status)})"
        lines.append(f"<code>{esc(row.feed.slug)}</code> — {esc(row.feed.title)}{status}")
    lines.append("\n" + _("Subscribe with /subscribe SLUG"))
    await reply(update, "\n".join(lines))


async def cmd_subscribe(update: Update, context: Context) -> None:
    """/subscribe [SLUG]"""
    message = update.effective_message
    tr = await chat_translator(update, context)
    _ = tr.gettext
    if message is None or not await _may_change(update, context, tr):
        return
    feed = await find_feed(update, context, tr, command_args(message), "subscribe")
    if feed is None or feed.id is None:
        return
    chat = await remember_chat(update, context)
    assert chat is not None
    svc = services(context)
    feed_id, limit = feed.id, svc.settings.max_subscriptions_per_chat

    thread_id = message.message_thread_id if message.is_topic_message else None

    def work(session: Session) -> str:
        if store.count_subscriptions(session, chat_id=chat.id) >= limit:
            return "limit"
        added = store.subscribe(session, chat_id=chat.id, feed_id=feed_id, thread_id=thread_id)
        return "added" if added else "had"

    result = await svc.write(work)
    title, slug = esc(feed.title), esc(feed.slug)
    if result == "limit":
        text = _("This chat already has {limit} subscriptions, the most allowed.")
        await reply(update, text.format(limit=limit))
    elif result == "had":
        text = _("This chat is already subscribed to <b>{title}</b>.")
        await reply(update, text.format(title=title))
    else:
        from bot.telegram.buttons import backlog_keyboard

        text = _(
            "Subscribed to <b>{title}</b>. New posts and real edits will appear here.\n"
            "Narrow it down with <code>/filter {slug} CATEGORY</code> "
            "(see <code>/categories {slug}</code>)."
        )
        await reply(update, text.format(title=title, slug=slug), backlog_keyboard(feed_id, tr))


async def cmd_unsubscribe(update: Update, context: Context) -> None:
    """/unsubscribe SLUG | all"""
    message = update.effective_message
    tr = await chat_translator(update, context)
    _ = tr.gettext
    if message is None or not await _may_change(update, context, tr):
        return
    arg = command_args(message)
    chat_id = message.chat_id
    svc = services(context)
    if not arg:
        await reply(update, usage(tr, "unsubscribe"))
        return
    if arg.lower() == "all":
        count = await svc.write(lambda s: store.unsubscribe(s, chat_id=chat_id, feed_id=None))
        text = tr.ngettext(
            "Unsubscribed from {count} feed.", "Unsubscribed from {count} feeds.", count
        )
        await reply(update, text.format(count=count))
        return
    feed = await find_feed(update, context, tr, arg, "unsubscribe")
    if feed is None:
        return
    count = await svc.write(lambda s: store.unsubscribe(s, chat_id=chat_id, feed_id=feed.id))
    if count:
        text = _("Unsubscribed from <b>{title}</b>.")
    else:
        text = _("This chat was not subscribed to <b>{title}</b>.")
    await reply(update, text.format(title=esc(feed.title)))


async def cmd_list(update: Update, context: Context) -> None:
    """/list: this chat's subscriptions and filters, with buttons to change them."""
    message = update.effective_message
    if message is None:
        return
    tr = await chat_translator(update, context)
    await reply(update, *await list_view(context, message.chat_id, tr))


async def list_view(
    context: Context, chat_id: int, tr: Translator
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The /list text and its keyboard: unsubscribe, edits and previews per feed."""
    _ = tr.gettext
    svc = services(context)
    subs = await svc.read(lambda s: store.chat_subscriptions(s, chat_id=chat_id))
    if not subs:
        return _("This chat has no subscriptions. See /feeds, then /subscribe SLUG."), None
    lines = [_("<b>Subscriptions</b>")]
    rows = []
    for sub, feed in subs:
        reader, feed_id = store.audience(sub), feed.id or 0
        extras = []
        if not reader.keywords.is_empty:
            words = describe_keywords(reader.keywords, tr)
            extras.append(_("keywords {keywords}").format(keywords=words))
        if not reader.edits:
            extras.append(_("no edits"))
        if reader.preview:
            extras.append(_("previews on"))
        if reader.thread_id is not None:
            extras.append(_("topic {topic}").format(topic=reader.thread_id))
        tail = f" ({'; '.join(extras)})" if extras else ""
        line = f"{describe(reader.categories, tr)}{tail}"
        lines.append(f"<code>{esc(feed.slug)}</code> — {esc(feed.title)}: {esc(line)}")
        rows.append(
            [
                InlineKeyboardButton(
                    f"✖ {feed.slug}"[:40], callback_data=encode(Button("unsub", feed_id))
                ),
                InlineKeyboardButton(
                    _("edits on") if reader.edits else _("edits off"),
                    callback_data=encode(Button("edits", feed_id)),
                ),
                InlineKeyboardButton(
                    _("previews on") if reader.preview else _("previews off"),
                    callback_data=encode(Button("preview", feed_id)),
                ),
            ]
        )
    if await svc.read(lambda s: store.is_paused(s, chat_id=chat_id)):
        lines.append("\n" + _("Notifications are paused: /resume to restart them."))
    return "\n".join(lines), InlineKeyboardMarkup(rows[:50])


async def cmd_categories(update: Update, context: Context) -> None:
    """/categories SLUG: categories seen on the feed, most frequent first."""
    message = update.effective_message
    if message is None:
        return
    tr = await chat_translator(update, context)
    feed = await find_feed(update, context, tr, command_args(message), "categories")
    if feed is None or feed.id is None:
        return
    feed_id = feed.id
    counts = await services(context).read(lambda s: store.category_counts(s, feed_id=feed_id))
    title = esc(feed.title)
    if not counts:
        await reply(
            update, tr.gettext("No categories seen on <b>{title}</b> yet.").format(title=title)
        )
        return
    lines = [tr.gettext("<b>Categories on {title}</b>").format(title=title)]
    lines += [f"{esc(name)} ({count})" for name, count in counts[:50]]
    await reply(update, "\n".join(lines))


async def cmd_filter(update: Update, context: Context) -> None:
    """/filter SLUG CATEGORY[, CATEGORY…] | off"""
    cmd = await setting_command(update, context, "filter")
    if cmd is None:
        return
    tr, feed, spec = cmd.tr, cmd.feed, cmd.rest
    _ = tr.gettext
    svc = services(context)
    if spec.strip().lower() == "off":
        flt = CategoryFilter()
    else:
        try:
            flt = parse_filter(spec, max_categories=svc.settings.max_categories_per_filter)
        except FilterSyntaxError as exc:
            await reply(update, f"{esc(exc.translated(tr))}. {usage(tr, 'filter')}")
            return
    chat_id, feed_id = cmd.message.chat_id, cmd.feed_id

    def work(session: Session) -> tuple[bool, list[str]]:
        ok = store.set_filter(session, chat_id=chat_id, feed_id=feed_id, flt=flt)
        known = [name for name, _count in store.category_counts(session, feed_id=feed_id)]
        return ok, unknown_categories(flt, known)

    ok, unknown = await svc.write(work)
    if not ok:
        await reply(update, _not_subscribed(feed, tr))
        return
    text = _("Filter for <b>{title}</b>: {filter}.").format(
        title=esc(feed.title), filter=esc(describe(flt, tr))
    )
    if unknown:
        note = tr.ngettext(
            "Note: {names} has not been seen on this feed yet.",
            "Note: {names} have not been seen on this feed yet.",
            len(unknown),
        )
        text += "\n" + note.format(names=esc(", ".join(unknown)))
    await reply(update, text)


async def cmd_keywords(update: Update, context: Context) -> None:
    """/keywords SLUG WORD[, "TWO WORDS"…] | off"""
    cmd = await setting_command(update, context, "keywords")
    if cmd is None:
        return
    tr, feed, spec = cmd.tr, cmd.feed, cmd.rest
    if spec.strip().lower() == "off":
        words = KeywordFilter()
    else:
        try:
            words = parse_keywords(
                spec, max_keywords=services(context).settings.max_categories_per_filter
            )
        except FilterSyntaxError as exc:
            await reply(update, f"{esc(exc.translated(tr))}. {usage(tr, 'keywords')}")
            return
    chat_id, feed_id = cmd.message.chat_id, cmd.feed_id

    def work(session: Session) -> bool:
        return store.update_subscription(
            session,
            chat_id=chat_id,
            feed_id=feed_id,
            keywords=list(words.include),
            without_keywords=list(words.exclude),
        )

    if await services(context).write(work):
        text = tr.gettext("Keywords for <b>{title}</b>: {keywords}.")
        shown = esc(describe_keywords(words, tr))
        await reply(update, text.format(title=esc(feed.title), keywords=shown))
    else:
        await reply(update, _not_subscribed(feed, tr))


ON_OFF = ("on", "off")
TOGGLED = {
    ("edits", True): N_("Edit notifications for <b>{title}</b>: on."),
    ("edits", False): N_("Edit notifications for <b>{title}</b>: off."),
    ("preview", True): N_("Link previews for <b>{title}</b>: on."),
    ("preview", False): N_("Link previews for <b>{title}</b>: off."),
}


async def cmd_edits(update: Update, context: Context) -> None:
    """/edits SLUG on|off"""
    await _toggle(update, context, "edits")


async def cmd_preview(update: Update, context: Context) -> None:
    """/preview SLUG on|off"""
    await _toggle(update, context, "preview")


async def _toggle(update: Update, context: Context, field: str) -> None:
    cmd = await setting_command(update, context, field, lambda rest: rest.lower() in ON_OFF)
    if cmd is None:
        return
    tr, feed = cmd.tr, cmd.feed
    value, chat_id, feed_id = cmd.rest.lower() == "on", cmd.message.chat_id, cmd.feed_id

    def work(session: Session) -> bool:
        return store.update_subscription(
            session, chat_id=chat_id, feed_id=feed_id, **{field: value}
        )

    if await services(context).write(work):
        await reply(update, tr.gettext(TOGGLED[field, value]).format(title=esc(feed.title)))
    else:
        await reply(update, _not_subscribed(feed, tr))


async def cmd_pause(update: Update, context: Context) -> None:
    """/pause: no notifications here until /resume; subscriptions and filters are kept."""
    await _pause(update, context, paused=True)


async def cmd_resume(update: Update, context: Context) -> None:
    """/resume"""
    await _pause(update, context, paused=False)


async def _pause(update: Update, context: Context, *, paused: bool) -> None:
    tr = await chat_translator(update, context)
    if not await _may_change(update, context, tr):
        return
    chat = await remember_chat(update, context)
    assert chat is not None
    await services(context).write(lambda s: store.set_paused(s, chat_id=chat.id, paused=paused))
    if paused:
        text = tr.gettext("Paused. Subscriptions and filters are kept; /resume to restart.")
    else:
        text = tr.gettext("Resumed: new posts will appear here again.")
    await reply(update, text)


def _not_subscribed(feed: Feed, tr: Translator) -> str:
    text = tr.gettext(
        "This chat is not subscribed to <b>{title}</b>: <code>/subscribe {slug}</code> first."
    )
    return text.format(title=esc(feed.title), slug=esc(feed.slug))


async def cmd_export(update: Update, context: Context) -> None:
    """/export: this chat's subscriptions as an OPML file."""
    message = update.effective_message
    if message is None:
        return
    tr = await chat_translator(update, context)
    chat_id = message.chat_id
    subs = await services(context).read(lambda s: store.chat_subscriptions(s, chat_id=chat_id))
    if not subs:
        await reply(update, tr.gettext("This chat has no subscriptions to export."))
        return
    operator = is_operator(update, context)  # only operators see a feed URL's query token
    feeds = [
        OpmlFeed(title=feed.title, url=shown_url(feed.url, operator=operator))
        for _sub, feed in subs
    ]
    document = render_opml("Feedwatch subscriptions", feeds, created=datetime.now(UTC))
    caption = tr.ngettext("{count} feed", "{count} feeds", len(feeds)).format(count=len(feeds))
    await message.reply_document(
        document=document, filename="feedwatch.opml", caption=caption, do_quote=False
    )


async def cmd_digest(update: Update, context: Context) -> None:
    """/digest SLUG hourly|daily HH:MM|off"""
    cmd = await setting_command(update, context, "digest")
    if cmd is None:
        return
    tr, feed = cmd.tr, cmd.feed
    _ = tr.gettext
    words = cmd.rest.lower().split()
    mode: str | None = None
    at = None
    if words != ["off"]:
        try:
            mode, at = parse_schedule(words)
        except DigestSyntaxError as exc:
            await reply(update, f"{esc(exc.translated(tr))}. {usage(tr, 'digest')}")
            return
    chat_id, feed_id = cmd.message.chat_id, cmd.feed_id
    when = at.strftime("%H:%M") if at else None

    def work(session: Session) -> str | None:
        schedule = {"digest": mode, "digest_at": when, "last_digest_at": datetime.now(UTC)}
        if not store.update_subscription(session, chat_id=chat_id, feed_id=feed_id, **schedule):
            return None
        chat = session.get(DbChat, chat_id)
        return chat.timezone if chat else "UTC"

    tz = await services(context).write(work)
    title = esc(feed.title)
    if tz is None:
        await reply(update, _not_subscribed(feed, tr))
    elif mode is None:
        text = _("Digest for <b>{title}</b>: off, every post is sent at once.")
        await reply(update, text.format(title=title))
    elif mode == "hourly":
        await reply(update, _("Digest for <b>{title}</b>: every hour.").format(title=title))
    else:
        text = _("Digest for <b>{title}</b>: every day at {time} ({zone}).")
        await reply(update, text.format(title=title, time=when, zone=esc(tz)))


async def cmd_timezone(update: Update, context: Context) -> None:
    """/timezone ZONE"""
    message = update.effective_message
    tr = await chat_translator(update, context)
    if message is None or not await _may_change(update, context, tr):
        return
    name = known_zone(command_args(message))
    if name is None:
        text = tr.gettext("Unknown time zone. {usage}")
        await reply(update, text.format(usage=usage(tr, "timezone")))
        return
    chat = await remember_chat(update, context)
    assert chat is not None

    def work(session: Session) -> None:
        row = session.get(DbChat, chat.id)
        if row is not None:
            row.timezone = name
            session.add(row)

    await services(context).write(work)
    await reply(update, tr.gettext("Time zone: {zone}.").format(zone=esc(name)))


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


async def cmd_language(update: Update, context: Context) -> None:
    """/language [en|zh|es]: show the chat's language with buttons, or change it."""
    message = update.effective_message
    tr = await chat_translator(update, context)
    if message is None:
        return
    arg = command_args(message)
    if not arg:
        text = tr.gettext("Language: {language}. {usage}").format(
            language=LANGUAGES[tr.language], usage=usage(tr, "language")
        )
        await reply(update, text, language_keyboard())
        return
    if not await _may_change(update, context, tr):
        return
    choice = parse_choice(arg)
    if choice is None:
        text = tr.gettext("Unknown language. {usage}")
        await reply(update, text.format(usage=usage(tr, "language")))
        return
    await reply(update, await set_language(update, context, choice))


def language_keyboard() -> InlineKeyboardMarkup:
    """One button per language, each labelled in its own language."""
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(name, callback_data=encode(Button("lang", language=code)))]
            for code, name in LANGUAGES.items()
        ]
    )


async def set_language(update: Update, context: Context, language: str) -> str:
    """Store the chat's language; the confirmation is already in the new language."""
    await remember_chat(update, context, chosen=language)
    new = translator(language)
    return new.gettext("Language: {language}.").format(language=LANGUAGES[language])


MAX_OPML_BYTES = 1024 * 1024


async def on_document(update: Update, context: Context) -> None:
    """An operator sends an OPML file in a private chat: watch every feed it lists."""
    message = update.effective_message
    if message is None or message.document is None:
        return
    document = message.document
    if not (document.file_name or "").lower().endswith((".opml", ".xml")):
        return
    tr = await chat_translator(update, context)
    _ = tr.gettext
    if not is_operator(update, context):
        await reply(update, _(texts.OPERATORS_ONLY))
        return
    if document.file_size is not None and document.file_size > MAX_OPML_BYTES:
        await reply(update, _("That file is too large for an OPML list (1 MB at most)."))
        return
    telegram_file = await document.get_file()
    data = bytes(await telegram_file.download_as_bytearray())[:MAX_OPML_BYTES]
    try:
        listed = parse_opml(data)
    except OpmlError as exc:
        text = _("Could not read that file: {reason}")
        await reply(update, text.format(reason=esc(exc.translated(tr))))
        return
    urls = [entry.url for entry in listed[:100]]
    poller = services(context).poller

    async def work(progress: background.Progress) -> str:
        async def step(done: int) -> None:
            await progress.note(
                _("Importing {done} of {total} feeds…").format(done=done, total=len(urls))
            )

        report = await poller.import_feeds(urls, trusted=False, on_step=step)
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

    waiting = _("Importing {done} of {total} feeds…").format(done=0, total=len(urls))
    background.start(services(context).jobs, message, waiting, work, _(texts.SOMETHING_WRONG))


async def cmd_addfeed(update: Update, context: Context) -> None:
    """/addfeed URL [SLUG] (operators only)"""
    message = update.effective_message
    if message is None:
        return
    tr = await chat_translator(update, context)
    _ = tr.gettext
    if not is_operator(update, context):
        await reply(update, _(texts.OPERATORS_ONLY))
        return
    parts = command_args(message).split()
    if not 1 <= len(parts) <= 2:
        await reply(update, usage(tr, "addfeed"))
        return
    url, slug = parts[0], (parts[1].lower() if len(parts) == 2 else None)
    poller = services(context).poller

    async def work(progress: background.Progress) -> str:
        try:
            outcome = await poller.add_feed(url, slug=slug, trusted=False)
        except FeedAddError as exc:
            return _("Could not add the feed: {reason}").format(reason=esc(exc))
        text = _("Now watching <b>{title}</b> as <code>{slug}</code> ({items} items so far).")
        return text.format(
            title=esc(outcome.feed_title), slug=esc(outcome.slug), items=outcome.items
        )

    waiting = _("Fetching {url}…").format(url=esc(shown_url(url, operator=True)))
    background.start(services(context).jobs, message, waiting, work, _(texts.SOMETHING_WRONG))


async def cmd_removefeed(update: Update, context: Context) -> None:
    """/removefeed SLUG (operators only)"""
    message = update.effective_message
    if message is None:
        return
    tr = await chat_translator(update, context)
    _ = tr.gettext
    if not is_operator(update, context):
        await reply(update, _(texts.OPERATORS_ONLY))
        return
    slug = command_args(message).lower()
    if not slug or " " in slug:
        await reply(update, usage(tr, "removefeed"))
        return
    removed = await services(context).write(lambda s: store.remove_feed(s, slug=slug))
    if removed:
        await reply(update, _("Stopped watching <code>{slug}</code>.").format(slug=esc(slug)))
    else:
        text = _("There is no feed named <code>{slug}</code>.")
        await reply(update, text.format(slug=esc(slug[:64])))


async def _may_change(update: Update, context: Context, tr: Translator) -> bool:
    """Admins pass; anyone else is told once per window, then ignored (no reply per command)."""
    if await is_chat_admin(update, context):
        return True
    chat, user = update.effective_chat, update.effective_user
    key = (chat.id if chat else 0, user.id if user else 0)
    if services(context).guard.refusals.first(key):
        await reply(update, tr.gettext(texts.ADMINS_ONLY))
    return False


async def throttle(update: Update, context: Context) -> None:
    """Runs before every handler: a user over the command rate gets one "slow down", then
    silence until the window has room again."""
    user = update.effective_user
    message = update.effective_message
    is_command = message is not None and (message.text or "").startswith("/")
    if user is None or not (is_command or update.callback_query or (message and message.document)):
        return
    verdict = services(context).guard.users.check(user.id)
    if verdict == Verdict.ALLOW:
        return
    if verdict == Verdict.WARN:
        log.info(
            "user %s is over %s commands a minute; ignoring for now",
            user.id,
            services(context).settings.commands_per_minute,
        )
        tr = translator(client_language(update))
        text = tr.gettext(texts.SLOW_DOWN)
        if update.callback_query is not None:
            await update.callback_query.answer(text)
        else:
            await reply(update, text)
    elif update.callback_query is not None:
        await update.callback_query.answer()
    raise ApplicationHandlerStop


# --- membership and errors ---------------------------------------------------------------------


async def on_my_chat_member(update: Update, context: Context) -> None:
    """The bot was added, removed or blocked: (de)activate the chat's subscriptions."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None:
        return
    gone = change.new_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED)
    chat = change.chat
    svc = services(context)
    if gone:
        log.info("chat %s: bot removed or blocked; deactivating", chat.id)
        await svc.write(lambda s: store.set_chat_active(s, chat_id=chat.id, active=False))
    else:  # whoever added the bot chooses the first language
        title = chat.title or chat.full_name or ""
        language = from_client(change.from_user.language_code)
        await svc.write(
            lambda s: store.upsert_chat(
                s, chat_id=chat.id, type_=chat.type, title=title, language=language
            )
        )


async def on_migrate(update: Update, context: Context) -> None:
    """A group was upgraded to a supergroup: keep its subscriptions under the new id."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    old_id, new_id = message.chat_id, message.migrate_to_chat_id
    log.info("chat %s migrated to %s", old_id, new_id)
    await services(context).write(lambda s: store.migrate_chat(s, old_id=old_id, new_id=new_id))


async def on_error(update: object, context: Context) -> None:
    """Log the failure in one line plus traceback, and tell the user briefly."""
    log.error("error while handling an update: %s", context.error, exc_info=context.error)
    if isinstance(update, Update) and update.effective_message is not None:
        try:
            tr = translator(client_language(update))  # no database: it may be what failed
            await update.effective_message.reply_text(
                tr.gettext(texts.SOMETHING_WRONG), do_quote=False
            )
        except Exception as exc:  # the apology itself must never raise
            log.warning("could not send the error reply: %s", exc)
