"""/follow, /following and the buttons: a post's changes followed for a period, then ended."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.core.lang import N_, Translator, UserError, then
from bot.core.messages.escape import esc, esc_attr
from bot.core.polls.follows import DEFAULT_DAYS, parse_follow
from bot.core.text import shorten
from bot.db.store.follows import Followed, Following
from bot.services.follows import FollowAnswer
from bot.telegram.buttons import Action, Button, encode
from bot.telegram.commands.common import pressed, topic_of
from bot.telegram.commands.subscriptions import edit
from bot.telegram.context import Context
from bot.telegram.spec import Command

TITLE_COLUMNS = 60


def _title(title: str, link: str | None) -> str:
    shown = esc(shorten(title, TITLE_COLUMNS)) or esc(link or "?")
    if link and link.startswith(("http://", "https://")):
        return f'<a href="{esc_attr(link)}">{shown}</a>'
    return shown


def answer_text(done: FollowAnswer, tr: Translator, most: int, *, html: bool = True) -> str:
    _ = tr.gettext
    title = _title(done.title, done.link) if html else shorten(done.title, TITLE_COLUMNS)
    if done.followed is None:
        return _("No post with that link is known here: send the link of a post a feed showed.")
    if done.followed is Followed.LIMIT:
        text = _("This chat already follows {limit} posts, the most allowed: /following.")
        return text.format(limit=most)
    assert done.until is not None
    text = _(
        "Following {title} until {date}: every real change is sent as a reply to its "
        "message, also after it leaves its feed."
    )
    return text.format(title=title, date=tr.format_date(done.until))


async def cmd_follow(update: Update, context: Context) -> None:
    """/follow LINK [DAYS]"""
    tr = await context.tr()
    if not await context.may_change():
        return
    try:
        asked = parse_follow(context.args_text)
    except UserError as exc:
        await context.reply(then(esc(exc.sentence(tr)), await context.usage("follow"), tr.language))
        return
    await context.remember_chat()
    thread_id = topic_of(update.effective_message)
    done = await context.svc.follows.follow_link(context.chat_id, asked.link, asked.days, thread_id)
    await context.reply(answer_text(done, tr, context.svc.settings.max_follows_per_chat))


def following_view(
    follows: list[Following], tr: Translator
) -> tuple[str, InlineKeyboardMarkup | None]:
    _ = tr.gettext
    if not follows:
        text = _("This chat follows no post. Press “Follow changes” under a post, or /follow LINK.")
        return text, None
    lines = [_("<b>Followed posts</b>")]
    rows = []
    for number, follow in enumerate(follows, start=1):
        until = _("until {date}").format(date=tr.format_date(follow.until))
        lines.append(f"{number}. {_title(follow.title, follow.link)} · {until}")
        label = f"✖ {number}. {shorten(follow.title, 30)}"
        data = encode(Button(Action.UNFOLLOW, feed_id=follow.item_id))
        rows.append([InlineKeyboardButton(label[:60], callback_data=data)])
    return "\n".join(lines), InlineKeyboardMarkup(rows)


async def cmd_following(update: Update, context: Context) -> None:
    """/following"""
    tr = await context.tr()
    if not await context.may_read():
        return
    follows = await context.svc.follows.listing(context.chat_id)
    await context.reply(*following_view(follows, tr))


async def on_follow(update: Update, context: Context) -> None:
    """“Follow changes” under a new post's message."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    await context.remember_chat()
    done = await context.svc.follows.follow_post(
        context.chat_id, button.feed_id, DEFAULT_DAYS, topic_of(query.message)
    )
    most = context.svc.settings.max_follows_per_chat
    await query.answer(answer_text(done, tr, most, html=False)[:200], show_alert=True)


async def on_unfollow(update: Update, context: Context) -> None:
    """✖ under /following."""
    found = await pressed(update, context)
    if found is None:
        return
    query, button = found
    tr = await context.tr()
    await context.svc.follows.unfollow(context.chat_id, button.feed_id)
    text, keyboard = following_view(await context.svc.follows.listing(context.chat_id), tr)
    await edit(query, text, keyboard)
    await query.answer(tr.gettext("No longer following it."))


COMMANDS = (
    Command(
        "follow",
        cmd_follow,
        about=N_("follow one post's changes for some days"),
        usage=N_(
            "/follow <i>post link</i> [days] — e.g. "
            "<code>/follow https://blog.example/post/ 30</code> (14 days if not given, at most "
            "60)"
        ),
    ),
    Command("following", cmd_following, about=N_("the posts this chat follows")),
)
