"""The context every handler gets (PTB's `ContextTypes`, as in its `contexttypesbot.py`).

What each handler used to dig out of `bot_data` itself (the services, the chat's translator, the
admin and operator checks, the reply that splits long texts) is declared here once, like the
FastAPI template's `deps.py`.
"""

from __future__ import annotations

import html
import logging
from typing import Any

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.ext import Application, ApplicationHandlerStop, CallbackContext, ExtBot

from bot.core.lang import Translator
from bot.core.paging import split_message
from bot.db import store
from bot.i18n import from_client, translator
from bot.telegram import texts
from bot.telegram.guard import Verdict
from bot.telegram.services import KEY, Services

log = logging.getLogger(__name__)


def esc(value: object) -> str:
    return html.escape(str(value), quote=False)


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

    @classmethod
    def from_update(
        cls, update: object, application: Application[Any, Any, Any, Any, Any, Any]
    ) -> Context:
        context = super().from_update(update, application)
        if isinstance(update, Update):
            context.event = update
        return context

    @property
    def svc(self) -> Services:
        found = self.application.bot_data[KEY]
        assert isinstance(found, Services)
        return found

    @property
    def chat_id(self) -> int:
        chat = self.event.effective_chat if self.event else None
        return chat.id if chat is not None else 0

    @property
    def args_text(self) -> str:
        """Everything after the command word (`/filter@bot a, b` → `a, b`), trimmed."""
        message = self.event.effective_message if self.event else None
        parts = ((message.text if message else None) or "").split(maxsplit=1)
        return parts[1].strip() if len(parts) > 1 else ""

    @property
    def client_language(self) -> str:
        user = self.event.effective_user if self.event else None
        return from_client(user.language_code if user is not None else None)

    async def tr(self) -> Translator:
        """The chat's chosen language; until it has one, the sender's client language (kept)."""
        if self._tr is None:
            chat = self.event.effective_chat if self.event else None
            language = None
            if chat is not None:
                known, language = await self.svc.read(
                    lambda s: store.chat_language(s, chat_id=chat.id)
                )
                if known and language is None:  # a chat from before languages
                    await self.remember_chat()
            self._tr = translator(language or self.client_language)
        return self._tr

    async def remember_chat(self, *, chosen: str | None = None) -> None:
        """Record the chat. Its language is the sender's client language until one is chosen."""
        chat = self.event.effective_chat if self.event else None
        if chat is None:
            return
        title = chat.title or chat.full_name or chat.username or ""
        spoken, fixed = chosen or self.client_language, chosen is not None
        await self.svc.write(
            lambda s: store.upsert_chat(
                s, chat_id=chat.id, type_=chat.type, title=title, language=spoken, chosen=fixed
            )
        )
        if chosen is not None:
            self._tr = translator(chosen)

    @property
    def is_operator(self) -> bool:
        user = self.event.effective_user if self.event else None
        return user is not None and user.id in self.svc.settings.bot_admin_ids

    async def is_admin(self) -> bool:
        """Private chats are their own admin; in groups ask Telegram (anonymous admins count).

        A button press is judged by who pressed it: the message under it is the bot's own. The
        answer is cached briefly, so a burst of commands costs one `getChatMember`.
        """
        update = self.event
        if update is None or update.effective_chat is None:
            return False
        chat, message, user = update.effective_chat, update.effective_message, update.effective_user
        if chat.type == ChatType.PRIVATE:
            return True
        pressed = update.callback_query is not None
        if not pressed and message is not None and message.sender_chat is not None:
            return message.sender_chat.id == chat.id
        if user is None:
            return False
        cache = self.svc.guard.admins
        known = cache.get((chat.id, user.id))
        if known is not None:
            return bool(known)
        member = await self.bot.get_chat_member(chat.id, user.id)
        admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
        cache.put((chat.id, user.id), admin)
        return admin

    async def may_change(self) -> bool:
        """Admins pass; anyone else is told once per window, then ignored (no reply per
        command)."""
        if await self.is_admin():
            return True
        update = self.event
        chat = update.effective_chat if update else None
        user = update.effective_user if update else None
        key = (chat.id if chat else 0, user.id if user else 0)
        if self.svc.guard.refusals.first(key):
            await self.reply((await self.tr()).gettext(texts.ADMINS_ONLY))
        return False

    async def reply(self, text: str, keyboard: InlineKeyboardMarkup | None = None) -> None:
        """Answer in the chat, split into several messages when it outgrows Telegram's limit
        (the keyboard goes under the last one)."""
        message = self.event.effective_message if self.event else None
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

    async def usage(self, command: str) -> str:
        """The wrong-argument reply: `Usage: ` and the command's usage line."""
        tr = await self.tr()
        return tr.gettext("Usage: {usage}").format(usage=tr.gettext(texts.USAGE[command]))


async def throttle(update: Update, context: Context) -> None:
    """Runs before every handler (group -1): a user over the command rate gets one "slow
    down", then silence until the window has room again."""
    user = update.effective_user
    message = update.effective_message
    is_command = message is not None and (message.text or "").startswith("/")
    document = message is not None and message.document is not None
    if user is None or not (is_command or update.callback_query or document):
        return
    verdict = context.svc.guard.users.check(user.id)
    if verdict is Verdict.ALLOW:
        return
    if verdict is Verdict.WARN:
        limit = context.svc.settings.commands_per_minute
        log.info("user %s is over %s commands a minute; ignoring for now", user.id, limit)
        text = translator(context.client_language).gettext(texts.SLOW_DOWN)
        if update.callback_query is not None:
            await update.callback_query.answer(text)
        else:
            await context.reply(text)
    elif update.callback_query is not None:
        await update.callback_query.answer()
    raise ApplicationHandlerStop
