"""When operators hear about a feed: failing for a while, gone, moved, and back again; and
which feed spent a share of the language model's hour (`core/polls/shares.py`).

A feed's alert state is stored with it (None, `failing`, `gone` or `moved`), so each condition
is announced once when it starts and a failure once more when it ends, however many polls lie in
between. A failure is announced only after `threshold` of failing: most outages are a blip.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from bot.core.lang import ENGLISH, N_, Translator
from bot.core.messages.escape import esc
from bot.core.polls.decide import FeedIntent, FeedState, FeedStatus
from bot.core.polls.shares import Share, ShareKind
from bot.core.text import shorten
from bot.core.urls import shown_url


class AlertKind(StrEnum):
    FAILING = "failing"
    GONE = "gone"
    MOVED = "moved"
    RECOVERED = "recovered"
    CHURNING = "churning"  # core/detection/churn.py: said once when the habit is established


# A feed whose redirects go back and forth (or that moves again and again) is announced at most
# once in this long: the "moved" state outlives the healthy polls in between.
MOVED_QUIET = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class AlertStep:
    """What this poll does to the feed's alert state, and the message to send, if any."""

    state: str | None
    failing_since: datetime | None
    send: AlertKind | None = None


def alert_step(feed: FeedState, intent: FeedIntent, threshold: timedelta) -> AlertStep:
    now = intent.checked_at
    if intent.status is FeedStatus.GONE:
        send = AlertKind.GONE if feed.alert != AlertKind.GONE else None
        return AlertStep(AlertKind.GONE, feed.failing_since or now, send)
    if intent.status is FeedStatus.ERROR:
        since = feed.failing_since or now
        if feed.alert != AlertKind.FAILING and now - since >= threshold:
            return AlertStep(AlertKind.FAILING, since, AlertKind.FAILING)
        return AlertStep(feed.alert, since)
    if intent.new_url:
        send = AlertKind.MOVED if feed.alert != AlertKind.MOVED else None
        return AlertStep(AlertKind.MOVED, None, send)
    if feed.alert == AlertKind.MOVED and recently(feed, now):
        return AlertStep(AlertKind.MOVED, None)
    send = AlertKind.RECOVERED if feed.alert in (AlertKind.FAILING, AlertKind.GONE) else None
    return AlertStep(None, None, send)


def recently(feed: FeedState, now: datetime) -> bool:
    """Operators were told about this feed less than `MOVED_QUIET` ago."""
    return feed.alerted_at is not None and now - feed.alerted_at < MOVED_QUIET


_TEXTS = {
    AlertKind.FAILING: N_(
        "⚠️ Feed <b>{title}</b> (<code>{slug}</code>) has been failing since {since} UTC: {reason}"
    ),
    AlertKind.GONE: N_(
        "⛔ Feed <b>{title}</b> (<code>{slug}</code>) is gone (HTTP 410) and is no longer polled."
    ),
    AlertKind.MOVED: N_("➡️ Feed <b>{title}</b> (<code>{slug}</code>) moved permanently to {url}."),
    AlertKind.RECOVERED: N_("✅ Feed <b>{title}</b> (<code>{slug}</code>) works again."),
    AlertKind.CHURNING: N_(
        "🔁 Feed <b>{title}</b> (<code>{slug}</code>) gives its posts new identities on every "
        "poll. It keeps only its newest posts and is now polled at most once an hour."
    ),
}


def render_alert(
    kind: AlertKind,
    feed: FeedState,
    intent: FeedIntent,
    since: datetime | None,
    tr: Translator = ENGLISH,
) -> str:
    """The operator's message (Telegram HTML, everything from the feed escaped)."""
    return tr.gettext(_TEXTS[kind]).format(
        title=esc(shorten(feed.title or feed.slug, 200)),
        slug=esc(feed.slug),
        since=(since or intent.checked_at).strftime("%Y-%m-%d %H:%M"),
        reason=esc(shorten(intent.error or "", 300)),
        url=esc(shown_url(intent.new_url or "", operator=True)),
    )


_SPENT = {
    ShareKind.FEED: N_(
        "💸 Feed <b>{title}</b> (<code>{slug}</code>) spent its share of the language model: "
        "{calls} calls this hour. Its posts get extractive summaries until the next hour."
    ),
    ShareKind.OWNER: N_(
        "💸 Feed <b>{title}</b> (<code>{slug}</code>) spent the last of the {calls} model calls "
        "this hour of the user who added it ({user}). Their feeds get extractive summaries "
        "until the next hour."
    ),
    ShareKind.CHAT_FEEDS: N_(
        "💸 Feed <b>{title}</b> (<code>{slug}</code>) spent the last of the {calls} model calls "
        "this hour that chat-added feeds share. They get extractive summaries until the next "
        "hour; your own feeds keep the rest."
    ),
    ShareKind.ALL: N_(
        "💸 Feed <b>{title}</b> (<code>{slug}</code>) spent the last of the language model's "
        "{calls} calls this hour (MODEL_MAX_CALLS_PER_HOUR). Posts get extractive summaries "
        "until the next hour."
    ),
}


def render_spent(feed: FeedState, share: Share, tr: Translator = ENGLISH) -> str:
    """The operator's message naming the feed that spent a share of the model's hour."""
    return tr.gettext(_SPENT[share.kind]).format(
        title=esc(shorten(feed.title or feed.slug, 200)),
        slug=esc(feed.slug),
        calls=share.limit,
        user=feed.added_by or "",
    )
