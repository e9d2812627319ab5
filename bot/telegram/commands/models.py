"""/summary and /translate: what the operator's language model does for this chat.

Both answer plainly when the bot has no model (MODEL_API_URL unset): nothing is sent anywhere
then, and messages keep the extractive summary.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.core.lang import N_
from bot.core.modes import SUMMARY
from bot.telegram import texts
from bot.telegram.buttons import Action, Button, encode
from bot.telegram.commands.common import pressed
from bot.telegram.commands.settings import set_mode_command
from bot.telegram.commands.subscriptions import edit
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
    if not word:
        seen = await context.svc.subscriptions.overview(context.chat_id)
        text = tr.gettext(texts.TRANSLATE_ON if seen.translate else texts.TRANSLATE_OFF)
        usage = await context.usage("translate")
        await context.reply(text + "\n\n" + usage, _translate_keys(seen.translate))
        return
    if word not in ("on", "off"):
        await context.reply(await context.usage("translate"))
        return
    await context.remember_chat()
    chat_id, on = context.chat_id, word == "on"
    await context.svc.chats.set_translate(chat_id, on=on)
    await context.reply(tr.gettext(texts.TRANSLATE_ON if on else texts.TRANSLATE_OFF))


def _translate_keys(on: bool) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    f"✓ {word}" if (word == "on") == on else word,
                    callback_data=encode(Button(Action.CHAT, setting="translate", value=word)),
                )
                for word in ("on", "off")
            ]
        ]
    )


async def on_chat_button(update: Update, context: Context) -> None:
    """`on`/`off` pressed under a bare /translate: set it and redraw the answer."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    if button.setting != "translate" or button.value not in ("on", "off"):
        await query.answer(tr.gettext(texts.BUTTON_EXPIRED))
        return
    await context.remember_chat()
    on = button.value == "on"
    await context.svc.chats.set_translate(context.chat_id, on=on)
    text = tr.gettext(texts.TRANSLATE_ON if on else texts.TRANSLATE_OFF)
    await edit(query, text + "\n\n" + await context.usage("translate"), _translate_keys(on))
    await query.answer()


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
        needs_model=True,
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
        needs_model=True,
        about=N_("posts in other languages translated"),
        usage=N_(
            "/translate on|off — posts in another language than this chat's come with their title "
            "and summary translated (the original title stays the link); keywords match the "
            "translation too"
        ),
    ),
)
