"""The bot's own place in chats: added, removed or blocked; a group upgraded to a supergroup;
and the error handler that answers instead of staying silent."""

from __future__ import annotations

import logging

from telegram import ChatMember, ChatMemberUpdated, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import TelegramError

from bot.runtime.i18n import from_client, translator
from bot.services.chats import ChatCard
from bot.telegram import help_screen, texts
from bot.telegram.context import Context
from bot.telegram.rights import may_post

log = logging.getLogger(__name__)


async def on_my_chat_member(update: Update, context: Context) -> None:
    """The bot was added, removed or blocked (in a channel: lost the right to post):
    (de)activate the chat's subscriptions."""
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None:
        return
    member = change.new_chat_member
    gone = member.status in (ChatMember.LEFT, ChatMember.BANNED)
    chat = change.chat
    if chat.type == ChatType.CHANNEL and not gone:  # a channel needs the right to post
        gone = not may_post(member)
    if gone:
        log.info("chat %s: bot removed, blocked or unable to post; deactivating", chat.id)
        await context.svc.chats.left(chat.id)
        return
    title = chat.title or chat.full_name or ""  # whoever added the bot chooses the language
    language = from_client(change.from_user.language_code)
    await context.svc.chats.remember(ChatCard(chat.id, chat.type, title, language))
    joined = change.old_chat_member.status in (ChatMember.LEFT, ChatMember.BANNED)
    if joined and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):  # one line on how to start
        hello = translator(language).gettext(help_screen.GROUP_HELLO)
        try:
            await context.bot.send_message(chat.id, hello, parse_mode=ParseMode.HTML)
        except TelegramError as exc:
            log.info("chat %s: could not say hello: %s", chat.id, exc)


async def on_migrate(update: Update, context: Context) -> None:
    """A group was upgraded to a supergroup: keep its subscriptions and settings."""
    message = update.effective_message
    if message is None or message.migrate_to_chat_id is None:
        return
    old_id, new_id = message.chat_id, message.migrate_to_chat_id
    log.info("chat %s migrated to %s", old_id, new_id)
    await context.svc.chats.migrated(old_id, new_id)


async def on_error(update: object, context: Context) -> None:
    """Log the failure in one line plus traceback, and tell the user briefly."""
    log.error("error while handling an update: %s", context.error, exc_info=context.error)
    if isinstance(update, Update) and update.effective_message is not None:
        try:
            user = update.effective_user
            language = from_client(user.language_code if user is not None else None)
            tr = translator(language)  # no database: it may be what failed
            await update.effective_message.reply_text(
                tr.gettext(texts.SOMETHING_WRONG), do_quote=False
            )
        except Exception as exc:  # the apology itself must never raise
            log.warning("could not send the error reply: %s", exc)
