"""Subscribing by address: /subscribe URL, a link pasted alone in a private chat, and the
buttons of the feeds found there. What an address stands for is `services.discovery`; adding
a feed is the catalog's. Fetching runs in the background (`background`), so a slow site never
holds up other commands."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardMarkup, Message, Update

from bot.core.feeds.discover import looks_like_url
from bot.core.lang import Translator
from bot.core.messages.escape import esc
from bot.core.urls import shown_url
from bot.db import store
from bot.db.store import FeedView
from bot.services.catalog import AddError, AddLimits, AlreadyWatched, FeedAddError
from bot.services.discovery import Discovery, Option
from bot.telegram import background, help_screen, texts
from bot.telegram.commands.common import pressed, subscription_answer, topic_of
from bot.telegram.context import Context
from bot.telegram.offers import Offered
from bot.telegram.views import offer_keyboard

log = logging.getLogger(__name__)


async def subscribe_by_address(
    context: Context, message: Message, text: str, thread_id: int | None
) -> None:
    """/subscribe URL (after the admin check): one feed there → subscribed at once; several →
    one button each."""
    await search(context, message, text, thread_id, ask_first=False)


async def on_pasted_address(update: Update, context: Context) -> None:
    """A private chat's message that is only a link: the feed(s) there, each with a button."""
    message = update.effective_message
    text = (message.text or "").strip() if message is not None else ""
    if message is not None and looks_like_url(text):
        await search(context, message, text, None, ask_first=True)
    elif message is not None and text:  # "hello, what can you do?": one line on what works
        await context.reply((await context.tr()).gettext(help_screen.UNKNOWN))


async def search(
    context: Context, message: Message, text: str, thread_id: int | None, *, ask_first: bool
) -> None:
    """Find the feeds at `text` in the background; answer with the subscription (one feed,
    unless `ask_first`) or a button per feed."""
    tr = await context.tr()

    async def work(progress: background.Progress) -> background.Answer:
        options = await find(context, text, tr)
        if isinstance(options, str):
            return context.decorate(options)
        if len(options) > 1:
            several = tr.gettext(texts.FOUND_SEVERAL).format(count=len(options))
            return offer(context, options, several, tr)
        if ask_first:
            found = tr.gettext(texts.FOUND_ONE).format(title=esc(options[0].title or text))
            return offer(context, options, found, tr)
        return await take(context, options[0], thread_id)

    await in_background(context, message, text, work)


async def on_add_button(update: Update, context: Context) -> None:
    """One of the offered feeds was tapped: add it (if new) and subscribe the chat."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    offered = context.svc.offers.get(button.token, button.count)
    if offered is None or not isinstance(query.message, Message):
        await query.answer((await context.tr()).gettext(texts.BUTTON_EXPIRED))
        return
    await query.answer()
    thread_id = topic_of(query.message)

    async def work(progress: background.Progress) -> background.Answer:
        return await take(context, Option(offered.url, offered.title), thread_id)

    await in_background(context, query.message, offered.url, work)


async def in_background(
    context: Context, message: Message, url: str, work: background.Work
) -> None:
    """Run `work` beside command handling, with "Looking for a feed at URL…" if it is slow."""
    _ = (await context.tr()).gettext
    looking = _(texts.LOOKING).format(url=esc(shown_url(url.strip())[:200]))
    failed = _(texts.SOMETHING_WRONG)
    background.start(context.svc.jobs, message, context.decorate(looking), work, failed)


async def find(context: Context, text: str, tr: Translator) -> list[Option] | str:
    """The feeds at an address, or the reply that says why there are none. Where only
    operators add feeds, anyone else's address is matched with the watched feeds, unfetched."""
    discovery = Discovery(context.svc.catalog, context.svc.searches)
    try:
        if not may_add(context):
            known = await discovery.watched(text)
            return [known] if known is not None else tr.gettext(texts.ADDING_CLOSED)
        return await discovery.find(text, who=context.actor_id)
    except FeedAddError as exc:
        log.info("chat %s: no feed at the address: %s", context.chat_id, exc)
        return explain(exc, context, tr)


async def take(context: Context, option: Option, thread_id: int | None) -> background.Answer:
    """Subscribe the chat to the option's feed, adding the feed first when it is new."""
    tr = await context.tr()
    try:
        feed, note = await watch(context, option, tr)
    except AddingClosed:
        return context.decorate(tr.gettext(texts.ADDING_CLOSED))
    except FeedAddError as exc:
        log.info("chat %s: could not add a feed: %s", context.chat_id, exc)
        return context.decorate(explain(exc, context, tr))
    text, keyboard = await subscription_answer(context, feed, thread_id)
    return context.decorate(note + text), keyboard


class AddingClosed(Exception):
    """The feed is new and only operators add feeds here (FEED_ADDING=operators)."""


async def watch(context: Context, option: Option, tr: Translator) -> tuple[FeedView, str]:
    """The option's feed, added first when it is new (within MAX_FEEDS and, for anyone but an
    operator, MAX_FEEDS_PER_USER), and the note that says so ("" when it was watched).
    Raises `AddingClosed`, or `FeedAddError` whose kind is what the chat is told."""
    if option.feed is not None:
        return option.feed, ""
    if not may_add(context):
        raise AddingClosed
    settings = context.svc.settings
    per_user = None if context.is_operator else settings.max_feeds_per_user
    limits = AddLimits(settings.max_feeds, per_user)
    catalog, user_id = context.svc.catalog, context.actor_id
    try:
        if option.result is not None and option.raw is not None:
            outcome = await catalog.add_fetched(
                option.url, option.result, option.raw, trusted=False, added_by=user_id,
                limits=limits,
            )  # fmt: skip
        else:
            outcome = await catalog.add_feed(
                option.url, trusted=False, added_by=user_id, limits=limits
            )
    except AlreadyWatched:  # added meanwhile by someone else: just subscribe
        outcome = None
    feed, note = None, ""
    if outcome is not None:
        slug = outcome.slug
        feed = await context.svc.read(lambda s: store.get_feed(s, slug=slug))
        text = tr.gettext(texts.NEW_FEED)
        note = text.format(title=esc(outcome.feed_title), slug=esc(outcome.slug)) + "\n\n"
        log.info("user %s added the feed %s from chat %s", user_id, slug, context.chat_id)
    else:
        known = await Discovery(catalog).watched(option.url)
        feed = known.feed if known is not None else None
    if feed is None:  # removed again in the meantime
        raise FeedAddError("the feed was removed meanwhile", AddError.UNREACHABLE)
    return feed, note


def offer(
    context: Context, options: list[Option], text: str, tr: Translator
) -> tuple[str, InlineKeyboardMarkup]:
    """The found feeds as buttons: new ones wait in `offers` under a token."""
    token = context.svc.offers.put([Offered(o.url, o.title) for o in options])
    rows = [(o.title, o.feed.id if o.feed is not None else None) for o in options]
    label = tr.gettext(texts.SUBSCRIBE_BUTTON)
    return context.decorate(text), offer_keyboard(rows, token, label)


def may_add(context: Context) -> bool:
    """FEED_ADDING: everyone, or operators only."""
    return context.svc.settings.feed_adding == "everyone" or context.is_operator


def explain(exc: FeedAddError, context: Context, tr: Translator) -> str:
    """The chat's sentence for a failure (never the exception's text)."""
    settings = context.svc.settings
    text = tr.gettext(texts.FEED_ERRORS[exc.kind])
    return text.format(max_feeds=settings.max_feeds, max_user=settings.max_feeds_per_user)
