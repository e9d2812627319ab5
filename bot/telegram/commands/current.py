"""What a setting command says without a value: the setting as it is, how to change it, and
buttons where there are a few choices (`/format FEED`, `/edits`, `/translate`…)."""

from __future__ import annotations

from collections.abc import Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.core.lang import Translator
from bot.core.messages.escape import esc
from bot.core.modes import MODES, Mode
from bot.core.types import Reader
from bot.db.store import FeedView
from bot.services.subscribing import Overview
from bot.telegram import texts
from bot.telegram.buttons import Action, Button, encode
from bot.telegram.commands.common import Shown, find_feed, not_subscribed, pressed
from bot.telegram.commands.subscriptions import edit
from bot.telegram.context import Context
from bot.telegram.views import list_view

Sentence = Callable[[Reader, FeedView, Overview, Translator], str]
Keys = Callable[[Reader, FeedView], InlineKeyboardMarkup | None]
SHOWN_AT_ONCE = 40  # feeds listed by a bare command in a chat that follows many


async def show_current(
    context: Context, command: str, slug: str, sentence: Sentence, keys: Keys | None = None
) -> None:
    """The named feed's setting (its buttons too); with no name, the only subscription's, or
    every subscription's, one line each; then the usage line."""
    tr = await context.tr()
    seen = await context.svc.subscriptions.overview(context.chat_id)
    subs = seen.subscriptions
    usage = await context.usage(command)
    if slug:
        feed = await find_feed(context, slug, command)
        if feed is None:
            return
        subs = [(reader, shown) for reader, shown in subs if shown.id == feed.id]
        if not subs:
            await context.reply(not_subscribed(feed, tr) + "\n\n" + usage)
            return
    if not subs:  # "no subscriptions", and what to do
        await context.reply(list_view(seen, tr)[0] + "\n\n" + usage)
        return
    if len(subs) == 1:
        reader, feed = subs[0]
        markup = keys(reader, feed) if keys is not None else None
        await context.reply(sentence(reader, feed, seen, tr) + "\n\n" + usage, markup)
        return
    lines = [sentence(reader, feed, seen, tr) for reader, feed in subs[:SHOWN_AT_ONCE]]
    await context.reply("\n".join(lines) + "\n\n" + usage)


def mode_sentence(mode: Mode) -> Sentence:
    """A mode's value said as the reply that set it ("Messages from X now show …")."""

    def sentence(reader: Reader, feed: FeedView, _seen: Overview, tr: Translator) -> str:
        text = tr.gettext(mode.replies[reader.value_of(mode)]).format(title=esc(feed.title))
        return f"<code>{esc(feed.slug)}</code>: {text}"

    return sentence


def mode_keys(mode: Mode) -> Keys:
    """One button per value, the current one ticked."""

    def keys(reader: Reader, feed: FeedView) -> InlineKeyboardMarkup:
        now = reader.value_of(mode)
        return InlineKeyboardMarkup(
            [
                [
                    InlineKeyboardButton(
                        f"✓ {value.value}" if value == now else value.value,
                        callback_data=encode(
                            Button(Action.MODE, feed.id, setting=mode.command, value=value.value)
                        ),
                    )
                    for value in mode.values
                ]
            ]
        )

    return keys


def show_mode(mode: Mode) -> Shown:
    """`setting_command`'s answer to `/COMMAND [FEED]` for a mode."""

    async def shown(context: Context, slug: str) -> None:
        await show_current(context, mode.command, slug, mode_sentence(mode), mode_keys(mode))

    return shown


async def on_mode_button(update: Update, context: Context) -> None:
    """A value pressed under a bare mode command: set it, and redraw the answer."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    mode = MODES.get(button.setting)
    value = mode.parse(button.value) if mode is not None else None
    if mode is None or value is None:
        await query.answer(tr.gettext(texts.BUTTON_EXPIRED))
        return
    chat_id = context.chat_id
    await context.svc.subscriptions.set_mode(chat_id, button.feed_id, value)
    seen = await context.svc.subscriptions.overview(chat_id)
    for reader, feed in seen.subscriptions:
        if feed.id == button.feed_id:
            text = mode_sentence(mode)(reader, feed, seen, tr)
            usage = await context.usage(mode.command)
            await edit(query, text + "\n\n" + usage, mode_keys(mode)(reader, feed))
    await query.answer()
