"""Chat commands, one module per area. A new command is declared once, in its area's
`COMMANDS` (`bot.telegram.spec.Command`: name, handler, menu line, usage, who may use it);
`app.py` wires the table below, the menu and /help read it.

- `start`: /start (and its deep links), /help, /feeds (+ operators' full-text switches)
- `subscriptions`: /subscribe, /unsubscribe, /list, /categories, /export (+ backlog, ✖ and
  /start's feed buttons)
- `importing`: an OPML file sent in any chat: its feeds checked like pasted links, subscribed
- `leaving`: /unsubscribe's question and answer, Undo (settings kept a while after leaving)
- `adding`: /subscribe URL, a pasted link, the buttons of the feeds found at an address
- `channels`: /channel (a channel managed from a private chat) and Telegram's chat picker
- `filters`: /filter (categories, field rules, `all`, the filter test)
- `settings`: /keywords, /edits, /preview, /format, /silent, /pause, /resume, /timezone,
  /quiet
  (+ switches)
- `models`: /summary, /translate (the operator's language model)
- `digests`: /digest
- `reactions`: 👍/👎 on posts (weights, a 👎's offers), /tuning
- `stories`: /duplicates (a story from several feeds: one message, or quiet replies)
- `follows`: /follow, /following (+ "Follow changes" under a post, ✖ under /following)
- `language`: /language (+ its buttons)
- `search`: /search (posts found by any version of their text)
- `operators`: /addfeed, /removefeed (operators only)
- `membership`: the bot added or removed, group upgrades, the error handler
- `current`: what a setting command says alone (the value, how to change it, buttons)
- `common`: what several areas' handlers share (feed lookup, admin checks, replies)
"""

from __future__ import annotations

from bot.telegram.buttons import Action
from bot.telegram.commands import (
    adding,
    channels,
    current,
    digests,
    filters,
    follows,
    language,
    leaving,
    models,
    operators,
    reactions,
    search,
    settings,
    start,
    stories,
    subscriptions,
)
from bot.telegram.spec import CommandTable, Handler

TABLE = CommandTable(
    (
        *start.COMMANDS,
        *subscriptions.COMMANDS,
        *filters.COMMANDS,
        *settings.COMMANDS,
        *models.COMMANDS,
        *digests.COMMANDS,
        *stories.COMMANDS,
        *reactions.COMMANDS,
        *follows.COMMANDS,
        *search.COMMANDS,
        *language.COMMANDS,
        *channels.COMMANDS,
        *operators.COMMANDS,
    )
)
# Each button action's handler (routed on the action word); anything else is expired.
BUTTONS: dict[Action, Handler] = {
    Action.BACKLOG: subscriptions.on_backlog,
    Action.UNSUB: subscriptions.on_unsub,
    Action.EDITS: settings.on_toggle,
    Action.PREVIEW: settings.on_toggle,
    Action.LANG: language.on_language_button,
    Action.SUB: subscriptions.on_subscribe_button,
    Action.PAGE: subscriptions.on_list_page,
    Action.ADD: adding.on_add_button,
    Action.FULL: start.on_full_text,
    Action.FOLLOW: follows.on_follow,
    Action.UNFOLLOW: follows.on_unfollow,
    Action.MODE: current.on_mode_button,
    Action.CHAT: models.on_chat_button,
    Action.LEAVE: leaving.on_leave,
    Action.KEEP: leaving.on_keep,
    Action.UNDO: leaving.on_undo,
    Action.UNDO_ALL: leaving.on_undo,
    Action.REJOIN: subscriptions.on_rejoin,
    Action.MUTE: reactions.on_mute,
    Action.FEWER: reactions.on_fewer,
    Action.EXCLUDE: reactions.on_exclude,
}
EXPIRED_BUTTON: Handler = subscriptions.on_expired
