"""/channel: manage a channel from a private chat (a name, an id, or Telegram's "choose a
chat" button), and `/channel off` to come back. The rights it needs are in `channel.py`;
`context.load_managed` points the other commands at the channel."""

from __future__ import annotations

import logging
import re

from telegram import (
    ChatAdministratorRights,
    KeyboardButton,
    KeyboardButtonRequestChat,
    ReplyKeyboardMarkup,
    ReplyKeyboardRemove,
    Update,
)
from telegram.constants import ChatType
from telegram.error import TelegramError

from bot.core.lang import N_
from bot.core.messages.escape import esc
from bot.db import store
from bot.services.chats import ChatCard
from bot.telegram import texts
from bot.telegram.context import Context
from bot.telegram.rights import channel_problem
from bot.telegram.spec import Command, Who

log = logging.getLogger(__name__)

REQUEST_ID = 1  # our only chat-request button
_NAME = re.compile(r"(?:https?://)?(?:t\.me/|@)?([A-Za-z][A-Za-z0-9_]{3,31})/?")
_ID = re.compile(r"-100[0-9]{1,16}")


def channel_reference(text: str) -> str | int | None:
    """`@name`, `name`, `t.me/name` or a `-100…` id → what `getChat` takes; None otherwise."""
    text = text.strip()
    if _ID.fullmatch(text):
        return int(text)
    match = _NAME.fullmatch(text)
    return f"@{match.group(1)}" if match else None


def chooser(label: str) -> ReplyKeyboardMarkup:
    """Telegram's own chat picker, listing only channels where the user and the bot may post."""
    rights = ChatAdministratorRights(
        is_anonymous=False,
        can_manage_chat=False,
        can_delete_messages=False,
        can_manage_video_chats=False,
        can_restrict_members=False,
        can_promote_members=False,
        can_change_info=False,
        can_invite_users=False,
        can_post_stories=False,
        can_edit_stories=False,
        can_delete_stories=False,
        can_post_messages=True,
    )
    request = KeyboardButtonRequestChat(
        request_id=REQUEST_ID,
        chat_is_channel=True,
        user_administrator_rights=rights,
        bot_administrator_rights=rights,
        request_title=True,
    )
    button = KeyboardButton(label, request_chat=request)
    return ReplyKeyboardMarkup([[button]], resize_keyboard=True, one_time_keyboard=True)


async def cmd_channel(update: Update, context: Context) -> None:
    """/channel @name | -100… | off; alone: which chat is managed, and the picker."""
    chat = update.effective_chat
    _ = (await context.tr()).gettext
    if chat is None or chat.type != ChatType.PRIVATE:
        await context.reply(_(texts.CHANNEL_PRIVATE_ONLY))
        return
    arg = context.args_text
    chat_id = chat.id
    if arg.lower() == "off":
        await context.svc.chats.manage(chat_id, None)
        await context.reply(_(texts.CHANNEL_OFF), ReplyKeyboardRemove())
        return
    if not arg:
        current = await context.svc.read(lambda s: store.managed_chat(s, chat_id=chat_id))
        text = _(texts.CHANNEL_HOW)
        if current is not None:
            shown = esc(current[1] or current[0])
            text = _(texts.CHANNEL_NOW).format(title=shown) + "\n\n" + text
        await context.reply(text, chooser(_(texts.CHANNEL_CHOOSE)))
        return
    reference = channel_reference(arg)
    if reference is None:
        await context.reply(await context.usage("channel"))
        return
    await manage(update, context, reference)


async def on_chat_shared(update: Update, context: Context) -> None:
    """The user picked a channel with the "Choose a channel" button."""
    message = update.effective_message
    if message is None or message.chat_shared is None:
        return
    if message.chat_shared.request_id != REQUEST_ID:
        return
    await manage(update, context, message.chat_shared.chat_id)


async def manage(update: Update, context: Context, reference: str | int) -> None:
    """Check the channel with Telegram, then point this private chat's commands at it."""
    _ = (await context.tr()).gettext
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    try:
        found = await context.bot.get_chat(reference)
    except TelegramError as exc:
        log.info("user %s: channel %s not found: %s", user.id, reference, exc)
        await context.reply(_(texts.CHANNEL_NOT_FOUND).format(channel=esc(reference)))
        return
    title = found.title or found.username or str(found.id)
    if found.type != ChatType.CHANNEL:
        await context.reply(_(texts.NOT_A_CHANNEL).format(title=esc(title)))
        return
    problem = await channel_problem(context.bot, found.id, user.id)
    if problem is not None:
        await context.reply(_(problem).format(title=esc(title)))
        return
    chat_id, channel_id, language = chat.id, found.id, context.client_language

    await context.svc.chats.manage(chat_id, ChatCard(channel_id, ChatType.CHANNEL, title, language))
    log.info("user %s manages channel %s from their private chat", user.id, channel_id)
    context.channel = (channel_id, title)
    await context.reply(_(texts.CHANNEL_MANAGED).format(title=esc(title)), ReplyKeyboardRemove())


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "channel",
        cmd_channel,
        about=N_("manage a channel from here"),
        usage=N_(
            "/channel @name — manage a channel from this chat (the bot must be its administrator); "
            "<code>/channel off</code> comes back here"
        ),
        who=Who.PRIVATE,
    ),
)
