"""The poll plan (issue 24): one pure call says every write and every change of a poll. Each
test plans against what a previous plan stored, as storage would keep it."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from html import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.detection.identity import identity_of
from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import read_feed
from bot.core.messages.article import Article
from bot.core.messages.modeltext import ModelText
from bot.core.polls.alerts import AlertKind
from bot.core.polls.decide import FeedState, FetchResult, PollKind
from bot.core.polls.plan import Known, PollPlan, Rules, WriteKind, enriched, make_plan
from bot.core.text import FINGERPRINT_VERSION
from bot.core.types import ChangeKind, Identity, StoredItem

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DAY = datetime(2026, 11, 1, tzinfo=UTC)
RULES = Rules(interval_seconds=600, alert_after=timedelta(hours=6), keep_days=30, max_items=500)
POSTS = {n: f"Field note {n} records what the survey team measured on day {n}." for n in range(30)}


def rss(
    posts: dict[int, str],
    *,
    guid: str = "g",
    markup: str = "p",
    ttl: str = "",
    titles: dict[int, str] | None = None,
) -> bytes:
    titles = titles or {}
    items = "".join(
        f"<item><title>{titles.get(n, f'Note {n}')}</title><link>https://notes.example/{n}</link>"
        f"<guid>{guid}{n}</guid><pubDate>{format_datetime(DAY + timedelta(hours=n))}</pubDate>"
        f"<description>{escape(f'<{markup}>{text}</{markup}>')}</description></item>"
        for n, text in posts.items()
    )
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Field Notes</title>'
        f"<link>https://notes.example/</link>{ttl}{items}</channel></rss>"
    ).encode()


def feed(body: bytes | None = None, **changes: object) -> FeedState:
    values: dict[str, object] = {
        "id": 3,
        "slug": "notes",
        "url": "https://notes.example/feed",
        "title": "Field Notes",
        "etag": None,
        "last_modified": None,
        "trusted": True,
        "body_hash": hashlib.sha256(body).hexdigest() if body else None,
        "baseline_done": body is not None,
    }
    values.update(changes)
    return FeedState(**values)  # type: ignore[arg-type]


def kept(plan: PollPlan) -> dict[str, StoredItem]:
    """What storage keeps of a plan's writes (what `write_poll` would store)."""
    return {
        w.item.key: StoredItem(
            w.item.key,
            w.item.title,
            w.item.text,
            w.item.fingerprint,
            w.item.content_hash,
            FINGERPRINT_VERSION,
            link=w.item.link,
            published=w.item.published,
            identity=w.identity,
            full=w.item.full,
            excerpt_hash=w.item.excerpt_hash,
            volatile=w.volatile or (),
        )
        for w in plan.writes
    }


def poll(
    body: bytes,
    known: Known,
    *,
    articles: dict[str, Article] | None = None,
    model_texts: bool = False,
) -> PollPlan:
    raw = read_feed(body)
    stored = {k: v for k, v in known.stored.items() if k in {e.key for e in raw.entries}}
    known = replace(known, stored=stored)
    result = FetchResult(200, "https://notes.example/feed", body=body)
    plan = make_plan(known, result, raw, NOW, RULES)
    return enriched(plan, articles or {}, {}, model_used=model_texts)


def baseline(posts: dict[int, str]) -> tuple[bytes, dict[str, StoredItem]]:
    body = rss(posts)
    plan = poll(body, Known(feed()))
    return body, kept(plan)


def kinds(plan: PollPlan) -> dict[str, WriteKind]:
    return {w.item.key: w.kind for w in plan.writes}


def test_the_first_poll_inserts_everything_and_announces_nothing() -> None:
    plan = poll(rss({1: POSTS[1], 2: POSTS[2]}), Known(feed()))
    assert kinds(plan) == {"g1": WriteKind.INSERT, "g2": WriteKind.INSERT}
    assert plan.changes == () and plan.kind is PollKind.BASELINE
    assert plan.intent.parse and plan.intent.body_hash and (plan.items, plan.inserted) == (2, 2)
    assert plan.prune is not None and plan.prune.unseen_since == NOW - timedelta(days=30)
    assert (plan.prune.seen_at, plan.prune.keep, plan.prune_texts) == (NOW, 500, None)


def test_a_new_post_an_edit_and_an_untouched_post_each_get_their_write() -> None:
    body, stored = baseline({1: POSTS[1], 2: POSTS[2]})
    edited = POSTS[2].replace("measured", "measured twice, then corrected,")
    plan = poll(rss({1: POSTS[1], 2: edited, 3: POSTS[3]}), Known(feed(body), stored))
    assert kinds(plan) == {"g1": WriteKind.SEEN, "g2": WriteKind.EDIT, "g3": WriteKind.INSERT}
    assert [(c.kind, c.item.key) for c in plan.changes] == [
        (ChangeKind.EDITED, "g2"),
        (ChangeKind.NEW, "g3"),
    ]
    assert plan.kind is PollKind.CHANGED and (plan.items, plan.inserted) == (3, 1)


def test_markup_that_moved_without_the_text_is_a_markup_write_and_no_change() -> None:
    body, stored = baseline({1: POSTS[1]})
    plan = poll(rss({1: POSTS[1]}, markup="div"), Known(feed(body), stored))
    assert kinds(plan) == {"g1": WriteKind.MARKUP}
    assert plan.writes[0].identity == stored["g1"].identity
    assert plan.changes == () and plan.kind is PollKind.UNCHANGED


def test_a_guid_migration_re_keys_the_rows_and_rewrites_them_silently() -> None:
    posts = {n: POSTS[n] for n in range(1, 5)}
    body, stored = baseline(posts)
    raw = read_feed(rss(posts, guid="https://notes.example/?p="))
    plan = poll(
        rss(posts, guid="https://notes.example/?p="),
        Known(feed(body), {}, candidates=tuple(stored.values()), has_stored=True),
    )
    assert len(plan.rekeys) == 4 and plan.changes == ()
    assert {w.kind for w in plan.writes} == {WriteKind.REWRITE}
    assert {w.item.key for w in plan.writes} == {e.key for e in raw.entries}
    assert plan.notes is not None and "re-keyed 4 items" in plan.notes


def test_a_document_of_unknown_keys_on_a_feed_with_newer_posts_is_history() -> None:
    body, _ = baseline({20: POSTS[20]})
    known = Known(feed(body), {}, has_stored=True, newest=DAY + timedelta(hours=20))
    plan = poll(rss({1: POSTS[1], 2: POSTS[2]}), known)
    assert plan.changes == () and set(kinds(plan).values()) == {WriteKind.INSERT}
    alone = poll(rss({1: POSTS[1]}), Known(feed(body), {}, has_stored=False))
    assert [c.kind for c in alone.changes] == [ChangeKind.NEW]


def test_a_304_plans_no_writes() -> None:
    body = rss({1: POSTS[1]})
    plan = make_plan(Known(feed(body)), FetchResult(304, "u"), None, NOW, RULES)
    assert plan.intent.kind is PollKind.NOT_MODIFIED and plan.writes == () and plan.prune is None
    assert plan.alert.send is None


def test_a_body_that_is_not_a_feed_is_an_error_with_no_writes() -> None:
    result = FetchResult(200, "u", body=b"<html>hello</html>")
    plan = make_plan(Known(feed()), result, NotAFeed("not a feed: an HTML page"), NOW, RULES)
    assert plan.intent.kind is PollKind.ERROR and plan.intent.error == "not a feed: an HTML page"
    assert plan.writes == () and plan.intent.error_count == 1


def test_a_body_to_parse_must_be_read_first() -> None:
    with pytest.raises(
        ValueError, match=r"^a body to parse is read as a feed before the poll is planned$"
    ):
        make_plan(Known(feed()), FetchResult(200, "u", body=b"<rss/>"), None, NOW, RULES)


def test_the_pace_is_settled_once_with_the_bodys_own_ttl() -> None:
    plan = poll(rss({1: POSTS[1]}, ttl="<ttl>30</ttl>"), Known(feed()))
    assert (plan.intent.pace_seconds, plan.intent.ttl_seconds) == (1800, 1800)
    assert plan.intent.next_check_at == NOW + timedelta(seconds=1800)
    stale = poll(rss({1: POSTS[1]}), Known(feed(ttl_seconds=1800)))
    assert (stale.intent.pace_seconds, stale.intent.ttl_seconds) == (600, None)


def test_the_documents_title_names_a_feed_known_only_by_its_slug() -> None:
    assert poll(rss({1: POSTS[1]}), Known(feed(title="notes"))).title == "Field Notes"
    plan = poll(rss({1: POSTS[1]}), Known(feed(title="My notes")))
    assert plan.title is None and plan.shown_title == "My notes"


def test_a_new_post_with_its_page_read_is_shown_with_the_article() -> None:
    body, stored = baseline({1: POSTS[1]})
    page = Article(html="<p>The whole article, with every measurement of the day.</p>")
    plan = poll(
        rss({1: POSTS[1], 2: POSTS[2]}),
        Known(feed(body), stored),
        articles={"g2": page},
        model_texts=True,
    )
    (change,) = plan.changes
    assert change.item.html == page.html and change.item.full
    assert plan.articles == {"g2": page} and plan.prune_texts == NOW - timedelta(days=30)
    assert kinds(plan)["g2"] is WriteKind.INSERT  # detection kept the feed's own text


def test_enriching_adds_what_was_fetched_and_decides_nothing_again() -> None:
    body, stored = baseline({1: POSTS[1]})
    decided = make_plan(
        Known(feed(body), stored),
        FetchResult(200, "https://notes.example/feed", body=rss({1: POSTS[1], 2: POSTS[2]})),
        read_feed(rss({1: POSTS[1], 2: POSTS[2]})),
        NOW,
        RULES,
    )
    assert enriched(decided, {}, {}) is decided
    page = Article(html="<p>The whole article.</p>")
    other = Article(html="<p>Some other page.</p>")
    text = ModelText(summary="Short.")
    plan = enriched(decided, {"g2": page, "g1": other}, {"key": text})
    (change,) = plan.changes
    assert change.item.html == page.html and plan.model_texts == {"key": text}
    assert plan.articles == {"g2": page, "g1": other} and plan.prune_texts is None
    assert (plan.writes, plan.intent, plan.alert) == (decided.writes, decided.intent, decided.alert)
    used = enriched(decided, {}, {}, model_used=True)
    assert used.prune_texts == NOW - timedelta(days=30) and used.changes == decided.changes
    unpruned = enriched(replace(decided, prune=None), {}, {}, model_used=True)
    assert unpruned.prune_texts is None


def test_a_third_poll_in_a_row_of_all_new_keys_slows_the_feed() -> None:
    body, _ = baseline({1: POSTS[1]})
    posts = {n: POSTS[n] for n in range(10, 22)}
    plan = poll(rss(posts, guid="x"), Known(feed(body, churn_polls=2), {}, has_stored=True))
    assert plan.churn is not None and plan.churn.slowed and plan.churn.alert
    assert plan.intent.pace_seconds == 3600 and plan.intent.next_check_at == NOW + timedelta(
        hours=1
    )
    calm = poll(rss(posts, guid="x"), Known(feed(body, churn_polls=3), kept(plan)))
    assert calm.churn is not None and not calm.churn.slowed and calm.intent.pace_seconds == 600


@settings(max_examples=40, deadline=None)
@given(
    before=st.sets(st.integers(0, 29), min_size=1, max_size=8),
    after=st.sets(st.integers(0, 29), min_size=1, max_size=8),
    edited=st.sets(st.integers(0, 29), max_size=4),
)
def test_every_item_gets_exactly_one_write_and_only_new_or_edited_ones_are_told(
    before: set[int], after: set[int], edited: set[int]
) -> None:
    _, stored = baseline({n: POSTS[n] for n in sorted(before)})
    posts = {n: POSTS[n] + (" A late correction." if n in edited else "") for n in sorted(after)}
    older = feed(b"the document before this one")  # always a body to read
    plan = poll(rss(posts), Known(older, stored, has_stored=True))
    assert sorted(w.item.key for w in plan.writes) == sorted(f"g{n}" for n in after)
    for write in plan.writes:
        assert (write.kind is WriteKind.INSERT) == (write.item.key not in stored)
    told = {c.item.key: c.kind for c in plan.changes}
    for key, kind in told.items():
        expected = WriteKind.INSERT if kind is ChangeKind.NEW else WriteKind.EDIT
        assert kinds(plan)[key] is expected
    assert {k for k, v in kinds(plan).items() if v is WriteKind.EDIT} <= {
        f"g{n}" for n in edited & before & after
    }


def test_every_write_carries_the_identity_storage_keeps() -> None:
    body, stored = baseline({1: POSTS[1], 2: POSTS[2], 3: POSTS[3]})
    legacy = Identity("an-older-rule", None, None)  # made by an earlier canonicalisation
    stored["g1"] = replace(stored["g1"], identity=legacy)
    renamed = {2: "Note 2: the survey, measured again"}
    plan = poll(
        rss({1: POSTS[1], 2: POSTS[2], 3: POSTS[3], 4: POSTS[4]}, titles=renamed),
        Known(feed(body), stored),
    )
    writes = {w.item.key: w for w in plan.writes}
    assert writes["g1"].kind is WriteKind.SEEN and writes["g1"].identity == legacy  # kept
    assert writes["g2"].kind is WriteKind.EDIT
    for key in ("g2", "g3", "g4"):
        item = writes[key].item
        assert writes[key].identity == identity_of(key, item.link, item.title, item.published)
    assert writes["g2"].identity != stored["g2"].identity  # a new title, a new identity
    assert writes["g4"].kind is WriteKind.INSERT and writes["g3"].kind is WriteKind.SEEN


def test_a_changed_counter_is_remembered_with_the_row_and_then_absorbed() -> None:
    posts = {n: f"{POSTS[n]} Viewed {100 + n} times." for n in range(1, 11)}
    body, stored = baseline(posts)
    bumped = {n: f"{POSTS[n]} Viewed {200 + n} times." for n in range(1, 11)}
    plan = poll(rss(bumped), Known(feed(body), stored))
    assert plan.writes and all(w.volatile == ("Viewed|#", "#|times.") for w in plan.writes)
    again = {n: f"{POSTS[n]} Viewed {300 + n} times." for n in range(1, 11)}
    later = poll(rss(again), Known(feed(rss(bumped)), kept(plan)))
    assert later.changes == () and {w.kind for w in later.writes} == {WriteKind.REWRITE}
    assert all(w.identity == stored[w.item.key].identity for w in later.writes)
    assert all(w.volatile is None for w in later.writes)  # the remembered places still hold
    assert later.notes is not None and "counters" in later.notes


def test_every_plan_names_its_feed_and_its_alert_step() -> None:
    failing = feed(b"x", failing_since=NOW - timedelta(hours=7), error_count=3)
    error = make_plan(Known(failing), FetchResult(500, "u"), None, NOW, RULES)
    assert error.feed is failing and error.alert.send is AlertKind.FAILING
    html = FetchResult(200, "u", body=b"<html>a page</html>")
    wrong = make_plan(Known(failing), html, NotAFeed("not a feed"), NOW, RULES)
    assert wrong.feed is failing and wrong.alert.send is AlertKind.FAILING
    back = feed(b"x", failing_since=NOW - timedelta(hours=7), alert=AlertKind.FAILING)
    body = rss({1: POSTS[1]})
    result = FetchResult(200, "https://notes.example/feed", body=body)
    fine = make_plan(Known(back), result, read_feed(body), NOW, RULES)
    assert fine.feed is back and fine.alert.send is AlertKind.RECOVERED
    assert fine.prune_texts is None  # no model wrote for it


def test_the_plan_says_what_the_parser_worked_around_and_whether_all_are_excerpts() -> None:
    broken = rss({1: POSTS[1]}).replace(b"</channel>", b"<oops></channel>")
    plan = poll(broken, Known(feed()))
    assert plan.warning is not None and plan.warning.startswith("recoverable feed error")
    assert plan.excerpt_only is True  # a description only: an excerpt
    whole = " ".join([POSTS[1]] * 12)
    full = (
        '<?xml version="1.0"?><rss version="2.0" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>F</title>'
        "<item><guid>w1</guid><title>Whole</title><link>https://notes.example/w</link>"
        f"<content:encoded>{escape(f'<p>{whole}</p>')}</content:encoded></item>"
        "</channel></rss>"
    ).encode()
    assert poll(full, Known(feed())).excerpt_only is False
    assert poll(full, Known(feed())).warning is None


def test_a_first_poll_never_counts_as_churn_and_a_fresh_count_starts_at_zero() -> None:
    posts = {n: POSTS[n] for n in range(12)}
    first = poll(rss(posts), Known(feed()))
    assert first.churn is not None and first.churn.polls == 0
    body, _ = baseline({20: POSTS[20]})
    churning = poll(rss(posts, guid="x"), Known(feed(body), {}, has_stored=True))
    assert churning.churn is not None and churning.churn.polls == 1 and not churning.churn.slowed


def test_a_post_that_moved_to_another_link_is_rewritten_silently_with_its_new_identity() -> None:
    body, stored = baseline({1: POSTS[1]})
    moved = rss({1: POSTS[1]}).replace(b"https://notes.example/1<", b"https://notes.example/a/1<")
    plan = poll(moved, Known(feed(body), stored))
    (write,) = plan.writes
    assert write.kind is WriteKind.REWRITE and plan.changes == ()
    assert write.identity.canon_link != stored["g1"].identity.canon_link  # type: ignore[union-attr]
