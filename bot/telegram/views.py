"""What the bot shows besides plain replies: the /list view, the inline keyboards, and the one
codec for button data (`unsub:ID`, `edits:ID`, `preview:ID`, `backlog:ID:N`, `lang:CODE`,
`sub:ID`, `add:TOKEN:N` for the Nth feed of an offer, `page:N` for a page of /list, `full:ID`
for an operator's full-text switch under /feeds).

Button data comes back from the client and can be forged (`"²"` passes `str.isdigit`; an id
above 2^63 overflows a database integer), so it is parsed strictly against one pattern and
anything else is an expired button. Every encoding stays far below Telegram's 64-byte limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core.filters import describe, describe_keywords
from bot.core.lang import Translator
from bot.core.model import Audience
from bot.db.store import FeedView
from bot.i18n import LANGUAGES
from bot.telegram.context import esc

BACKLOG = 3  # the most posts the "Also the latest" button sends

# --- the button codec --------------------------------------------------------------------------

_ID = r"([1-9][0-9]{0,17})"  # at most 18 digits: always below 2^63
_PATTERN = re.compile(
    rf"(?:(unsub|edits|preview|sub|full):{_ID}|backlog:{_ID}:([0-9])|lang:([a-z]{{2}})"
    r"|add:([0-9a-f]{8}):([0-9])|page:([0-9]{1,3}))",
    re.ASCII,
)
# What `CallbackQueryHandler(pattern=…)` routes on: the action word; `decode` does the rest.
ROUTES = {
    "backlog": r"^backlog:",
    "unsub": r"^unsub:",
    "toggle": r"^(edits|preview):",
    "lang": r"^lang:",
    "sub": r"^sub:",
    "page": r"^page:",
    "add": r"^add:",
    "full": r"^full:",
}


@dataclass(frozen=True, slots=True)
class Button:
    action: str  # unsub | edits | preview | backlog | lang | sub | add | page | full
    feed_id: int = 0
    count: int = 0  # backlog: how many posts; add: which of the offer's feeds; page: which
    language: str = ""
    token: str = ""  # add: the offer


def encode(button: Button) -> str:
    if button.action == "lang":
        return f"lang:{button.language}"
    if button.action == "backlog":
        return f"backlog:{button.feed_id}:{button.count}"
    if button.action == "add":
        return f"add:{button.token}:{button.count}"
    if button.action == "page":
        return f"page:{button.count}"
    return f"{button.action}:{button.feed_id}"


def decode(data: str | None) -> Button | None:
    """The button, or None for anything this bot did not write."""
    match = _PATTERN.fullmatch(data or "")
    if match is None:
        return None
    action, feed_id, backlog_id, count, language, token, number, page = match.groups()
    if page is not None:
        return Button("page", count=int(page))
    if action is not None:
        return Button(action, feed_id=int(feed_id))
    if backlog_id is not None:
        return Button("backlog", feed_id=int(backlog_id), count=int(count))
    if token is not None:
        return Button("add", count=int(number), token=token)
    return Button("lang", language=language)


# --- keyboards ---------------------------------------------------------------------------------


START_FEEDS = 8  # feed buttons under /start; /feeds lists them all


def feed_keyboard(feeds: list[FeedView]) -> InlineKeyboardMarkup | None:
    """One Subscribe button per watched feed (its title), for /start."""
    if not feeds:
        return None
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    f"＋ {_short(feed.title or feed.slug)}",
                    callback_data=encode(Button("sub", feed.id)),
                )
            ]
            for feed in feeds[:START_FEEDS]
        ]
    )


FULL_TEXT_BUTTONS = 20  # full-text switches under an operator's /feeds


def full_text_keyboard(feeds: list[FeedView], tr: Translator) -> InlineKeyboardMarkup | None:
    """Operators: a full-text switch for each feed that has it on or gives only excerpts."""
    shown = [f for f in feeds if f.full_text or f.excerpt_only][:FULL_TEXT_BUTTONS]
    if not shown:
        return None
    rows = []
    for feed in shown:
        label = (
            tr.gettext("Full text ✓: {feed}")
            if feed.full_text
            else tr.gettext("Full text: turn on for {feed}")
        )
        data = encode(Button("full", feed.id))
        rows.append(
            [InlineKeyboardButton(label.format(feed=_short(feed.slug)), callback_data=data)]
        )
    return InlineKeyboardMarkup(rows)


def offer_keyboard(
    offer: list[tuple[str, int | None]], token: str, label: str
) -> InlineKeyboardMarkup:
    """One button per feed found at an address: a watched one subscribes (`sub:ID`), a new one
    is added first (`add:TOKEN:N`). With one feed the button just says `label` (Subscribe)."""
    rows = []
    for number, (title, feed_id) in enumerate(offer[:9]):
        text = label if len(offer) == 1 else f"＋ {_short(title or label)}"
        if feed_id is not None:
            data = encode(Button("sub", feed_id))
        else:
            data = encode(Button("add", count=number, token=token))
        rows.append([InlineKeyboardButton(text, callback_data=data)])
    return InlineKeyboardMarkup(rows)


def _short(title: str, limit: int = 40) -> str:
    return title if len(title) <= limit else title[: limit - 1] + "…"


def backlog_keyboard(feed_id: int, tr: Translator) -> InlineKeyboardMarkup:
    also = tr.ngettext("Also the latest {count}", "Also the latest {count}", BACKLOG)
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    tr.gettext("Only new posts"),
                    callback_data=encode(Button("backlog", feed_id, 0)),
                )
            ],
            [
                InlineKeyboardButton(
                    also.format(count=BACKLOG),
                    callback_data=encode(Button("backlog", feed_id, BACKLOG)),
                )
            ],
        ]
    )


def language_keyboard() -> InlineKeyboardMarkup:
    """One button per language, each labelled in its own language."""
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(name, callback_data=encode(Button("lang", language=code)))]
            for code, name in LANGUAGES.items()
        ]
    )


LIST_PAGE = 20  # subscriptions per /list page: 3 buttons each, under Telegram's 100 a message


def page_of(subs: list[tuple[Audience, FeedView]], feed_id: int) -> int:
    """The /list page that shows this feed (0 when it is not there any more)."""
    index = next((i for i, (_, feed) in enumerate(subs) if feed.id == feed_id), 0)
    return index // LIST_PAGE


def list_view(
    subs: list[tuple[Audience, FeedView]],
    paused: bool,
    tr: Translator,
    page: int = 0,
    translate: bool = False,
    quiet: str | None = None,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """One page of the /list text and its keyboard: unsubscribe, edits and previews per feed,
    then ‹ › to the other pages when there are more than `LIST_PAGE` subscriptions."""
    _ = tr.gettext
    if not subs:
        return _(
            "This chat has no subscriptions. See /feeds, then /subscribe <i>feed name</i>."
        ), None
    pages = (len(subs) + LIST_PAGE - 1) // LIST_PAGE
    page = min(max(page, 0), pages - 1)
    header = _("<b>Subscriptions</b>")
    lines = [header if pages == 1 else f"{header} {page + 1}/{pages}"]
    rows = []
    for reader, feed in subs[page * LIST_PAGE : (page + 1) * LIST_PAGE]:
        lines.append(_list_line(reader, feed, tr))
        rows.append(
            [
                InlineKeyboardButton(
                    f"✖ {feed.slug}"[:40], callback_data=encode(Button("unsub", feed.id))
                ),
                InlineKeyboardButton(
                    _("edits on") if reader.edits else _("edits off"),
                    callback_data=encode(Button("edits", feed.id)),
                ),
                InlineKeyboardButton(
                    preview_label(reader, tr), callback_data=encode(Button("preview", feed.id))
                ),
            ]
        )
    turns = []
    if page > 0:
        turns.append(
            InlineKeyboardButton(f"‹ {page}", callback_data=encode(Button("page", count=page - 1)))
        )
    if page < pages - 1:
        turns.append(
            InlineKeyboardButton(
                f"{page + 2} ›", callback_data=encode(Button("page", count=page + 1))
            )
        )
    if turns:
        rows.append(turns)
    if translate:
        lines.append("\n" + _("Posts in other languages are translated (/translate off)."))
    if quiet:
        lines.append("\n" + _("Quiet hours: {window} (/quiet off).").format(window=quiet))
    if paused:
        lines.append("\n" + _("Notifications are paused: /resume to restart them."))
    return "\n".join(lines), InlineKeyboardMarkup(rows)


def _list_line(reader: Audience, feed: FeedView, tr: Translator) -> str:
    _ = tr.gettext
    extras = []
    if not reader.keywords.is_empty:
        words = describe_keywords(reader.keywords, tr)
        extras.append(_("keywords {keywords}").format(keywords=words))
    if not reader.edits:
        extras.append(_("no edits"))
    elif not reader.minor_edits:
        extras.append(_("substantive edits only"))
    if reader.preview:
        extras.append(_("link previews"))
    elif not reader.images:
        extras.append(_("no previews"))
    if reader.message_format == "title":
        extras.append(_("titles only"))
    elif reader.message_format == "full":
        extras.append(_("whole posts"))
    if reader.summary_mode == "model":
        extras.append(_("model summaries"))
    if reader.silent:
        extras.append(_("silent"))
    if reader.thread_id is not None:
        extras.append(_("topic {topic}").format(topic=reader.thread_id))
    tail = f" ({'; '.join(extras)})" if extras else ""
    line = f"{describe(reader.categories, tr)}{tail}"
    return f"<code>{esc(feed.slug)}</code> — {esc(feed.title)}: {esc(line)}"


def feed_names(feeds: list[FeedView], tr: Translator) -> str:
    return ", ".join(f"<code>{esc(f.slug)}</code>" for f in feeds) or tr.gettext("none yet")


def preview_label(reader: Audience, tr: Translator) -> str:
    """The /list button that cycles a feed's previews: image → link → off."""
    if reader.images:
        return tr.gettext("previews: image")
    return tr.gettext("previews: link") if reader.preview else tr.gettext("previews: off")
