"""/search: the chat's posts found by any version of their title and text."""

from __future__ import annotations

from telegram import Update

from bot.core.lang import N_, then
from bot.core.messages.escape import esc
from bot.core.search.query import QueryError
from bot.core.search.snippet import answer
from bot.services.search import Outcome
from bot.telegram.context import Context
from bot.telegram.spec import Command


async def cmd_search(update: Update, context: Context) -> None:
    """/search WORDS [FEED] [since:30d]"""
    tr = await context.tr()
    _ = tr.gettext
    if not await context.may_read():
        return
    if not context.args_text:
        await context.reply(await context.usage("search"))
        return
    try:
        found = await context.svc.post_search.search(context.chat_id, context.args_text)
    except QueryError as exc:
        await context.reply(then(exc.sentence(tr), await context.usage("search"), tr.language))
        return
    if found.outcome is Outcome.NO_FEEDS:
        await context.reply(
            _("This chat follows no feeds yet, so there is nothing to search: /subscribe first.")
        )
    elif found.outcome is Outcome.NOT_SUBSCRIBED:
        assert found.query is not None and found.query.feed is not None
        names = ", ".join(f"<code>{esc(name)}</code>" for name in found.feeds)
        text = _("This chat does not follow a feed named <code>{slug}</code>. Its feeds: {feeds}")
        await context.reply(text.format(slug=esc(found.query.feed[:64]), feeds=names))
    else:
        assert found.query is not None
        await context.reply(answer(found.found, found.query, feed_title=found.feed_title, tr=tr))


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "search",
        cmd_search,
        about=N_("find this chat's posts, edits included"),
        usage=N_(
            "/search <i>words</i> [<i>feed name</i>] [since:30d] — e.g. "
            "<code>/search price {feed} since:2w</code>"
        ),
        more=N_(
            "Searches the titles and full stored text of every version of the posts of this "
            "chat's feeds, newest first, at most 10. Quote a phrase: <code>\"student "
            'tickets"</code>. Words match their beginnings (<code>price</code> finds '
            "<i>prices</i>); Chinese and Japanese words are found inside sentences."
        ),
    ),
)
