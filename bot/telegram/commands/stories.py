"""/duplicates: how a story already sent from another of the chat's feeds arrives."""

from __future__ import annotations

from telegram import Update

from bot.core.lang import N_, Translator
from bot.db.store import DUPLICATE_MODES, FOLD
from bot.telegram.context import Context
from bot.telegram.spec import Command


async def cmd_duplicates(update: Update, context: Context) -> None:
    """/duplicates fold|show: fold (the default) or show a story another feed already told."""
    tr = await context.tr()
    word = context.args_text.strip().lower()
    if not word:
        mode = await context.svc.chats.duplicates(context.chat_id)
        await context.reply(_sentence(tr, mode) + "\n\n" + await context.usage("duplicates"))
        return
    if word not in DUPLICATE_MODES:
        await context.reply(await context.usage("duplicates"))
        return
    if not await context.may_change():
        return
    await context.remember_chat()
    await context.svc.chats.set_duplicates(context.chat_id, word)
    await context.reply(_sentence(tr, word))


def _sentence(tr: Translator, mode: str) -> str:
    if mode == FOLD:
        return tr.gettext(
            "Duplicates: a story already sent from another of this chat's feeds is not sent "
            "again; its first message gains an <i>Also in</i> line naming the other feeds."
        )
    return tr.gettext(
        "Duplicates: a story already sent from another of this chat's feeds comes as a quiet "
        "reply to its first message."
    )


COMMANDS = (
    Command(
        "duplicates",
        cmd_duplicates,
        about=N_("one message per story, or repeats as replies"),
        usage=N_(
            "/duplicates fold|show — a story from several of this chat's feeds is one message "
            "naming them (the default), or each repeat is a quiet reply to the first; e.g. "
            "<code>/duplicates show</code>"
        ),
    ),
)
