"""What several commands share: finding the feed a command names, and the start of every
`/command SLUG REST` that changes a subscription."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.core.lang import Translator
from bot.db import store
from bot.db.store import FeedView
from bot.telegram import texts
from bot.telegram.context import Context, esc
from bot.telegram.views import feed_names


async def find_feed(context: Context, slug: str, command: str) -> FeedView | None:
    """The feed named `slug`, or the only feed when no slug is given and there is just one;
    otherwise a reply that says which feeds there are."""
    tr = await context.tr()
    _ = tr.gettext
    rows = await context.svc.read(store.list_feeds)
    feeds = [row.feed for row in rows]
    if not slug:
        if len(feeds) == 1:
            return feeds[0]
        if not feeds:
            await context.reply(_("No feeds are watched yet."))
        else:
            text = _("Which feed? Usage: {usage}\nFeeds: {feeds}")
            usage = _(texts.USAGE[command])
            await context.reply(text.format(usage=usage, feeds=feed_names(feeds, tr)))
        return None
    for feed in feeds:
        if feed.slug == slug.lower():
            return feed
    text = _("There is no feed named <code>{slug}</code>. Feeds: {feeds}")
    await context.reply(text.format(slug=esc(slug[:64]), feeds=feed_names(feeds, tr)))
    return None


@dataclass(frozen=True, slots=True)
class SettingCommand:
    """A `/command SLUG REST` that passed the checks every subscription setting needs."""

    tr: Translator
    feed: FeedView
    rest: str


async def setting_command(
    context: Context, command: str, valid: Callable[[str], bool] = bool
) -> SettingCommand | None:
    """Admin check, `SLUG REST` arguments (`valid(REST)`), the feed; replies to any mistake."""
    tr = await context.tr()
    if not await context.may_change():
        return None
    parts = context.args_text.split(maxsplit=1)
    if len(parts) < 2 or not valid(parts[1]):
        await context.reply(await context.usage(command))
        return None
    feed = await find_feed(context, parts[0], command)
    if feed is None:
        return None
    return SettingCommand(tr, feed, parts[1])


def not_subscribed(feed: FeedView, tr: Translator) -> str:
    text = tr.gettext(
        "This chat is not subscribed to <b>{title}</b>: <code>/subscribe {slug}</code> first."
    )
    return text.format(title=esc(feed.title), slug=esc(feed.slug))
