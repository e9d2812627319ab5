"""What the bot shows besides plain replies: the /list view and the inline keyboards (their
button data is `buttons.py`'s codec)."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core.lang import Translator
from bot.core.messages.digest import DigestSchedule
from bot.core.messages.escape import esc
from bot.core.modes import EDITS, MODES, PREVIEW, Mode
from bot.core.rules.filters import describe, describe_keywords
from bot.core.types import Reader
from bot.db.store import SHOW, FeedView
from bot.runtime.i18n import LANGUAGES
from bot.services.subscribing import Overview
from bot.telegram.buttons import Action, Button, encode

BACKLOG = 3  # the most posts the "Also the latest" button sends
# The switches under each /list line: the mode each button steps through.
SWITCHES: dict[Action, Mode] = {Action.EDITS: EDITS, Action.PREVIEW: PREVIEW}

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
                    callback_data=encode(Button(Action.SUB, feed.id)),
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
        data = encode(Button(Action.FULL, feed.id))
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
            data = encode(Button(Action.SUB, feed_id))
        else:
            data = encode(Button(Action.ADD, count=number, token=token))
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
                    callback_data=encode(Button(Action.BACKLOG, feed_id, 0)),
                )
            ],
            [
                InlineKeyboardButton(
                    also.format(count=BACKLOG),
                    callback_data=encode(Button(Action.BACKLOG, feed_id, BACKLOG)),
                )
            ],
        ]
    )


def language_keyboard() -> InlineKeyboardMarkup:
    """One button per language, each labelled in its own language."""
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(name, callback_data=encode(Button(Action.LANG, language=code)))]
            for code, name in LANGUAGES.items()
        ]
    )


LIST_PAGE = 20  # subscriptions per /list page: 3 buttons each, under Telegram's 100 a message


def page_of(subs: list[tuple[Reader, FeedView]], feed_id: int) -> int:
    """The /list page that shows this feed (0 when it is not there any more)."""
    index = next((i for i, (_, feed) in enumerate(subs) if feed.id == feed_id), 0)
    return index // LIST_PAGE


def list_view(
    seen: Overview, tr: Translator, page: int = 0
) -> tuple[str, InlineKeyboardMarkup | None]:
    """One page of the /list text and its keyboard: per feed every rule and setting that is not
    the default, with unsubscribe, edits and previews buttons, then what holds for the whole
    chat, then ‹ › to the other pages when there are more than `LIST_PAGE` subscriptions."""
    _ = tr.gettext
    subs = seen.subscriptions
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
        lines.append(_list_line(reader, feed, seen.digests.get(feed.id), tr))
        rows.append(
            [
                InlineKeyboardButton(
                    f"✖ {feed.slug}"[:40], callback_data=encode(Button(Action.UNSUB, feed.id))
                ),
                *(
                    InlineKeyboardButton(
                        _(mode.buttons[reader.value_of(mode)]),
                        callback_data=encode(Button(action, feed.id)),
                    )
                    for action, mode in SWITCHES.items()
                ),
            ]
        )
    turns = []
    if page > 0:
        turns.append(
            InlineKeyboardButton(
                f"‹ {page}", callback_data=encode(Button(Action.PAGE, count=page - 1))
            )
        )
    if page < pages - 1:
        turns.append(
            InlineKeyboardButton(
                f"{page + 2} ›", callback_data=encode(Button(Action.PAGE, count=page + 1))
            )
        )
    if turns:
        rows.append(turns)
    chat_wide = _chat_lines(seen, tr)
    if chat_wide:
        lines.append("\n" + "\n".join(chat_wide))
    return "\n".join(lines), InlineKeyboardMarkup(rows)


def _chat_lines(seen: Overview, tr: Translator) -> list[str]:
    """What holds for every feed of the chat, said once under the list."""
    _ = tr.gettext
    lines = []
    if seen.rules:
        text = _("Rules for every feed: {rules} (/filter all off).")
        lines.append(text.format(rules=f"<code>{esc(_short(' '.join(seen.rules), 300))}</code>"))
    if seen.timezone != "UTC":
        lines.append(_("Time zone: {zone} (/timezone).").format(zone=esc(seen.timezone)))
    if seen.language is not None and seen.language in LANGUAGES:
        name = LANGUAGES[seen.language]
        lines.append(_("Language: {language} (/language).").format(language=name))
    if seen.translate:
        lines.append(_("Posts in other languages are translated (/translate off)."))
    if seen.quiet:
        lines.append(_("Quiet hours: {window} (/quiet off).").format(window=seen.quiet))
    if seen.paused:
        lines.append(_("Notifications are paused: /resume to restart them."))
    if seen.duplicates == SHOW:
        lines.append(_("A story from several feeds: quiet replies (/duplicates fold)."))
    if seen.digest_top is not None:
        text = _("One ranked digest for every feed, its {top} first (/digest all off).")
        lines.append(text.format(top=seen.digest_top))
    for title, until in seen.muted:
        text = _("Muted until {date}: {feed} (👎).")
        lines.append(text.format(date=tr.format_date(until), feed=esc(title)))
    if seen.weights:
        learned = ", ".join(f"{esc(w.shown)} {w.weight:+d}" for w in seen.weights[:12])
        lines.append(_("Learned from 👍/👎: {weights} (/tuning reset).").format(weights=learned))
    return lines


def _list_line(
    reader: Reader, feed: FeedView, digest: DigestSchedule | None, tr: Translator
) -> str:
    """A feed's line: its categories, then whatever else differs from the default."""
    _ = tr.gettext
    extras = []
    if not reader.keywords.is_empty:
        words = _short(describe_keywords(reader.keywords, tr), 200)
        extras.append(_("keywords {keywords}").format(keywords=words))
    if reader.rules:
        extras.append(_("rules {rules}").format(rules=_short(" ".join(reader.rules), 200)))
    if digest is not None and digest.at_text is not None:
        extras.append(_("daily digest at {time}").format(time=digest.at_text))
    elif digest is not None:
        extras.append(_("hourly digest"))
    for mode in MODES.values():
        label = mode.label(reader.value_of(mode))
        if label is not None:
            extras.append(_(label))
    if reader.thread_id is not None:
        extras.append(_("topic {topic}").format(topic=reader.thread_id))
    if reader.categories.is_empty and (reader.rules or not reader.keywords.is_empty):
        line = "; ".join(extras)  # not "all posts": the keywords or rules say what passes
    elif extras:
        line = f"{describe(reader.categories, tr)} ({'; '.join(extras)})"
    else:
        line = describe(reader.categories, tr)
    return f"<code>{esc(feed.slug)}</code> — {esc(feed.title)}: {esc(line)}"


def feed_names(feeds: list[FeedView], tr: Translator) -> str:
    return ", ".join(f"<code>{esc(f.slug)}</code>" for f in feeds) or tr.gettext("none yet")
