"""Reactions that tune (issue 46): a 👍 or 👎 on a post's message (a `message_reaction`
update: Telegram sends them only when `allowed_updates` lists them, and in groups only while
the bot is an administrator) moves the chat's weights; a 👎 offers one-tap choices, in the
private chat or privately to the group's admin who reacted. /tuning shows and resets them."""

from __future__ import annotations

import logging

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReactionTypeEmoji,
    Update,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import TelegramError

from bot.core.lang import N_, Translator
from bot.core.messages.escape import esc
from bot.core.polls.tuning import DOWN, word_to_exclude
from bot.db.store import Reacted
from bot.telegram import texts
from bot.telegram.buttons import Action, Button, encode
from bot.telegram.commands.common import pressed
from bot.telegram.context import Context
from bot.telegram.rights import group_admin
from bot.telegram.spec import Command

log = logging.getLogger(__name__)
_OFFERED_CATEGORIES = 3


async def on_reaction(update: Update, context: Context) -> None:
    """👍/👎 on a post's message: its feed's and categories' weights move (in groups, only an
    admin's reactions count: they change the chat's settings)."""
    reaction = update.message_reaction
    if reaction is None:
        return
    chat, user = reaction.chat, reaction.user
    private = chat.type == ChatType.PRIVATE
    if not private:
        admins = context.svc.guard.admins
        if user is None or not await group_admin(context.bot, admins, chat.id, user.id):
            return
    old = [r.emoji for r in reaction.old_reaction if isinstance(r, ReactionTypeEmoji)]
    new = [r.emoji for r in reaction.new_reaction if isinstance(r, ReactionTypeEmoji)]
    done = await context.svc.tuner.react(chat.id, reaction.message_id, old, new)
    if done is None:
        return
    post, moved = done
    if moved >= 0 or DOWN not in new:
        return
    to = chat.id if private else (user.id if user is not None else None)
    if to is None:
        return
    text, keyboard = offer(post, await context.tr())
    try:
        await context.bot.send_message(to, text, parse_mode=ParseMode.HTML, reply_markup=keyboard)
    except TelegramError as exc:  # an admin who never started a private chat with the bot
        log.info("chat %s: 👎 offer not delivered to %s (%s)", chat.id, to, exc.message)


def offer(post: Reacted, tr: Translator) -> tuple[str, InlineKeyboardMarkup]:
    """A 👎's one-tap choices about its post."""
    _ = tr.gettext
    text = _("👎 noted: <b>{feed}</b> and its topics now weigh less for this chat.")
    rows = [
        [
            InlineKeyboardButton(
                _("Mute {feed} for a day").format(feed=post.feed_title)[:60],
                callback_data=encode(Button(Action.MUTE, feed_id=post.delivery_id)),
            )
        ]
    ]
    for index, category in enumerate(post.categories[:_OFFERED_CATEGORIES]):
        rows.append(
            [
                InlineKeyboardButton(
                    _("Fewer posts about {category}").format(category=category)[:60],
                    callback_data=encode(
                        Button(Action.FEWER, feed_id=post.delivery_id, count=index)
                    ),
                )
            ]
        )
    word = word_to_exclude(post.title)
    if word is not None:
        rows.append(
            [
                InlineKeyboardButton(
                    _("Exclude {word}").format(word=word)[:60],
                    callback_data=encode(Button(Action.EXCLUDE, feed_id=post.delivery_id)),
                )
            ]
        )
    return text.format(feed=esc(post.feed_title)), InlineKeyboardMarkup(rows)


async def _offered(update: Update, context: Context) -> tuple[Reacted, Button] | None:
    """The offer's post, if the person pressing may still change its chat's settings."""
    found = await pressed(update, context)
    if found is None:
        return None
    query, button = found
    post = await context.svc.tuner.post(button.feed_id)
    tr = await context.tr()
    if post is None:
        await query.answer(tr.gettext("That post's message is gone."))
        return None
    user = query.from_user
    if post.chat_id != context.chat_id and not await group_admin(
        context.bot, context.svc.guard.admins, post.chat_id, user.id
    ):
        await query.answer(tr.gettext(texts.ADMINS_ONLY), show_alert=True)
        return None
    return post, button


async def on_mute(update: Update, context: Context) -> None:
    found = await _offered(update, context)
    if found is None or update.callback_query is None:
        return
    post, _button = found
    tr = await context.tr()
    until = await context.svc.tuner.mute(post.chat_id, post)
    if until is None:
        await update.callback_query.answer(tr.gettext("That feed is no longer followed."))
        return
    text = tr.gettext("{feed} is muted until {date}.").format(
        feed=post.feed_title, date=tr.format_date(until)
    )
    await update.callback_query.answer(text[:200], show_alert=True)


async def on_fewer(update: Update, context: Context) -> None:
    found = await _offered(update, context)
    if found is None or update.callback_query is None:
        return
    post, button = found
    tr = await context.tr()
    if button.count >= len(post.categories):
        return
    category = post.categories[button.count]
    await context.svc.tuner.fewer(post.chat_id, category)
    text = tr.gettext("Fewer posts about {category}: it now weighs less for this chat.")
    await update.callback_query.answer(text.format(category=category)[:200], show_alert=True)


async def on_exclude(update: Update, context: Context) -> None:
    found = await _offered(update, context)
    if found is None or update.callback_query is None:
        return
    post, _button = found
    tr = await context.tr()
    word = await context.svc.tuner.exclude(post.chat_id, post)
    if word is None:
        await update.callback_query.answer(tr.gettext("That feed is no longer followed."))
        return
    text = tr.gettext("Posts of {feed} with “{word}” no longer arrive (/keywords to undo).")
    answer = text.format(feed=post.feed_title, word=word)
    await update.callback_query.answer(answer[:200], show_alert=True)


async def cmd_tuning(update: Update, context: Context) -> None:
    """/tuning [reset]: what the chat's 👍 and 👎 taught, or forget it."""
    tr = await context.tr()
    word = context.args_text.strip().lower()
    if word == "reset":
        if not await context.may_change():
            return
        count = await context.svc.tuner.reset(context.chat_id)
        text = tr.gettext("Forgot {count} learned weights and every mute.")
        await context.reply(text.format(count=count))
        return
    if word:
        await context.reply(await context.usage("tuning"))
        return
    weights = await context.svc.tuner.weights(context.chat_id)
    if not weights:
        await context.reply(
            tr.gettext("Nothing learned yet: react 👍 or 👎 to a post's message.")
            + "\n\n"
            + await context.usage("tuning")
        )
        return
    lines = [tr.gettext("<b>Learned from 👍/👎</b>")]
    lines += [f"{esc(w.shown)}: {w.weight:+d}" for w in weights]
    await context.reply("\n".join(lines) + "\n\n" + await context.usage("tuning"))


COMMANDS = (
    Command(
        "tuning",
        cmd_tuning,
        about=N_("what 👍 and 👎 taught, or forget it"),
        usage=N_(
            "/tuning [reset] — 👍 or 👎 on a post's message makes its feed and topics weigh "
            "more or less for this chat; <code>/tuning reset</code> forgets it all"
        ),
    ),
)
