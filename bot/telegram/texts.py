"""User-facing texts (Telegram HTML) as message ids, shared by several handlers.

Each is marked with `N_` so Babel extracts it, and translated with the chat's translator where
it is shown. A command's own menu and usage lines are declared with the command
(`commands/spec.py`).
"""

from __future__ import annotations

from bot.core.lang import N_
from bot.services.catalog import AddError

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
FEED_ERRORS: dict[AddError, str] = {
    AddError.ADDRESS: N_("That is not a web address. Send one like https://example.org/blog/."),
    AddError.BLOCKED: N_(
        "That address leads to a private network, and this bot only reads public websites."
    ),
    AddError.UNREACHABLE: N_(
        "Could not load that address. Check it in a browser, or try again later."
    ),
    AddError.SLOW: N_("That site did not answer in time. Try again later."),
    AddError.NOT_FEED: N_("This address is not a feed."),
    AddError.NO_FEED: N_("This address is not a feed, and the page links to none."),
    AddError.WATCHED: N_("This feed is watched already: see /feeds."),
    AddError.SLUG: N_(
        "That feed name is taken or not valid (1–64 lowercase letters, digits, dashes)."
    ),
    AddError.MAX_FEEDS: N_(
        "This bot watches as many feeds as it may ({max_feeds}). Ask its operator."
    ),
    AddError.MAX_USER: N_("You have added as many feeds as one person may ({max_user})."),
    AddError.BUSY: N_(
        "Still reading the last address you sent. Send the next one when it is done."
    ),
}

BUTTON_EXPIRED = N_("This button has expired. Use the command again.")
SLOW_DOWN = N_("Slow down, please: too many commands in a minute. Try again shortly.")
SOMETHING_WRONG = N_(
    "Sorry, something went wrong with that command. It has been logged; please try again later."
)
