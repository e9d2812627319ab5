"""/summary and /translate: what the operator's language model does for this chat.

Both answer plainly when the bot has no model (MODEL_API_URL unset): nothing is sent anywhere
then, and messages keep the extractive summary.
"""

from __future__ import annotations

from telegram import Update

from bot.core.lang import N_
from bot.core.modes import SUMMARY
from bot.telegram import texts
from bot.telegram.commands.settings import set_mode_command
from bot.telegram.context import Context
from bot.telegram.spec import Command


async def cmd_summary(update: Update, context: Context) -> None:
    """/summary SLUG model|extract"""
    if not await _model_configured(context):
        return
    await set_mode_command(context, SUMMARY)


async def cmd_translate(update: Update, context: Context) -> None:
    """/translate on|off: posts in another language than the chat's come translated."""
    tr = await context.tr()
    if not await _model_configured(context) or not await context.may_change():
        return
    word = context.args_text.strip().lower()
    if word not in ("on", "off"):
        await context.reply(await context.usage("translate"))
        return
    await context.remember_chat()
    chat_id, on = context.chat_id, word == "on"
    await context.svc.chats.set_translate(chat_id, on=on)
    await context.reply(tr.gettext(texts.TRANSLATE_ON if on else texts.TRANSLATE_OFF))


async def _model_configured(context: Context) -> bool:
    if context.svc.settings.model_api_url:
        return True
    await context.reply((await context.tr()).gettext(texts.NO_MODEL))
    return False


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "summary",
        cmd_summary,
        about=N_("summaries written by the bot's language model"),
        usage=N_(
            "/summary <i>feed name</i> model|extract — a summary written by the bot's language "
            "model in this chat's language, or the post's own sentences (the default); e.g. "
            "<code>/summary {feed} model</code>"
        ),
    ),
    Command(
        "translate",
        cmd_translate,
        about=N_("posts in other languages translated"),
        usage=N_(
            "/translate on|off — posts in another language than this chat's come with their title "
            "and summary translated (the original title stays the link); keywords match the "
            "translation too"
        ),
    ),
)
