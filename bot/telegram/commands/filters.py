"""/filter: categories (`/filter FEED Blog, -Events`), field rules (`/filter FEED title:release
-author:bot text:/v2\\.\\d+/`, `/filter all …` for every feed of the chat), `off`, and the
filter test (`/filter FEED test`, also after every change): which of the feed's last 20 posts
would pass, and the rule that stops each one that would not."""

from __future__ import annotations

import re

from telegram import Update

from bot.core.lang import N_, Translator, then
from bot.core.messages.escape import esc
from bot.core.messages.header import post_name
from bot.core.rules.fields import looks_like_rules, parse_rules, written
from bot.core.rules.filters import FilterSyntaxError, describe, parse_filter
from bot.core.text import shorten
from bot.core.types import CategoryFilter, ParsedItem, Reader
from bot.db.store import FeedView
from bot.services.subscribing import Overview
from bot.telegram.commands.common import not_subscribed, setting_command
from bot.telegram.commands.current import show_current
from bot.telegram.context import Context
from bot.telegram.spec import Command

TESTED = 20  # the feed's latest posts the filter test reads
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


async def cmd_filter(update: Update, context: Context) -> None:
    """/filter FEED CATEGORY[, …] | FIELD:VALUE … | off | test; /filter all FIELD:VALUE … | off"""
    if context.args_text.split(maxsplit=1)[:1] == ["all"]:
        await _chat_rules(context)
        return
    cmd = await setting_command(context, "filter", current=_show_filter)
    if cmd is None:
        return
    tr, feed, spec, chat_id = cmd.tr, cmd.feed, cmd.rest.strip(), context.chat_id
    if spec.lower() == "test":
        await context.reply(await filter_test(context, feed))
        return
    note = ""
    try:
        if spec.lower() == "off":
            flt, rules = CategoryFilter(), None
        elif looks_like_rules(spec):
            flt, rules = None, list(written(parse_rules(spec)))
        else:
            limit = context.svc.settings.max_categories_per_filter
            flt, rules = parse_filter(spec, max_categories=limit), None
    except FilterSyntaxError as exc:
        await context.reply(then(esc(exc.sentence(tr)), await context.usage("filter"), tr.language))
        return

    done = await context.svc.subscriptions.set_filter(
        chat_id, feed.id, flt, rules, clear=spec.lower() == "off"
    )
    ok, unknown = done.subscribed, list(done.unknown)
    if not ok:
        await context.reply(not_subscribed(feed, tr))
        return
    if rules is not None:
        text = tr.gettext("Rules for <b>{title}</b>: {rules}.").format(
            title=esc(feed.title), rules=f"<code>{esc(' '.join(rules))}</code>"
        )
    else:
        text = tr.gettext("Filter for <b>{title}</b>: {filter}.").format(
            title=esc(feed.title), filter=esc(describe(flt or CategoryFilter(), tr))
        )
    if unknown:
        note = tr.ngettext(
            "Note: {names} has not been seen on this feed yet.",
            "Note: {names} have not been seen on this feed yet.",
            len(unknown),
        )
        text += "\n" + note.format(names=esc(", ".join(unknown)))
    await context.reply(text + "\n\n" + await filter_test(context, feed))


async def _show_filter(context: Context, slug: str) -> None:
    def sentence(reader: Reader, feed: FeedView, _seen: Overview, tr: Translator) -> str:
        text = tr.gettext("Filter for <b>{title}</b>: {filter}.").format(
            title=esc(feed.title), filter=esc(describe(reader.categories, tr))
        )
        if reader.rules:
            rules = tr.gettext("Rules for <b>{title}</b>: {rules}.").format(
                title=esc(feed.title), rules=f"<code>{esc(' '.join(reader.rules))}</code>"
            )
            text = f"{text} {rules}"
        return f"<code>{esc(feed.slug)}</code>: {text}"

    await show_current(context, "filter", slug, sentence)


async def _chat_rules(context: Context) -> None:
    tr = await context.tr()
    if not await context.may_change():
        return
    spec = context.args_text.split(maxsplit=1)[1].strip() if " " in context.args_text else ""
    try:
        rules = None if spec.lower() == "off" else list(written(parse_rules(spec)))
    except FilterSyntaxError as exc:
        await context.reply(then(esc(exc.sentence(tr)), await context.usage("filter"), tr.language))
        return
    await context.remember_chat()
    chat_id = context.chat_id
    await context.svc.chats.set_rules(chat_id, rules)
    if rules is None:
        await context.reply(tr.gettext("Rules for every feed here: none."))
        return
    text = tr.gettext("Rules for every feed here: {rules}.")
    await context.reply(text.format(rules=f"<code>{esc(' '.join(rules))}</code>"))


async def filter_test(context: Context, feed: FeedView) -> str:
    """Which of the feed's latest posts this chat would get, and why not the others."""
    tr = await context.tr()
    tested = await context.svc.subscriptions.filter_test(context.chat_id, feed.id, TESTED)
    reader, verdicts = tested.reader, tested.verdicts
    if reader is None:
        return not_subscribed(feed, tr)
    items = [item for item, _ in verdicts]
    if not items:
        return tr.gettext("No posts of <b>{title}</b> stored yet to test the filter on.").format(
            title=esc(feed.title)
        )
    passing = sum(1 for _, why in verdicts if why is None)
    lines = [
        tr.gettext("<b>Filter test</b>: {passing} of the last {count} posts would arrive.").format(
            passing=passing, count=len(items)
        )
    ]
    for item, why in verdicts:
        title = esc(
            shorten(post_name(item.title, item.text, item.link) or tr.gettext("(untitled)"), 70)
        )
        if why is None:
            lines.append(f"✓ {title}")
        else:
            lines.append(f"✗ {title} — <code>{esc(shorten(why, 80))}</code>")
    if passing == 0:
        lines.append("\n" + tr.gettext("⚠ No recent post passes: check the words and rules."))
    hint = _script_hint(reader, items, tr, context.svc.settings.model_api_url is not None)
    if hint:
        lines.append(hint)
    return "\n".join(lines)


def _script_hint(reader: Reader, items: list[ParsedItem], tr: Translator, model: bool) -> str:
    """A Chinese keyword on an English feed (or the reverse) matches nothing: say so."""
    cjk = _CJK
    words = [*reader.keywords.include, *reader.rules, *reader.chat_rules]
    foreign = [w for w in words if cjk.search(w)]
    cjk_posts = sum(1 for item in items if cjk.search(f"{item.title} {item.text[:500]}"))
    if not foreign or cjk_posts * 2 >= len(items):
        return ""
    text = tr.gettext(
        "Note: {words} is written in another script than this feed's posts, so it only "
        "matches a post that contains it as written."
    ).format(words=esc(", ".join(foreign)))
    if model:
        text += " " + tr.gettext("With /translate on, keywords also match the translation.")
    return "\n" + text


# Declared once: the menu, /help, usage replies and the handlers' routes come from here.
COMMANDS = (
    Command(
        "filter",
        cmd_filter,
        about=N_("only some categories from a feed"),
        usage=N_(
            "/filter <i>feed name</i> CATEGORY[, CATEGORY…] — comma-separated, a leading - "
            "excludes; e.g. <code>/filter {feed} Blog, -Community</code>. Or rules by field "
            "(title, text, author, category, link; a leading - excludes, /…/ is a pattern): "
            "<code>/filter {feed} title:release -author:bot text:/v2\\.\\d+/</code>; "
            "<code>/filter all …</code> for every feed here; "
            "<code>/filter {feed} test</code> shows which recent posts pass; "
            "<code>/filter {feed} off</code> clears it"
        ),
    ),
)
