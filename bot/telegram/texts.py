"""User-facing texts (Telegram HTML). Usage lines double as the answer to a wrong argument."""

from __future__ import annotations

COMMANDS: list[tuple[str, str]] = [
    ("start", "what this bot does"),
    ("help", "every command with an example"),
    ("feeds", "feeds this bot watches"),
    ("subscribe", "get a feed's new posts here"),
    ("unsubscribe", "stop a feed (or all)"),
    ("list", "this chat's subscriptions and filters"),
    ("categories", "categories seen on a feed"),
    ("filter", "only some categories from a feed"),
    ("keywords", "only posts with some words"),
    ("edits", "notify about edits or not"),
    ("preview", "link previews on or off"),
    ("pause", "pause every notification here"),
    ("resume", "resume notifications"),
    ("export", "this chat's subscriptions as OPML"),
    ("digest", "one summary per hour or day"),
    ("timezone", "this chat's time zone"),
]

USAGE = {
    "subscribe": "/subscribe SLUG — e.g. <code>/subscribe lumen-blog</code> (see /feeds)",
    "unsubscribe": "/unsubscribe SLUG or /unsubscribe all",
    "categories": "/categories SLUG — e.g. <code>/categories lumen-blog</code>",
    "filter": (
        "/filter SLUG CATEGORY[, CATEGORY…] — comma-separated, a leading - excludes; "
        "e.g. <code>/filter lumen-blog Blog, -Community, -Press Release</code>; "
        "<code>/filter SLUG off</code> clears it"
    ),
    "keywords": (
        '/keywords SLUG WORD[, "TWO WORDS"…] — a leading - excludes; e.g. '
        '<code>/keywords lumen-blog compiler, "open source", -webinar</code>; '
        "<code>/keywords SLUG off</code> clears them"
    ),
    "edits": "/edits SLUG on|off — e.g. <code>/edits lumen-blog off</code> for new posts only",
    "preview": "/preview SLUG on|off — e.g. <code>/preview lumen-blog on</code>",
    "digest": (
        "/digest SLUG hourly|daily HH:MM|off — e.g. <code>/digest lumen-blog daily 08:30</code>"
    ),
    "timezone": "/timezone ZONE — e.g. <code>/timezone Europe/Berlin</code>",
    "addfeed": "/addfeed URL [SLUG] — e.g. <code>/addfeed https://example.org/feed/ example</code>",
    "removefeed": "/removefeed SLUG",
}

HELP = (
    "<b>Feedwatch</b> watches blog feeds and posts here when a new article appears or an "
    "article's text really changes (markup-only changes are ignored). Each message has the "
    "title, link, categories and a short summary; edits show what changed.\n\n"
    "<b>Commands</b>\n"
    "/feeds — the feeds this bot watches\n"
    f"{USAGE['subscribe']}\n"
    f"{USAGE['unsubscribe']}\n"
    "/list — this chat's subscriptions and their filters\n"
    f"{USAGE['categories']}\n"
    f"{USAGE['filter']}\n"
    f"{USAGE['keywords']}\n"
    "Keywords match whole words in the title and text, ignoring case and accents; "
    "categories and keywords must both match.\n"
    f"{USAGE['edits']}\n"
    f"{USAGE['preview']}\n"
    "/pause and /resume — stop and restart every notification in this chat, keeping "
    "subscriptions and filters.\n"
    "A /subscribe sent inside a forum topic delivers into that topic.\n"
    "/export — this chat's subscriptions as an OPML file.\n"
    f"{USAGE['digest']} — collects the posts and sends one message per period, in the chat's "
    f"time zone ({USAGE['timezone']}).\n\n"
    "In groups, only administrators can change subscriptions and filters.\n"
    "Operators can also use "
    f"{USAGE['addfeed']} and {USAGE['removefeed']}."
)

ADMINS_ONLY = "Only this group's administrators can change its subscriptions and filters."
OPERATORS_ONLY = "Only the bot's operators can add or remove feeds."
SOMETHING_WRONG = (
    "Sorry, something went wrong with that command. It has been logged; please try again later."
)
