"""The context every handler gets (PTB's `ContextTypes`, as in its `contexttypesbot.py`).

What each handler used to dig out of `bot_data` itself (the services, the chat's translator, the
admin and operator checks, the reply that splits long texts) is declared here once, like the
FastAPI template's `deps.py`.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlmodel import Session
from telegram import (
    ForceReply,
    InlineKeyboardMarkup,
    ReplyKeyboardMarkup,
    ReplyKeyboardRemove,
    Update,
)
from telegram.constants import ChatType, ParseMode
from telegram.ext import Application, ApplicationHandlerStop, CallbackContext, ExtBot

from bot.core.lang import Translator
from bot.core.messages.escape import esc
from bot.core.messages.paging import split_message
from bot.db import store
from bot.runtime.i18n import from_client, translator
from bot.services.chats import ChatCard
from bot.telegram import texts
from bot.telegram.guard import Verdict
from bot.telegram.rights import channel_problem, group_admin
from bot.telegram.shared import KEY, Shared

log = logging.getLogger(__name__)
ReplyMarkup = InlineKeyboardMarkup | ReplyKeyboardMarkup | ReplyKeyboardRemove | ForceReply


def actor_of(update: Update | None) -> int | None:
    """Who asks, for per-person limits (the command throttle, MAX_FEEDS_PER_USER, one search at
    a time). A message sent on behalf of a chat (an anonymous admin, whose user is the same
    GroupAnonymousBot in every group, or a channel) counts for that chat, not for that user."""
    if update is None:
        return None
    message = update.effective_message
    if update.callback_query is None and message is not None and message.sender_chat is not None:
        return message.sender_chat.id
    user = update.effective_user
    return user.id if user is not None else None


class Context(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """A `CallbackContext` that knows its update, so the checks need no arguments."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        chat_id: int | None = None,
        user_id: int | None = None,
    ) -> None:
        super().__init__(application, chat_id=chat_id, user_id=user_id)
        self.event: Update | None = None
        self._tr: Translator | None = None
        # The channel this private chat manages (/channel): (id, title), set by `load_managed`.
        self.channel: tuple[int, str] | None = None

    @classmethod
    def from_update(
        cls, update: object, application: Application[Any, Any, Any, Any, Any, Any]
    ) -> Context:
        context = super().from_update(update, application)
        if isinstance(update, Update):
            context.event = update
        return context

    @property
    def svc(self) -> Shared:
        found = self.application.bot_data[KEY]
        assert isinstance(found, Shared)
        return found

    @property
    def chat_id(self) -> int:
        """The chat commands act on: this one, or the channel it manages."""
        if self.channel is not None:
            return self.channel[0]
        chat = self.event.effective_chat if self.event else None
        return chat.id if chat is not None else 0

    @property
    def args_text(self) -> str:
        """Everything after the command word (`/filter@bot a, b` → `a, b`), trimmed."""
        message = self.event.effective_message if self.event else None
        parts = ((message.text if message else None) or "").split(maxsplit=1)
        return parts[1].strip() if len(parts) > 1 else ""

    @property
    def actor_id(self) -> int | None:
        """The person (or the chat an anonymous admin speaks for) behind this update."""
        return actor_of(self.event)

    @property
    def client_language(self) -> str:
        user = self.event.effective_user if self.event else None
        return from_client(user.language_code if user is not None else None)

    async def tr(self) -> Translator:
        """The chat's chosen language; until it has one, the sender's client language (a chat
        stored before languages existed takes it now: `Chats.language_of`)."""
        if self._tr is None:
            card = self._card()
            language = await self.svc.chats.language_of(card) if card is not None else None
            self._tr = translator(language or self.client_language)
        return self._tr

    def _card(self, chosen: str | None = None) -> ChatCard | None:
        """The chat this update is about (the managed channel while one is managed)."""
        chat = self.event.effective_chat if self.event else None
        if chat is None:
            return None
        chat_id, type_ = chat.id, chat.type
        title = chat.title or chat.full_name or chat.username or ""
        if self.channel is not None:
            (chat_id, title), type_ = self.channel, ChatType.CHANNEL
        return ChatCard(chat_id, type_, title, chosen or self.client_language)

    async def remember_chat(self, *, chosen: str | None = None) -> None:
        """Record the chat. Its language is the sender's client language until one is chosen."""
        card = self._card(chosen)
        if card is None:
            return
        await self.svc.chats.remember(card, chosen=chosen is not None)
        if chosen is not None:
            self._tr = translator(chosen)

    @property
    def is_operator(self) -> bool:
        user = self.event.effective_user if self.event else None
        return user is not None and user.id in self.svc.settings.bot_admin_ids

    async def is_admin(self) -> bool:
        """Private chats are their own admin; groups and managed channels ask Telegram
        (`rights`). A button press is judged by who pressed it, not by the bot's message."""
        return await _is_admin(self)

    async def may_read(self) -> bool:
        """A managed channel's settings (`/list`, `/export`) are shown only to someone still
        its administrator, asked afresh like a change; anything else is the chat's own."""
        user = self.event.effective_user if self.event else None
        if self.channel is None or user is None:
            return True
        problem = await channel_problem(self.bot, self.channel[0], user.id)
        if problem is not None:
            text = (await self.tr()).gettext(problem)
            await self.reply(text.format(title=esc(self.channel[1])))
        return problem is None

    async def may_change(self) -> bool:
        """Admins pass; anyone else is told once per window, then ignored (no reply per
        command). A managed channel is checked afresh and the reply says what is missing."""
        update = self.event
        chat = update.effective_chat if update else None
        user = update.effective_user if update else None
        if self.channel is not None and user is not None:
            return await self.may_read()
        if await self.is_admin():
            return True
        key = (chat.id if chat else 0, self.actor_id or 0)
        if self.svc.guard.refusals.first(key):
            await self.reply((await self.tr()).gettext(texts.ADMINS_ONLY))
        return False

    def decorate(self, text: str) -> str:
        """While a channel is managed, a reply starts with its name."""
        if self.channel is None:
            return text
        return f"📢 <b>{esc(self.channel[1] or self.channel[0])}</b>\n{text}"

    async def reply(self, text: str, keyboard: ReplyMarkup | None = None) -> None:
        """Answer in the chat, split at Telegram's limit (the keyboard under the last part)."""
        message = self.event.effective_message if self.event else None
        if message is None:
            return
        parts = split_message(self.decorate(text))
        for number, part in enumerate(parts, start=1):
            await message.reply_text(
                part,
                parse_mode=ParseMode.HTML,
                reply_markup=keyboard if number == len(parts) else None,
                do_quote=False,
            )

    async def usage(self, command: str) -> str:
        """The wrong-argument reply: `Usage: ` and the command's usage line."""
        tr = await self.tr()
        line = self.svc.commands.usage(tr, command, await example_feed(self))
        return tr.gettext("Usage: {usage}").format(usage=line)


async def _is_admin(context: Context) -> bool:
    update = context.event
    if update is None or update.effective_chat is None:
        return False
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    if chat.type == ChatType.PRIVATE and context.channel is None:
        return True
    pressed = update.callback_query is not None
    if not pressed and message is not None and message.sender_chat is not None:
        return message.sender_chat.id == chat.id
    if user is None:
        return False
    if context.channel is not None:
        return await channel_problem(context.bot, context.channel[0], user.id) is None
    return await group_admin(context.bot, context.svc.guard.admins, chat.id, user.id)


async def example_feed(context: Context) -> str:
    """A feed name for examples: one this chat follows, or one the bot watches."""
    chat_id = context.chat_id

    def pick(session: Session) -> str:
        subs = store.chat_subscriptions(session, chat_id=chat_id)
        if subs:
            return subs[0][1].slug
        feeds = store.all_feeds(session)
        return feeds[0].slug if feeds else "blog"

    return await context.svc.read(pick)


async def throttle(update: Update, context: Context) -> None:
    """Runs before every handler (group -2): a user over the command rate gets one "slow
    down", then silence until the window has room again. A private chat's text counts too (a
    pasted link makes the bot fetch)."""
    actor = actor_of(update)
    message = update.effective_message
    private = update.effective_chat is not None and update.effective_chat.type == ChatType.PRIVATE
    text = (message.text or "") if message is not None else ""
    is_command = text.startswith("/") or (private and bool(text))
    document = message is not None and message.document is not None
    if actor is None or not (is_command or update.callback_query or document):
        return
    verdict = context.svc.guard.users.check(actor)
    if verdict is Verdict.ALLOW:
        return
    if verdict is Verdict.WARN:
        limit = context.svc.settings.commands_per_minute
        log.info("user %s is over %s commands a minute; ignoring for now", actor, limit)
        text = translator(context.client_language).gettext(texts.SLOW_DOWN)
        if update.callback_query is not None:
            await update.callback_query.answer(text)
        else:
            await context.reply(text)
    elif update.callback_query is not None:
        await update.callback_query.answer()
    raise ApplicationHandlerStop


async def load_managed(update: Update, context: Context) -> None:
    """Runs before every handler (group -1): in a private chat that manages a channel, the
    commands act on the channel (`context.chat_id`). Not /channel itself, and not /start or
    /help: a deep link someone taps on a blog subscribes them, not their channel."""
    chat = update.effective_chat
    if chat is None or chat.type != ChatType.PRIVATE:
        return
    message = update.effective_message
    text = (message.text or "") if message is not None else ""
    if text.split("@", 1)[0].split(maxsplit=1)[:1] in (["/channel"], ["/start"], ["/help"]):
        return
    chat_id = chat.id
    context.channel = await context.svc.read(lambda s: store.managed_chat(s, chat_id=chat_id))
