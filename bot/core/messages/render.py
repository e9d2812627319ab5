"""Change → Telegram message (parse mode HTML).

Everything from a feed is escaped by `escape.esc`, the only tags emitted are ones Telegram
accepts (b, i, a), and the visible text is kept within Telegram's 4096 limit, which counts UTF-16
code units after entity parsing: an emoji or other astral character counts twice.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.lang import ENGLISH, Translator
from bot.core.messages.edit_render import edit_body, edit_notice, edit_prefix
from bot.core.messages.escape import esc, esc_attr
from bot.core.messages.header import (
    OWN_MESSAGE_NAME_CHARS,
    post_name,
    shown_author,
    shown_categories,
)
from bot.core.messages.modeltext import ModelText
from bot.core.messages.summary import (
    IMAGE_ROWS,
    MAX_COLUMNS,
    MAX_ROWS,
    phone_rows,
    summarize,
    whole_post,
)
from bot.core.modes import Format
from bot.core.text import shorten
from bot.core.types import Change, ChangeKind, FeedInfo

TELEGRAM_LIMIT = 4096
FULL_COLUMNS = 3400  # the whole post: what fits beside the title, byline and categories
SCREEN_ROWS = 20  # one phone screen at 38 columns
MIN_ROWS = 3  # a summary's least, however long the title
_TAG = re.compile(r"<[^>]+>")
_ANCHOR = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.DOTALL)
_STRUCK = re.compile(r"<s>(.*?)</s>", re.DOTALL)


def render_change(
    change: Change,
    feed: FeedInfo,
    tr: Translator = ENGLISH,
    *,
    zone: str = "UTC",
    form: Format = Format.SUMMARY,
    model: ModelText | None = None,
    now: datetime | None = None,
    page: str | None = None,
) -> str:
    """The message for one event in `tr`'s language, its date in the chat's time `zone` (with
    the time of day for a post of the last day before `now`), in
    the subscription's `form` (title and source; the summary; the whole post up to the limit),
    guaranteed to fit Telegram's limit. `model`: what the operator's language model wrote for
    this chat (a summary, a translated title), plain text shown escaped. `page`: the post's
    Telegraph page, which a `full` message too long for the post links to (Instant View)."""
    scale = 1.0
    while True:
        message = _render(change, feed, scale, tr, zone, form, model, now, page)
        if telegram_length(message) <= TELEGRAM_LIMIT or scale < 0.01:
            return message
        scale /= 2


def summary_rows(header: list[str], *, image: bool) -> int:
    """Phone lines left for the summary under this header: 12 (8 under a large image, which
    takes the rest of the screen), fewer under a title that wraps many times, so the text
    stays within `SCREEN_ROWS` lines."""
    used = sum(phone_rows(telegram_length(line)) for line in header)
    left = SCREEN_ROWS - used
    return max(MIN_ROWS, min(IMAGE_ROWS if image else MAX_ROWS, left))


def more_line(tr: Translator) -> str:
    """ "… and {n} more" in `tr`'s language, for the items a summary leaves out."""
    return tr.ngettext("<i>… and {n} more</i>", "<i>… and {n} more</i>", 2)


def local(moment: datetime, zone: str) -> datetime:
    """`moment` in the IANA time `zone` (stored zones are validated; anything else is UTC)."""
    try:
        return moment.astimezone(ZoneInfo(zone))
    except (ValueError, ZoneInfoNotFoundError):
        return moment.astimezone(UTC)


RECENT = timedelta(days=1)  # a post this recent shows its time of day beside the date


def dated(published: datetime, tr: Translator, zone: str, now: datetime | None) -> str:
    """The date line's date in the chat's zone; for a post of the last day, with its time
    (`8 Sep 2026 17:59`). Why: "today" or "yesterday" is what a reader wants to know of a
    fresh post, and the date alone reads the same for a post of this morning and of last
    night; an older post's hour is noise."""
    when = local(published, zone)
    if now is None or not -timedelta(hours=1) <= now - published <= RECENT:
        return tr.format_date(when)
    return f"{tr.format_date(when)} {when:%H:%M}"


def telegram_length(message_html: str) -> int:
    """Length as Telegram counts it: visible text after entity parsing, in UTF-16 code units."""
    visible = html.unescape(_TAG.sub("", message_html))
    return len(visible.encode("utf-16-le", "surrogatepass")) // 2


def to_plain(message_html: str) -> str:
    """The same message without markup, for the resend after Telegram refuses the HTML: an
    edit's struck-through words keep a mark of their own, ~~like this~~."""
    with_urls = _ANCHOR.sub(lambda m: f"{m.group(2)} ({m.group(1)})", message_html)
    struck = _STRUCK.sub(lambda m: f"~~{m.group(1)}~~", with_urls)
    return html.unescape(_TAG.sub("", struck))


def _render(
    change: Change,
    feed: FeedInfo,
    scale: float,
    tr: Translator,
    zone: str,
    form: Format,
    model: ModelText | None = None,
    now: datetime | None = None,
    page: str | None = None,
) -> str:
    item = change.item

    def budget(chars: int) -> int:
        return max(int(chars * scale), 20)

    name = post_name(item.title, item.text, item.link, OWN_MESSAGE_NAME_CHARS)
    name = name or tr.gettext("(untitled)")
    title = esc(shorten(name, budget(300)))
    if item.link:
        title = f'<a href="{esc_attr(item.link)}">{title}</a>'
    prefix = ""
    explained = model.explained if model is not None else None  # an edit, by the model
    if change.kind is ChangeKind.EDITED:
        if form is Format.TITLE:
            return edit_notice(change.diff, title, tr, explained)
        prefix = edit_prefix(change.diff, tr)
    lines = [f"<b>{prefix}{title}</b>"]
    if model is not None and model.title:  # translated: the original title stays the link
        lines = [f"<b>{esc(shorten(model.title, budget(300)))}</b>", title]
    source = feed.title or feed.slug
    byline = [shorten(source, budget(100))]
    author = shown_author(item.author, source, item.title)
    if author:
        byline.append(shorten(author, budget(100)))
    if item.published:
        byline.append(dated(item.published, tr, zone, now))
    lines.append(esc(" · ".join(byline)))
    if form is Format.TITLE and change.kind is ChangeKind.NEW:
        return "\n".join(lines)
    categories = shown_categories(item.categories, item.title, source, item.author)
    if categories:
        shown = [shorten(c, budget(50)) for c in categories]
        lines.append(f"<i>{esc(' · '.join(shown))}</i>")
    lines.append("")
    if change.kind is ChangeKind.EDITED and change.diff is not None:
        lines.extend(edit_body(change.diff, budget, tr, explained))
    elif form is Format.FULL:
        body, complete = whole_post(
            item.html, item.text, limit=budget(FULL_COLUMNS), base=item.link or ""
        )
        lines.append(body)
        if not complete and page:
            instant = esc(tr.gettext("Read the whole post in Instant View"))
            lines.append(f'\n<a href="{esc_attr(page)}">{instant} →</a>')
        elif not complete and item.link:
            read_on = esc(tr.gettext("Read on the site"))
            lines.append(f'\n<a href="{esc_attr(item.link)}">{read_on} →</a>')
    elif model is not None and model.summary:
        lines.append(esc(shorten(model.summary, budget(MAX_COLUMNS))))
    else:
        summary = summarize(
            item.html,
            item.text,
            item.excerpt,
            full=item.full,
            limit=budget(MAX_COLUMNS),
            title=item.title or name,  # an untitled post's name is its first sentence
            rows=summary_rows(lines, image=bool(item.image)),
            more=more_line(tr),
            base=item.link or "",
        )
        if summary:
            lines.append(summary)
    return "\n".join(lines).rstrip()
