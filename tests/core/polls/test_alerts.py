"""Operator alerts: each condition told once when it starts, a failure once more when it ends."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from bot.core.polls.alerts import AlertKind, AlertStep, alert_step, render_alert, render_spent
from bot.core.polls.decide import FeedStatus
from bot.core.polls.shares import Fractions, ShareKind, shares_of
from tests.support.alerts import DAY, FEED, NOW, intent


def test_a_failure_is_told_once_after_the_threshold_and_its_end_once() -> None:
    first = alert_step(FEED, intent(FeedStatus.ERROR, error="HTTP 500"), DAY)
    assert first == AlertStep(None, NOW, None)
    failing = replace(FEED, failing_since=NOW)
    almost = alert_step(failing, intent(FeedStatus.ERROR, at=NOW + DAY - timedelta(seconds=1)), DAY)
    assert almost == AlertStep(None, NOW, None)
    told = alert_step(failing, intent(FeedStatus.ERROR, at=NOW + DAY), DAY)
    assert told == AlertStep(AlertKind.FAILING, NOW, AlertKind.FAILING)
    alerted = replace(failing, alert=AlertKind.FAILING)
    again = alert_step(alerted, intent(FeedStatus.ERROR, at=NOW + 3 * DAY), DAY)
    assert again == AlertStep(AlertKind.FAILING, NOW, None)
    back = alert_step(alerted, intent(FeedStatus.OK, at=NOW + 4 * DAY), DAY)
    assert back == AlertStep(None, None, AlertKind.RECOVERED)


def test_a_short_failure_that_ends_says_nothing() -> None:
    failing = replace(FEED, failing_since=NOW)
    assert alert_step(failing, intent(FeedStatus.OK), DAY) == AlertStep(None, None, None)


def test_gone_and_moved_are_told_at_once_and_once() -> None:
    gone = alert_step(FEED, intent(FeedStatus.GONE, error="HTTP 410 Gone"), DAY)
    assert gone == AlertStep(AlertKind.GONE, NOW, AlertKind.GONE)
    told = replace(FEED, alert=AlertKind.GONE, failing_since=NOW)
    assert alert_step(told, intent(FeedStatus.GONE), DAY).send is None
    moved = alert_step(FEED, intent(FeedStatus.OK, new_url="https://new.example/feed"), DAY)
    assert moved == AlertStep(AlertKind.MOVED, None, AlertKind.MOVED)
    told_moved = replace(FEED, alert=AlertKind.MOVED)
    assert alert_step(told_moved, intent(FeedStatus.OK, new_url="https://n.example/"), DAY) == (
        AlertStep(AlertKind.MOVED, None, None)
    )
    assert alert_step(told_moved, intent(FeedStatus.OK), DAY) == AlertStep(None, None, None)
    failing_after_move = alert_step(told_moved, intent(FeedStatus.ERROR), timedelta(0))
    assert failing_after_move.send is AlertKind.FAILING


def test_messages_name_the_feed_and_escape_what_it_sent() -> None:
    failing = intent(FeedStatus.ERROR, error="HTTP 500 <oops>", at=NOW + DAY)
    assert render_alert(AlertKind.FAILING, FEED, failing, NOW) == (
        "⚠️ Feed <b>Quillon &lt;Notes&gt;</b> (<code>quillon</code>) has been failing since "
        "2026-11-30 12:00 UTC: HTTP 500 &lt;oops&gt;"
    )
    assert render_alert(AlertKind.GONE, FEED, intent(FeedStatus.GONE), NOW) == (
        "⛔ Feed <b>Quillon &lt;Notes&gt;</b> (<code>quillon</code>) is gone (HTTP 410) and is "
        "no longer polled."
    )
    moved = intent(FeedStatus.OK, new_url="https://u:pw@new.example/feed?key=1&a=2")
    assert render_alert(AlertKind.MOVED, FEED, moved, None) == (
        "➡️ Feed <b>Quillon &lt;Notes&gt;</b> (<code>quillon</code>) moved permanently to "
        "https://new.example/feed?key=1&amp;a=2."
    )
    untitled = replace(FEED, title="")
    assert render_alert(AlertKind.RECOVERED, untitled, intent(FeedStatus.OK), None) == (
        "✅ Feed <b>quillon</b> (<code>quillon</code>) works again."
    )


def test_long_titles_and_reasons_are_cut() -> None:
    long = replace(FEED, title="t" * 201)
    failing = intent(FeedStatus.ERROR, error="e" * 301)
    text = render_alert(AlertKind.FAILING, long, failing, NOW)
    assert f"<b>{'t' * 198}…</b>" in text and text.endswith(f"UTC: {'e' * 298}…")
    exact = render_alert(
        AlertKind.FAILING,
        replace(FEED, title="t" * 200),
        intent(FeedStatus.ERROR, error="e" * 300),
        NOW,
    )
    assert f"<b>{'t' * 200}</b>" in exact and exact.endswith(f"UTC: {'e' * 300}")


def test_the_feed_that_spent_a_share_of_the_model_is_named() -> None:
    feed = replace(FEED, title="Cheap <b>tricks</b>", added_by=31337)
    every = shares_of(feed.id, False, feed.added_by, Fractions(per_hour=60))
    texts = {share.kind: render_spent(feed, share) for share in every}
    for text in texts.values():
        assert (
            "<b>Cheap &lt;b&gt;tricks&lt;/b&gt;</b>" in text and f"<code>{FEED.slug}</code>" in text
        )
    assert "its share" in texts[ShareKind.FEED] and "6 calls" in texts[ShareKind.FEED]
    assert "31337" in texts[ShareKind.OWNER] and "12 model calls" in texts[ShareKind.OWNER]
    assert "chat-added feeds" in texts[ShareKind.CHAT_FEEDS] and "30" in texts[ShareKind.CHAT_FEEDS]
    assert "MODEL_MAX_CALLS_PER_HOUR" in texts[ShareKind.ALL] and "60" in texts[ShareKind.ALL]
    untitled = render_spent(replace(feed, title=""), every[-1])
    assert f"<b>{FEED.slug}</b>" in untitled
