"""User-facing texts (Telegram HTML) as message ids; usage lines double as wrong-argument replies.

Each is marked with `N_` so Babel extracts it, and translated with the chat's translator where
it is shown (`tr.gettext(texts.USAGE["filter"])`).
"""

from __future__ import annotations

from bot.core.lang import N_, Translator

COMMANDS: list[tuple[str, str]] = [
    ("start", N_("what this bot does")),
    ("help", N_("every command with an example")),
    ("feeds", N_("feeds this bot watches")),
    ("subscribe", N_("get a feed's new posts here")),
    ("unsubscribe", N_("stop a feed (or all)")),
    ("list", N_("this chat's subscriptions and filters")),
    ("categories", N_("categories seen on a feed")),
    ("filter", N_("only some categories from a feed")),
    ("keywords", N_("only posts with some words")),
    ("edits", N_("notify about edits or not")),
    ("preview", N_("the post's image, its link preview, or none")),
    ("silent", N_("a feed's messages without sound")),
    ("pause", N_("pause every notification here")),
    ("resume", N_("resume notifications")),
    ("export", N_("this chat's subscriptions as OPML")),
    ("digest", N_("one summary per hour or day")),
    ("timezone", N_("this chat's time zone")),
    ("language", N_("this chat's language")),
]

USAGE = {
    "subscribe": N_("/subscribe SLUG — e.g. <code>/subscribe lumen-blog</code> (see /feeds)"),
    "unsubscribe": N_("/unsubscribe SLUG or /unsubscribe all"),
    "categories": N_("/categories SLUG — e.g. <code>/categories lumen-blog</code>"),
    "filter": N_(
        "/filter SLUG CATEGORY[, CATEGORY…] — comma-separated, a leading - excludes; "
        "e.g. <code>/filter lumen-blog Blog, -Community, -Press Release</code>; "
        "<code>/filter SLUG off</code> clears it"
    ),
    "keywords": N_(
        '/keywords SLUG WORD[, "TWO WORDS"…] — a leading - excludes; e.g. '
        '<code>/keywords lumen-blog compiler, "open source", -webinar</code>; '
        "<code>/keywords SLUG off</code> clears them"
    ),
    "edits": N_("/edits SLUG on|off — e.g. <code>/edits lumen-blog off</code> for new posts only"),
    "preview": N_(
        "/preview SLUG image|link|off — the post's image above the text (the default), "
        "Telegram's preview of its link, or none; e.g. <code>/preview lumen-blog link</code>"
    ),
    "silent": N_(
        "/silent SLUG on|off — e.g. <code>/silent lumen-blog on</code>: its messages arrive "
        "without a notification sound"
    ),
    "digest": N_(
        "/digest SLUG hourly|daily HH:MM|off — e.g. <code>/digest lumen-blog daily 08:30</code>"
    ),
    "timezone": N_("/timezone ZONE — e.g. <code>/timezone Europe/Berlin</code>"),
    "language": N_("/language en|zh|es — e.g. <code>/language es</code> (English, 中文, Español)"),
    "addfeed": N_(
        "/addfeed URL [SLUG] — e.g. <code>/addfeed https://example.org/feed/ example</code>"
    ),
    "removefeed": N_("/removefeed SLUG"),
}

START = N_(
    "<b>Feedwatch</b> tells this chat when the blogs it watches publish a new post or really "
    "edit one."
)
START_PICK = N_("Tap a feed to subscribe:")
START_MORE = N_("(the first few of {count}; /feeds lists them all)")
START_EMPTY = N_("No feeds are watched yet: the bot's operator adds them with /addfeed URL.")
START_HELP = N_("/help for every command.")
ADMINS_ONLY = N_("Only this group's administrators can change its subscriptions and filters.")
OPERATORS_ONLY = N_("Only the bot's operators can add or remove feeds.")

# Told in a private chat while BOT_ADMIN_IDS is empty: how to become the operator.
NO_OPERATOR_YET = N_(
    "This bot has no operator yet, so nobody can add feeds. Your Telegram user id is "
    "<code>{user_id}</code>: to make yourself the operator, set "
    "<code>BOT_ADMIN_IDS={user_id}</code> where the bot runs and restart it."
)
BUTTON_EXPIRED = N_("This button has expired. Use the command again.")
SLOW_DOWN = N_("Slow down, please: too many commands in a minute. Try again shortly.")
SOMETHING_WRONG = N_(
    "Sorry, something went wrong with that command. It has been logged; please try again later."
)


def help_text(tr: Translator) -> str:
    """/help: what the bot does, then every command with an example, in the chat's language."""
    _ = tr.gettext

    def usage(name: str) -> str:
        return _(USAGE[name])

    lines = [
        _(
            "<b>Feedwatch</b> watches blog feeds and posts here when a new article appears or an "
            "article's text really changes (markup-only changes are ignored). Each message has "
            "the title, link, categories and a short summary; edits show what changed."
        ),
        "",
        _("<b>Commands</b>"),
        _("/feeds — the feeds this bot watches"),
        usage("subscribe"),
        usage("unsubscribe"),
        _("/list — this chat's subscriptions and their filters"),
        usage("categories"),
        usage("filter"),
        usage("keywords"),
        _(
            "Keywords match whole words in the title and text (Chinese and Japanese ones "
            "anywhere in it), ignoring case and accents; categories and keywords must both match."
        ),
        usage("edits"),
        usage("preview"),
        usage("silent"),
        _(
            "/pause and /resume — stop and restart every notification in this chat, keeping "
            "subscriptions and filters."
        ),
        _("A /subscribe sent inside a forum topic delivers into that topic."),
        _("/export — this chat's subscriptions as an OPML file."),
        _(
            "{digest} — collects the posts and sends one message per period, in the chat's "
            "time zone ({timezone})."
        ).format(digest=usage("digest"), timezone=usage("timezone")),
        _("{language} — the language of this chat's messages.").format(language=usage("language")),
        "",
        _("In groups, only administrators can change subscriptions and filters."),
        _("Operators can also use {addfeed} and {removefeed}.").format(
            addfeed=usage("addfeed"), removefeed=usage("removefeed")
        ),
    ]
    return "\n".join(lines)
