"""Detection, round 3 (issue 26): Mastodon's media descriptions, JSON Feed 1.0's http://
version, paywall teasers, counters in one topic, typography, host rewrites and flapping caches,
each with the guards that keep the easy fixes honest. Fixtures in the shapes those generators
emit; the text is ours."""

from __future__ import annotations

import json
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.detection.edits import VERSION_MARK, Absorbed, judge, memory
from bot.core.feeds.parse import parse_feed
from bot.core.types import StoredItem
from tests.support.posts import post, was

MASTODON = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:webfeeds="http://webfeeds.org/rss/1.0" xmlns:media="http://search.yahoo.com/mrss/">
<channel><title>Ada (@ada@social.example)</title><link>https://social.example/@ada</link>
<item><guid isPermaLink="true">https://social.example/@ada/1130</guid>
<link>https://social.example/@ada/1130</link><pubDate>Mon, 30 Nov 2026 10:00:00 +0000</pubDate>
<description>&lt;p&gt;%s&lt;/p&gt;</description>
<media:content url="https://files.social.example/a.png" type="image/png" fileSize="1000" medium="image">
<media:rating scheme="urn:simple">nonadult</media:rating>
<media:description type="plain">A cat asleep on a keyboard</media:description>
</media:content></item></channel></rss>"""


def test_a_mastodon_post_s_text_is_its_description_not_the_image_alt_text() -> None:
    (before,) = parse_feed(MASTODON % b"Our new build runs twice as fast.").items
    assert before.text == "Our new build runs twice as fast."
    assert before.image == "https://files.social.example/a.png"
    (after,) = parse_feed(MASTODON % b"Our new build runs three times as fast.").items
    assert after.fingerprint != before.fingerprint  # the edit reaches the fingerprint


def test_plain_text_content_is_the_body_when_nothing_else_is() -> None:
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><id>1</id>'
        b'<title>Hi</title><content type="text">Plain body text.</content></entry></feed>'
    )
    (item,) = parse_feed(atom).items
    assert item.text == "Plain body text."


def test_json_feed_1_0_with_an_http_version_is_a_feed() -> None:
    body = json.dumps(
        {
            "version": "http://jsonfeed.org/version/1",
            "title": "Old plugin",
            "items": [{"id": "1", "url": "https://b.example/1", "content_html": "<p>Hi.</p>"}],
        }
    ).encode()
    (item,) = parse_feed(body, {"content-type": "application/json"}).items
    assert item.text == "Hi."


# --- edits: the rows of issue 26 and their guards ---------------------------------------------


FULL = (
    "The harbour opens a new pier on Monday. Boats of up to twelve metres may moor there. "
    "Fees stay as they are this year. The council thanks the divers who surveyed the bed."
)


def one(stored: StoredItem, item_text: str, **fields: object) -> object:
    item = post(stored.key, item_text, stored.title, **fields)  # type: ignore[arg-type]
    (verdict,) = judge([(stored, item)], known=10)
    return verdict


def test_a_post_turned_into_a_teaser_is_not_an_edit_even_alone() -> None:
    item = post("k", FULL)
    stored = was(item, FULL)
    teaser = "The harbour opens a new pier on Monday. Boats of up to twelve… Read more"
    assert one(stored, teaser).absorbed is Absorbed.EXCERPT  # type: ignore[attr-defined]
    paywall = "The harbour opens a new pier on Monday. This post is for paid subscribers."
    assert one(stored, paywall).absorbed is Absorbed.EXCERPT  # type: ignore[attr-defined]
    # Guard: an excerpt that is not the beginning of the stored text is an edit.
    other = "A different opening sentence entirely about ferries and tides. Read more"
    assert one(stored, other).diff is not None  # type: ignore[attr-defined]
    # Guard: the last paragraph removed (no cut mark) is an edit.
    shorter = FULL.rsplit(". ", 1)[0] + "."
    assert one(stored, shorter).diff is not None  # type: ignore[attr-defined]


def test_counters_in_one_topic_are_counters() -> None:
    item = post("t", "18 posts - 3 participants. Read the thread.")
    stored = was(item, "17 posts - 2 participants. Read the thread.")
    assert one(stored, item.text).absorbed is Absorbed.COUNTERS  # type: ignore[attr-defined]
    # Guard: a changed number in one post's prose (a price) is still an edit.
    priced = was(item, "Tickets cost 12 euros at the door.")
    assert one(priced, "Tickets cost 15 euros at the door.").diff is not None  # type: ignore[attr-defined]


def test_typography_is_not_an_edit_but_a_changed_word_still_is() -> None:
    curly = "It’s “done” — finally… Don’t panic."
    straight = "It's \"done\" - finally... Don't panic."
    item = post("q", straight)
    stored = was(item, curly)
    assert item.fingerprint == stored.fingerprint  # folded before hashing: not even a change
    changed = one(stored, 'It\'s "done" - finally... Do panic.')
    assert changed.diff is not None and changed.diff.added == ("Do panic.",)  # type: ignore[attr-defined]


def test_a_host_rewrite_in_the_text_is_not_an_edit() -> None:
    old = "Read the guide at https://old.example/guide before you start."
    new = "Read the guide at https://new.example/guide before you start."
    item = post("h", new, link="https://new.example/p/1")
    stored = replace(was(item, old), link="https://old.example/p/1")
    assert one(stored, new, link="https://new.example/p/1").absorbed is Absorbed.REHOSTED  # type: ignore[attr-defined]
    # Guard: a real change in the same poll is still an edit.
    edited = one(stored, new + " Bring a torch.", link="https://new.example/p/1")
    assert edited.diff is not None and edited.diff.added == ("Bring a torch.",)  # type: ignore[attr-defined]


def flap(versions: list[str], polls: int) -> int:
    """Serve the versions in turn for `polls` polls; count the edits announced."""
    item = post("f", versions[0])
    stored = was(item, versions[0])
    edits = 0
    for n in range(1, polls + 1):
        text = versions[n % len(versions)]
        new = post("f", text)
        if new.fingerprint == stored.fingerprint:
            continue
        (verdict,) = judge([(stored, new)], known=10)
        edits += verdict.diff is not None
        stored = replace(was(new, text), volatile=memory(verdict, stored))
    return edits


def test_two_caches_serving_old_and_new_text_in_turn_give_at_most_one_edit() -> None:
    assert flap([FULL, FULL + " A late correction."], 5) == 1
    # Guard: a paragraph added to one post is still an edit inside a flapping feed (once).
    assert (
        flap([FULL, FULL + " A late correction.", FULL + " A late correction. And more."], 6) == 2
    )


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=2, max_value=12))
def test_alternating_two_versions_over_n_polls_yields_at_most_one_edit(polls: int) -> None:
    assert flap([FULL, FULL.replace("Monday", "Tuesday")], polls) <= 1


def test_memory_keeps_counter_places_and_the_last_versions() -> None:
    item = post("m", FULL + " More.")
    stored = replace(
        was(item, FULL), volatile=("Score|#", f"{VERSION_MARK}aa", f"{VERSION_MARK}bb")
    )
    (verdict,) = judge([(stored, item)], known=10)
    kept = memory(verdict, stored)
    assert kept[0] == "Score|#" and kept[-1] == VERSION_MARK + stored.fingerprint
    assert sum(p.startswith(VERSION_MARK) for p in kept) == 3


_SWAPS = st.sampled_from([("'", "’"), ('"', "“"), ("-", "—"), ("...", "…")])


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.text(st.sampled_from("abc de'\"-."), min_size=5, max_size=60), min_size=3, max_size=8
    ),
    _SWAPS,
)
def test_swapping_typography_in_every_item_yields_no_edit_but_one_word_yields_one(
    texts: list[str], swap: tuple[str, str]
) -> None:
    plain, fancy = swap
    pairs = []
    for n, text in enumerate(texts):
        item = post(f"k{n}", text.replace(plain, fancy))
        pairs.append((was(item, text), item))
    changed = [(s, i) for s, i in pairs if s.fingerprint != i.fingerprint]
    assert all(v.diff is None for v in judge(changed, known=len(pairs)))
    stored, item = pairs[0]
    edited = post(item.key, item.text + " zebra")
    verdicts = judge([(stored, edited), *changed[1:]], known=len(pairs))
    assert sum(v.diff is not None for v in verdicts) == 1
