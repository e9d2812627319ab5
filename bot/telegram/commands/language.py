"""/language and its buttons: the chat's language for replies, posts and digests."""

from __future__ import annotations

from telegram import Update

from bot.core.lang import N_
from bot.runtime.i18n import LANGUAGES, parse_choice, translator
from bot.telegram import texts
from bot.telegram.commands.common import edit, pressed
from bot.telegram.context import Context
from bot.telegram.spec import Command
from bot.telegram.views import language_keyboard


async def cmd_language(update: Update, context: Context) -> None:
    """/language [en|zh|es]: show the chat's language with buttons, or change it."""
    tr = await context.tr()
    arg = context.args_text
    if not arg:
        text = tr.gettext("Language: {language}. {usage}").format(
            language=LANGUAGES[tr.language], usage=await context.usage("language")
        )
        await context.reply(text, language_keyboard())
        return
    if not await context.may_change():
        return
    choice = parse_choice(arg)
    if choice is None:
        text = tr.gettext("Unknown language. {usage}")
        await context.reply(text.format(usage=await context.usage("language")))
        return
    await context.reply(await set_language(context, choice))


async def on_language_button(update: Update, context: Context) -> None:
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    language = parse_choice(button.language)
    if language is None:
        await query.answer((await context.tr()).gettext(texts.BUTTON_EXPIRED))
        return
    await edit(query, await set_language(context, language), None)
    await query.answer()


async def set_language(context: Context, language: str) -> str:
    """Store the chat's language; the confirmation is already in the new language."""
    await context.remember_chat(chosen=language)
    return (
        translator(language).gettext("Language: {language}.").format(language=LANGUAGES[language])
    )


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "language",
        cmd_language,
        about=N_("this chat's language"),
        usage=N_("/language en|zh|es — e.g. <code>/language es</code> (English, 中文, Español)"),
    ),
)
