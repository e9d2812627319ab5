"""Leaving a feed without losing it (core/rules/leaving.py): /unsubscribe, its question when no
feed is named (a button per feed, or a confirmation when there is one), and the Undo under
every "Unsubscribed" answer. The chat's settings for a feed it left are kept for a while and
come back when it subscribes again."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.core.lang import N_, Translator
from bot.core.messages.escape import esc
from bot.core.rules.leaving import stamp
from bot.db import store
from bot.db.store import FeedView
from bot.services.leaving import Undone
from bot.services.subscribing import Left
from bot.telegram import texts
from bot.telegram.buttons import Action, Button, encode
from bot.telegram.commands.common import edit, find_feed, pressed
from bot.telegram.context import Context

LEAVE_BUTTONS = 50  # feeds offered under a bare /unsubscribe (MAX_SUBSCRIPTIONS_PER_CHAT's default)

ASK_ONE = N_("Unsubscribe from <b>{title}</b>? This chat would get no more of its posts.")
ASK_WHICH = N_(
    "Which feed should this chat leave? Tap it below, or send "
    "<code>/unsubscribe all</code> to leave every feed."
)
NOTHING = N_("This chat has no subscriptions. See /feeds, then /subscribe <i>feed name</i>.")
LEAVE_BUTTON = N_("Unsubscribe")
KEEP_BUTTON = N_("Keep it")
KEPT = N_("Still subscribed to <b>{title}</b>.")
UNDO_BUTTON = N_("↩ Undo")
UNDONE = N_("Subscribed to <b>{title}</b> again, with every setting it had here.")
UNDONE_ALL = N_("Subscribed again, with every setting this chat had.")
TOO_LATE = N_(
    "Too late to undo (it works for {minutes} minutes). Subscribing again still brings the "
    "settings back."
)


async def cmd_unsubscribe(update: Update, context: Context) -> None:
    """/unsubscribe FEED | all; alone, a question (which feed, or are you sure)."""
    tr = await context.tr()
    if not await context.may_change():
        return
    arg, chat_id, svc = context.args_text, context.chat_id, context.svc
    if not arg:
        subs = await svc.read(lambda s: store.chat_subscriptions(s, chat_id=chat_id))
        await context.reply(*ask([feed for _reader, feed in subs], tr))
        return
    if arg.lower() == "all":
        left = await svc.subscriptions.unsubscribe(chat_id, None)
        await context.reply(*left_all(left, context, tr))
        return
    feed = await find_feed(context, arg, "unsubscribe")
    if feed is None:
        return
    left = await svc.subscriptions.unsubscribe(chat_id, feed.id)
    if not left.count:
        text = tr.gettext("This chat was not subscribed to <b>{title}</b>.")
        await context.reply(text.format(title=esc(feed.title)))
        return
    await context.reply(*left_one(feed, context, tr))


def ask(feeds: list[FeedView], tr: Translator) -> tuple[str, InlineKeyboardMarkup | None]:
    """The question under a bare /unsubscribe, with its buttons."""
    if not feeds:
        return tr.gettext(NOTHING), None
    if len(feeds) == 1:
        (feed,) = feeds
        rows = [
            [
                _button(tr.gettext(LEAVE_BUTTON), Button(Action.LEAVE, feed.id)),
                _button(tr.gettext(KEEP_BUTTON), Button(Action.KEEP, feed.id)),
            ]
        ]
        return tr.gettext(ASK_ONE).format(title=esc(feed.title)), InlineKeyboardMarkup(rows)
    rows = [
        [_button(f"✖ {_short(feed.title or feed.slug)}", Button(Action.LEAVE, feed.id))]
        for feed in feeds[:LEAVE_BUTTONS]
    ]
    return tr.gettext(ASK_WHICH), InlineKeyboardMarkup(rows)


def left_one(feed: FeedView, context: Context, tr: Translator) -> tuple[str, InlineKeyboardMarkup]:
    """ "Unsubscribed from …", what is kept, and the Undo button."""
    days = context.svc.settings.left_settings_days
    kept = tr.ngettext(
        "Its settings here are kept for {days} day: <code>/subscribe {slug}</code> brings "
        "them back.",
        "Its settings here are kept for {days} days: <code>/subscribe {slug}</code> brings "
        "them back.",
        days,
    ).format(days=days, slug=esc(feed.slug))
    text = tr.gettext("Unsubscribed from <b>{title}</b>.").format(title=esc(feed.title))
    undo = InlineKeyboardMarkup([[_button(tr.gettext(UNDO_BUTTON), Button(Action.UNDO, feed.id))]])
    return f"{text}\n{kept}", undo


def left_all(
    left: Left, context: Context, tr: Translator
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = tr.ngettext(
        "Unsubscribed from {count} feed.", "Unsubscribed from {count} feeds.", left.count
    ).format(count=left.count)
    if not left.count:
        return text, None
    days = context.svc.settings.left_settings_days
    kept = tr.ngettext(
        "Their settings are kept for {days} day: subscribing again brings them back.",
        "Their settings are kept for {days} days: subscribing again brings them back.",
        days,
    ).format(days=days)
    undo = InlineKeyboardMarkup(
        [[_button(tr.gettext(UNDO_BUTTON), Button(Action.UNDO_ALL, count=stamp(left.at)))]]
    )
    return f"{text}\n{kept}", undo


# --- buttons -----------------------------------------------------------------------------------


async def on_leave(update: Update, context: Context) -> None:
    """A feed tapped under a bare /unsubscribe: leave it; the message becomes the answer."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    feed_id = button.feed_id
    feed = await context.svc.read(lambda s: store.feed_by_id(s, feed_id=feed_id))
    left = await context.svc.subscriptions.unsubscribe(context.chat_id, feed_id)
    if feed is None or not left.count:  # left meanwhile (another tap, another admin)
        await query.answer(tr.gettext(texts.BUTTON_EXPIRED))
        return
    await edit(query, *_decorated(context, left_one(feed, context, tr)))
    await query.answer()


async def on_keep(update: Update, context: Context) -> None:
    """ "Keep it": nothing changes; the question says so."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    feed_id = button.feed_id
    feed = await context.svc.read(lambda s: store.feed_by_id(s, feed_id=feed_id))
    title = esc(feed.title) if feed is not None else ""
    await edit(query, context.decorate(tr.gettext(KEPT).format(title=title)), None)
    await query.answer()


async def on_undo(update: Update, context: Context) -> None:
    """Undo under "Unsubscribed from …" (one feed) or under "/unsubscribe all"'s answer."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    one = button.action is Action.UNDO
    feed_id = button.feed_id if one else None
    left_at = None if one else button.count
    done = await context.svc.returns.undo(context.chat_id, feed_id, left_at)
    if done is not Undone.DONE:
        await query.answer(undo_refusal(done, context, tr), show_alert=True)
        return
    if one:
        feed = await context.svc.read(lambda s: store.feed_by_id(s, feed_id=button.feed_id))
        title = esc(feed.title) if feed is not None else ""
        answer = tr.gettext(UNDONE).format(title=title)
    else:
        answer = tr.gettext(UNDONE_ALL)
    await edit(query, context.decorate(answer), None)
    await query.answer()


def undo_refusal(done: Undone, context: Context, tr: Translator) -> str:
    """Why an Undo did nothing (an alert: plain text)."""
    settings = context.svc.settings
    if done is Undone.LIMIT:
        text = tr.gettext("This chat already has {limit} subscriptions, the most allowed.")
        return text.format(limit=settings.max_subscriptions_per_chat)
    return tr.gettext(TOO_LATE).format(minutes=settings.unsubscribe_undo_minutes)


def with_undo(
    keyboard: InlineKeyboardMarkup | None, button: Button, title: str, tr: Translator
) -> InlineKeyboardMarkup:
    """A keyboard (the /list page's) with an Undo row at the bottom for the feed just left."""
    rows = [list(row) for row in keyboard.inline_keyboard] if keyboard is not None else []
    label = f"{tr.gettext(UNDO_BUTTON)}: {_short(title, 30)}"
    return InlineKeyboardMarkup([*rows, [_button(label, button)]])


def _decorated(
    context: Context, answer: tuple[str, InlineKeyboardMarkup | None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return context.decorate(answer[0]), answer[1]


def _button(label: str, button: Button) -> InlineKeyboardButton:
    return InlineKeyboardButton(label, callback_data=encode(button))


def _short(title: str, limit: int = 40) -> str:
    return title if len(title) <= limit else title[: limit - 1] + "…"
