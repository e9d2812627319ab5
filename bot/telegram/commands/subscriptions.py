"""Following feeds: /subscribe, /unsubscribe, /list, /categories, /export, and the buttons
under /subscribe (the backlog choice) and /list (unsubscribe)."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode

from bot.core.feeds.discover import looks_like_url
from bot.core.feeds.opml import OpmlFeed, render_opml
from bot.core.lang import N_
from bot.core.messages.escape import esc
from bot.core.urls import shown_url
from bot.db import store
from bot.db.store import FeedView
from bot.services.leaving import Undone
from bot.telegram import texts
from bot.telegram.buttons import Action, Button
from bot.telegram.commands import adding, leaving
from bot.telegram.commands.common import edit as edit  # settings.py's import of it
from bot.telegram.commands.common import (
    find_feed,
    pressed,
    subscription_answer,
    topic_of,
)
from bot.telegram.context import Context
from bot.telegram.spec import Command
from bot.telegram.views import BACKLOG, list_view, page_of

log = logging.getLogger(__name__)


async def cmd_subscribe(update: Update, context: Context) -> None:
    """/subscribe [FEED | URL]: a watched feed by name, or any address (`adding`)."""
    message = update.effective_message
    if message is None or not await context.may_change():
        return
    thread_id = topic_of(message)
    if looks_like_url(context.args_text):
        await adding.subscribe_by_address(context, message, context.args_text, thread_id)
        return
    feed = await find_feed(context, context.args_text, "subscribe")
    if feed is None:
        return
    await subscribe_to(context, feed, thread_id)


async def subscribe_to(context: Context, feed: FeedView, thread_id: int | None) -> None:
    """Subscribe the chat (a /subscribe, a deep link or a /start button) and say so."""
    await context.reply(*await subscription_answer(context, feed, thread_id))


async def current_list(
    context: Context, *, page: int = 0, feed_id: int | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    """One page of /list: `page`, or the one showing `feed_id` (a button under it pressed)."""
    seen = await context.svc.subscriptions.overview(context.chat_id)
    if feed_id is not None:
        page = page_of(seen.subscriptions, feed_id)
    tr = await context.tr()
    return list_view(seen, tr, page)


async def cmd_list(update: Update, context: Context) -> None:
    """/list: this chat's subscriptions and filters, with buttons to change them."""
    if not await context.may_read():
        return
    await context.reply(*await current_list(context))


async def cmd_categories(update: Update, context: Context) -> None:
    """/categories SLUG: categories seen on the feed, most frequent first."""
    tr = await context.tr()
    feed = await find_feed(context, context.args_text, "categories")
    if feed is None:
        return
    counts = await context.svc.read(lambda s: store.category_counts(s, feed_id=feed.id))
    title = esc(feed.title)
    if not counts:
        text = tr.gettext("No categories seen on <b>{title}</b> yet.")
        await context.reply(text.format(title=title))
        return
    lines = [tr.gettext("<b>Categories on {title}</b>").format(title=title)]
    lines += [f"{esc(name)} ({count})" for name, count in counts[:50]]
    await context.reply("\n".join(lines))


async def cmd_export(update: Update, context: Context) -> None:
    """/export: this chat's subscriptions as an OPML file."""
    message = update.effective_message
    if message is None or not await context.may_read():
        return
    tr = await context.tr()
    chat_id = context.chat_id
    subs = await context.svc.read(lambda s: store.chat_subscriptions(s, chat_id=chat_id))
    if not subs:
        await context.reply(tr.gettext("This chat has no subscriptions to export."))
        return
    operator = context.is_operator  # only operators see a feed URL's query token
    feeds = [
        OpmlFeed(title=feed.title, url=shown_url(feed.url, operator=operator))
        for _reader, feed in subs
    ]
    document = render_opml("Feedwatch subscriptions", feeds, created=context.svc.clock())
    caption = tr.ngettext(
        "This chat's subscriptions: {count} feed, as an OPML file.",
        "This chat's subscriptions: {count} feeds, as an OPML file.",
        len(feeds),
    ).format(count=len(feeds))
    await message.reply_document(
        document=document,
        filename="feedwatch.opml",
        caption=context.decorate(caption),  # a managed channel's: its name first
        parse_mode=ParseMode.HTML,
        do_quote=False,
    )


# --- buttons -----------------------------------------------------------------------------------


async def on_expired(update: Update, context: Context) -> None:
    """Any button no other route took (forged, or from an older version)."""
    await pressed(update, context)


async def on_subscribe_button(update: Update, context: Context) -> None:
    """A watched feed's button: under /start, or offered for an address."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    feed_id = button.feed_id
    feed = await context.svc.read(lambda s: store.feed_by_id(s, feed_id=feed_id))
    if feed is None:  # removed since
        await query.answer((await context.tr()).gettext(texts.BUTTON_EXPIRED))
        return
    await subscribe_to(context, feed, topic_of(query.message))
    await query.answer()


async def on_backlog(update: Update, context: Context) -> None:
    """After /subscribe: only new posts, or also the latest few (never twice)."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    chat_id, feed_id, count = context.chat_id, button.feed_id, min(button.count, BACKLOG)
    queued = await context.svc.subscriptions.queue_backlog(chat_id, feed_id, count)
    context.svc.wake.set()
    if queued:
        note = tr.ngettext(
            "Sending the latest {count} post.", "Sending the latest {count} posts.", queued
        ).format(count=queued)
    else:
        note = tr.gettext("Only new posts, then.")
    before = query.message.text_html if isinstance(query.message, Message) else ""
    await edit(query, f"{before}\n\n{note}".strip(), None)
    await query.answer()


async def on_unsub(update: Update, context: Context) -> None:
    """✖ under /list."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    chat_id, feed_id = context.chat_id, button.feed_id
    subs = await context.svc.read(lambda s: store.chat_subscriptions(s, chat_id=chat_id))
    page = page_of(subs, feed_id)  # where it was: that page is shown again
    left = await context.svc.subscriptions.unsubscribe(chat_id, feed_id)
    text, keyboard = await current_list(context, page=page)
    tr = await context.tr()
    if left.count:  # the list gets an Undo row for the feed just left
        title = next((feed.title or feed.slug for _, feed in subs if feed.id == feed_id), "")
        keyboard = leaving.with_undo(keyboard, Button(Action.REJOIN, feed_id), title, tr)
    await edit(query, text, keyboard)
    await query.answer(tr.gettext("Unsubscribed."))


async def on_rejoin(update: Update, context: Context) -> None:
    """↩ Undo under /list after a ✖: the feed is followed again, settings and all; the list
    shows it again."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    done = await context.svc.returns.undo(context.chat_id, button.feed_id)
    if done is not Undone.DONE:
        await query.answer(leaving.undo_refusal(done, context, await context.tr()), show_alert=True)
        return
    await edit(query, *await current_list(context, feed_id=button.feed_id))
    await query.answer()


async def on_list_page(update: Update, context: Context) -> None:
    """‹ › under /list: another page of the chat's subscriptions."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    await edit(query, *await current_list(context, page=button.count))
    await query.answer()


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "subscribe",
        cmd_subscribe,
        about=N_("get a feed's new posts here"),
        usage=N_(
            "/subscribe <i>feed name</i> or <i>address</i> — e.g. <code>/subscribe {feed}</code> "
            "or <code>/subscribe https://example.org/blog/</code> (see /feeds)"
        ),
    ),
    Command(
        "unsubscribe",
        leaving.cmd_unsubscribe,
        about=N_("stop a feed (or all)"),
        usage=N_("/unsubscribe <i>feed name</i> or /unsubscribe all"),
    ),
    Command(
        "list",
        cmd_list,
        about=N_("this chat's subscriptions and filters"),
    ),
    Command(
        "categories",
        cmd_categories,
        about=N_("categories seen on a feed"),
        usage=N_("/categories <i>feed name</i> — e.g. <code>/categories {feed}</code>"),
    ),
    Command(
        "export",
        cmd_export,
        about=N_("this chat's subscriptions as OPML"),
    ),
)
