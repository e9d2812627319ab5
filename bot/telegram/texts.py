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
    ("format", N_("title only, a summary, or the whole post")),
    ("summary", N_("summaries written by the bot's language model")),
    ("translate", N_("posts in other languages translated")),
    ("silent", N_("a feed's messages without sound")),
    ("pause", N_("pause every notification here")),
    ("resume", N_("resume notifications")),
    ("export", N_("this chat's subscriptions as OPML")),
    ("digest", N_("one summary per hour or day")),
    ("timezone", N_("this chat's time zone")),
    ("quiet", N_("hold messages at night, deliver them after")),
    ("language", N_("this chat's language")),
    ("channel", N_("manage a channel from here")),
]

USAGE = {
    "subscribe": N_(
        "/subscribe <i>feed name</i> or <i>address</i> — e.g. <code>/subscribe {feed}</code> "
        "or <code>/subscribe https://example.org/blog/</code> (see /feeds)"
    ),
    "unsubscribe": N_("/unsubscribe <i>feed name</i> or /unsubscribe all"),
    "categories": N_("/categories <i>feed name</i> — e.g. <code>/categories {feed}</code>"),
    "filter": N_(
        "/filter <i>feed name</i> CATEGORY[, CATEGORY…] — comma-separated, a leading - "
        "excludes; e.g. <code>/filter {feed} Blog, -Community</code>. Or rules by field "
        "(title, text, author, category, link; a leading - excludes, /…/ is a pattern): "
        "<code>/filter {feed} title:release -author:bot text:/v2\\.\\d+/</code>; "
        "<code>/filter all …</code> for every feed here; <code>/filter {feed} test</code> shows "
        "which recent posts pass; <code>/filter {feed} off</code> clears it"
    ),
    "keywords": N_(
        '/keywords <i>feed name</i> WORD[, "TWO WORDS"…] — a leading - excludes; e.g. '
        '<code>/keywords {feed} compiler, "open source", -webinar</code>; '
        "<code>/keywords {feed} off</code> clears them"
    ),
    "edits": N_(
        "/edits <i>feed name</i> all|substantive|off — every edit (the default; minor ones say "
        "so), substantive ones only (not typo fixes or a changed word), or none; e.g. "
        "<code>/edits {feed} substantive</code>"
    ),
    "preview": N_(
        "/preview <i>feed name</i> image|link|off — the post's image above the text (the "
        "default), Telegram's preview of its link, or none; e.g. <code>/preview {feed} link</code>"
    ),
    "format": N_(
        "/format <i>feed name</i> title|summary|full — the title and source only, a summary "
        "(the default), or the whole post; e.g. <code>/format {feed} full</code>"
    ),
    "summary": N_(
        "/summary <i>feed name</i> model|extract — a summary written by the bot's language "
        "model in this chat's language, or the post's own sentences (the default); e.g. "
        "<code>/summary {feed} model</code>"
    ),
    "translate": N_(
        "/translate on|off — posts in another language than this chat's come with their title "
        "and summary translated (the original title stays the link); keywords match the "
        "translation too"
    ),
    "silent": N_(
        "/silent <i>feed name</i> on|off — e.g. <code>/silent {feed} on</code>: its messages "
        "arrive without a notification sound"
    ),
    "digest": N_(
        "/digest <i>feed name</i> hourly|daily HH:MM|off — e.g. "
        "<code>/digest {feed} daily 08:30</code>"
    ),
    "timezone": N_("/timezone ZONE — e.g. <code>/timezone Europe/Berlin</code>"),
    "quiet": N_(
        "/quiet HH:MM-HH:MM|off — in this chat's time zone (/timezone); e.g. "
        "<code>/quiet 22:00-07:00</code>"
    ),
    "language": N_("/language en|zh|es — e.g. <code>/language es</code> (English, 中文, Español)"),
    "channel": N_(
        "/channel @name — manage a channel from this chat (the bot must be its administrator); "
        "<code>/channel off</code> comes back here"
    ),
    "addfeed": N_(
        "/addfeed URL [<i>feed name</i>] — e.g. "
        "<code>/addfeed https://example.org/feed/ example</code>"
    ),
    "removefeed": N_("/removefeed <i>feed name</i>"),
}

START = N_(
    "<b>Feedwatch</b> tells this chat when the blogs it watches publish a new post or really "
    "edit one."
)
START_PICK = N_("Tap a feed to subscribe:")
START_MORE = N_("(the first few of {count}; /feeds lists them all)")
START_EMPTY = N_(
    "No feeds are watched yet. Send a blog's address to follow it, e.g. "
    "<code>/subscribe https://example.org/blog/</code>"
)
START_EMPTY_CLOSED = N_("No feeds are watched yet: the bot's operators add them.")
START_HELP = N_("/help for every command.")
ADMINS_ONLY = N_("Only this group's administrators can change its subscriptions and filters.")
OPERATORS_ONLY = N_("Only the bot's operators can add or remove feeds.")
NO_MODEL = N_(
    "This bot has no language model set up, so summaries are the post's own sentences. "
    "Its operator can set one (MODEL_API_URL)."
)
SUMMARY_MODEL = N_(
    "Messages from <b>{title}</b> now have a summary written by the language model, in this "
    "chat's language (the post's own sentences whenever the model cannot answer)."
)
SUMMARY_EXTRACT = N_("Messages from <b>{title}</b> now summarise with the post's own sentences.")
TRANSLATE_ON = N_(
    "Translation on: posts in another language arrive with their title and summary in this "
    "chat's language."
)
TRANSLATE_OFF = N_("Translation off: posts arrive in their own language.")
FULL_TEXT_OPERATORS = N_("Only the bot's operators can change a feed's full text.")
# Under an operator's /feeds, above the full-text switches.
FULL_TEXT_ABOUT = N_(
    "\n<i>Full text</i>: for feeds that give only excerpts, the bot reads each new post's page "
    "and summarises the article."
)

# Told in a private chat while BOT_ADMIN_IDS is empty: how to become the operator.
NO_OPERATOR_YET = N_(
    "This bot has no operator yet, and /addfeed is for operators. Your Telegram user id is "
    "<code>{user_id}</code>: to make yourself the operator, set "
    "<code>BOT_ADMIN_IDS={user_id}</code> where the bot runs and restart it."
)
ANYONE_ADDS = N_("Meanwhile anyone can follow a blog here by sending its address.")
# Channels managed from a private chat (/channel).
CHANNEL_PRIVATE_ONLY = N_(
    "Send /channel in your private chat with the bot: channels are managed from there."
)
CHANNEL_HOW = N_(
    "To send a channel's posts there, add this bot to the channel as an administrator with "
    "the right to post messages, then tap <b>Choose a channel</b> below or send "
    "<code>/channel @name</code>. Your commands here then apply to that channel; "
    "<code>/channel off</code> comes back to this chat."
)
CHANNEL_NOW = N_("Commands here apply to the channel <b>{title}</b>.")
CHANNEL_CHOOSE = N_("Choose a channel")
CHANNEL_NOT_FOUND = N_(
    "Telegram knows no channel {channel} that this bot can see. Check the name, and add the "
    "bot to the channel as an administrator first."
)
NOT_A_CHANNEL = N_("<b>{title}</b> is not a channel. In a group, send the commands there.")
CHANNEL_MANAGED = N_(
    "Your commands here now apply to this channel: /subscribe, /list, /filter and the others "
    "change what it gets. <code>/channel off</code> comes back to this chat."
)
CHANNEL_OFF = N_("Your commands apply to this private chat again.")

# Subscribing by address (/subscribe URL, a pasted URL).
LOOKING = N_("Looking for a feed at {url}…")
FOUND_ONE = N_("Found the feed <b>{title}</b> at this address.")
FOUND_SEVERAL = N_("This page links to {count} feeds. Which one?")
SUBSCRIBE_BUTTON = N_("Subscribe")
ADDING_CLOSED = N_(
    "Only the bot's operators add new feeds here. Pick a watched one with /feeds, or ask an "
    "operator to add this one."
)
NEW_FEED = N_("Now watching <b>{title}</b> under the feed name <code>{slug}</code>.")
FEED_ERRORS = {
    "address": N_("That is not a web address. Send one like https://example.org/blog/."),
    "blocked": N_(
        "That address leads to a private network, and this bot only reads public websites."
    ),
    "unreachable": N_("Could not load that address. Check it in a browser, or try again later."),
    "slow": N_("That site did not answer in time. Try again later."),
    "not_feed": N_("This address is not a feed."),
    "no_feed": N_("This address is not a feed, and the page links to none."),
    "watched": N_("This feed is watched already: see /feeds."),
    "slug": N_("That feed name is taken or not valid (1–64 lowercase letters, digits, dashes)."),
    "max_feeds": N_("This bot watches as many feeds as it may ({max_feeds}). Ask its operator."),
    "max_user": N_("You have added as many feeds as one person may ({max_user})."),
    "busy": N_("Still reading the last address you sent. Send the next one when it is done."),
}

BUTTON_EXPIRED = N_("This button has expired. Use the command again.")
SLOW_DOWN = N_("Slow down, please: too many commands in a minute. Try again shortly.")
SOMETHING_WRONG = N_(
    "Sorry, something went wrong with that command. It has been logged; please try again later."
)


def usage(tr: Translator, name: str, feed: str = "blog") -> str:
    """A command's usage line, its examples naming one of this bot's feeds."""
    return tr.gettext(USAGE[name]).format(feed=feed)
