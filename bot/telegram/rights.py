"""Who may change a chat's settings, as Telegram says: a group's administrators (asked once
and cached briefly, so a burst of commands costs one `getChatMember`), and for a channel
managed from a private chat (/channel) its administrators, with the bot able to post.

Commands cannot be sent from inside a channel by a person (posts there are the channel's own),
so its administrators manage it from their private chat with the bot. Before anything changes,
Telegram is asked (never a cache: rights are revoked in a tap) whether the bot may post there
and whether this user administers it.
"""

from __future__ import annotations

import logging

from telegram import Bot, ChatMember, ChatMemberAdministrator, ChatMemberOwner
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot.core.lang import N_
from bot.telegram.guard import TtlCache

log = logging.getLogger(__name__)

BOT_CANNOT_POST = N_(
    "The bot cannot post in <b>{title}</b>: add the bot as an administrator of the channel "
    "with the right to post messages, then try again."
)
NOT_CHANNEL_ADMIN = N_(
    "Only the administrators of <b>{title}</b> can manage its subscriptions, and Telegram "
    "says you are not one."
)


def may_post(member: ChatMember) -> bool:
    """A channel member who may post: its owner, or an administrator with that right."""
    if isinstance(member, ChatMemberOwner):
        return True
    return isinstance(member, ChatMemberAdministrator) and bool(member.can_post_messages)


async def bot_can_post(bot: Bot, channel_id: int) -> bool:
    """The bot is an administrator of the channel with the right to post messages."""
    try:
        member = await bot.get_chat_member(channel_id, bot.id)
    except TelegramError as exc:  # not a member: Telegram will not even list it
        log.info("channel %s: cannot check the bot's rights: %s", channel_id, exc)
        return False
    return may_post(member)


async def user_is_admin(bot: Bot, channel_id: int, user_id: int) -> bool:
    try:
        member = await bot.get_chat_member(channel_id, user_id)
    except TelegramError as exc:
        log.info("channel %s: cannot check user %s: %s", channel_id, user_id, exc)
        return False
    return isinstance(member, ChatMemberAdministrator | ChatMemberOwner)


async def channel_problem(bot: Bot, channel_id: int, user_id: int) -> str | None:
    """What stops `user_id` from managing the channel (a message id to translate), or None."""
    if not await bot_can_post(bot, channel_id):
        return BOT_CANNOT_POST
    if not await user_is_admin(bot, channel_id, user_id):
        return NOT_CHANNEL_ADMIN
    return None


async def group_admin(bot: Bot, cache: TtlCache, chat_id: int, user_id: int) -> bool:
    """A group's administrator or owner (anonymous ones count), cached briefly."""
    known = cache.get((chat_id, user_id))
    if known is not None:
        return bool(known)
    member = await bot.get_chat_member(chat_id, user_id)
    admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
    cache.put((chat_id, user_id), admin)
    return admin
