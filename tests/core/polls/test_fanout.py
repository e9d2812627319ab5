"""Who receives each change of a poll (issue 41): every chat's rules once, the per-chat flood
rule, and from that exactly which new posts get a page and which chats the model writes for."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from bot.core.modes import Format, SummaryMode
from bot.core.polls.fanout import Fanout, route
from bot.core.types import Change, ChangeKind, KeywordFilter, ParsedItem, Reader, TextDiff

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def post(n: int, title: str | None = None) -> ParsedItem:
    return ParsedItem(
        f"k{n}", title or f"Post {n}", None, None, None, (), f"Text of post {n}.", "f", n
    )


def new(n: int, title: str | None = None) -> Change:
    return Change(ChangeKind.NEW, post(n, title))


def edit(n: int) -> Change:
    return Change(ChangeKind.EDITED, post(n), TextDiff(added=("more",)))


def keys(changes: tuple[Change, ...]) -> list[str]:
    return [c.item.key for c in changes]


def test_a_chat_whose_filter_passes_3_of_12_gets_them_alone_the_others_one_list() -> None:
    changes = [new(n, "Harbour news" if n in (2, 5, 9) else None) for n in range(12)]
    filtered = Reader(1, rules=("title:harbour",), summary_mode=SummaryMode.MODEL)
    everyone = Reader(2, summary_mode=SummaryMode.MODEL)
    fanout = route(changes, [filtered, everyone], NOW, max_new=10)
    mine, theirs = fanout.routes
    assert keys(mine.changes) == ["k2", "k5", "k9"] and mine.listed == ()
    assert theirs.changes == () and len(theirs.listed) == 12
    assert fanout.pages() == ["k2", "k5", "k9"]
    assert fanout.asks() == {k: (filtered,) for k in ("k2", "k5", "k9")}


def test_edits_still_come_one_by_one_to_a_flooded_chat() -> None:
    changes = [new(0), edit(7), new(1), new(2)]
    (only,) = route(changes, [Reader(1)], NOW, max_new=2).routes
    assert keys(only.changes) == ["k7"] and keys(only.listed) == ["k0", "k1", "k2"]
    (calm,) = route(changes, [Reader(1)], NOW, max_new=3).routes
    assert keys(calm.changes) == ["k0", "k7", "k1", "k2"] and calm.listed == ()
    assert calm.new == (changes[0], changes[2], changes[3])


def test_nothing_new_reads_no_page_and_asks_no_model() -> None:
    fanout = route([edit(1)], [Reader(1, summary_mode=SummaryMode.MODEL)], NOW, max_new=10)
    assert fanout.pages() == [] and fanout.asks() == {}


def test_digest_chats_see_pages_but_no_model_text_and_only_within_the_flood_bound() -> None:
    digest = Reader(1, digest=True, summary_mode=SummaryMode.MODEL)
    fanout = route([new(0), new(1)], [digest], NOW, max_new=2)
    assert fanout.pages() == ["k0", "k1"] and fanout.asks() == {}
    (held,) = fanout.routes
    assert keys(held.changes) == ["k0", "k1"]  # held one by one, never a list
    assert route([new(0), new(1), new(2)], [digest], NOW, max_new=2).pages() == []


def test_quiet_hours_hold_like_a_digest() -> None:
    quiet = Reader(1, quiet="11:00-13:00", summary_mode=SummaryMode.MODEL)
    (held,) = route([new(0)], [quiet], NOW, max_new=10).routes
    assert held.reader.digest and route([new(0)], [quiet], NOW, max_new=10).asks() == {}
    (awake,) = route([new(0)], [quiet], None, max_new=10).routes
    assert not awake.reader.digest
    evening = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)
    (outside,) = route([new(0)], [quiet], evening, max_new=10).routes
    assert not outside.reader.digest


def test_the_model_is_asked_only_for_chats_that_show_its_text() -> None:
    readers = [
        Reader(1),
        Reader(2, summary_mode=SummaryMode.MODEL),
        Reader(3, translate=True),
        Reader(4, summary_mode=SummaryMode.MODEL, message_format=Format.FULL),
    ]
    fanout = route([new(0)], readers, NOW, max_new=10)
    assert fanout.asks() == {"k0": (readers[1], readers[2])}


def test_a_feed_nobody_follows_keeps_its_pages_unless_flooded() -> None:
    assert route([new(0), edit(3)], [], NOW, max_new=2).pages() == ["k0"]
    exactly = route([new(0), new(1)], [], NOW, max_new=2)
    assert exactly.pages() == ["k0", "k1"] and exactly.max_new == 2
    assert route([new(0), new(1), new(2)], [], NOW, max_new=2).pages() == []


def test_keywords_that_search_the_models_text_wait_for_it() -> None:
    chinese = Reader(1, keywords=KeywordFilter(include=("寒武纪",)), translate=True, language="zh")
    plain = Reader(2, keywords=KeywordFilter(include=("寒武纪",)))
    changes = [new(0, "Cambricon joins"), new(1, "Meetup in Bengaluru")]
    fanout = route(changes, [chinese, plain], NOW, max_new=10)
    waiting, settled = fanout.routes
    assert waiting.waiting and keys(waiting.changes) == ["k0", "k1"]  # an upper bound
    assert not settled.waiting and settled.changes == ()
    assert list(fanout.asks()) == ["k0", "k1"]

    def searched(reader: Reader, change: Change) -> str:
        return "寒武纪 加入" if change.item.key == "k0" and reader.translate else ""

    done = fanout.settled(searched)
    assert keys(done.routes[0].changes) == ["k0"] and not done.routes[0].waiting
    assert done.routes[1] == settled
    backwards = route(changes, [plain, chinese], NOW, max_new=10).settled(searched)
    assert [keys(r.changes) for r in backwards.routes] == [[], ["k0"]]


def test_settling_applies_the_flood_rule_to_what_passed() -> None:
    reader = Reader(1, keywords=KeywordFilter(include=("match",)), summary_mode=SummaryMode.MODEL)
    changes = [new(n) for n in range(4)]
    fanout = route(changes, [reader], NOW, max_new=3)
    (flooded,) = fanout.routes
    assert flooded.waiting and len(flooded.listed) == 4 and fanout.pages() == []
    every = fanout.settled(lambda r, c: "match")
    assert keys(every.routes[0].listed) == ["k0", "k1", "k2", "k3"]
    some = fanout.settled(lambda r, c: "match" if c.item.key in ("k1", "k3") else "")
    assert keys(some.routes[0].changes) == ["k1", "k3"] and some.routes[0].listed == ()
    assert fanout.settled(lambda r, c: "").routes[0].changes == ()


def test_nothing_waits_when_no_chat_searches_the_models_text() -> None:
    fanout = route([new(0)], [Reader(1, keywords=KeywordFilter(include=("post",)))], NOW, 10)
    assert fanout.settled(lambda r, c: "ignored") is fanout


@given(
    passing=st.lists(st.booleans(), min_size=0, max_size=15),
    max_new=st.integers(1, 12),
    digest=st.booleans(),
)
def test_a_chat_gets_each_passing_post_once_alone_or_listed(
    passing: list[bool], max_new: int, digest: bool
) -> None:
    changes = [new(n, "wanted" if ok else "other") for n, ok in enumerate(passing)]
    reader = Reader(1, rules=("title:wanted",), digest=digest)
    fanout = route(changes, [reader], NOW, max_new)
    (one,) = fanout.routes
    wanted = [f"k{n}" for n, ok in enumerate(passing) if ok]
    assert keys(one.changes) + keys(one.listed) == wanted
    calm = len(wanted) <= max_new
    assert fanout.pages() == (wanted if calm else [])  # a flood reads no page, held or not
    if digest or calm:
        assert one.listed == ()
    else:
        assert one.changes == ()
    assert isinstance(fanout, Fanout) and fanout.max_new == max_new


def test_an_edit_goes_only_to_chats_told_about_its_post() -> None:
    """Issue 43: a chat that subscribed after a post never saw the text its edit is against."""
    told, late = Reader(1), Reader(2)
    changes = [edit(7), new(8)]
    fanout = route(changes, [told, late], NOW, max_new=10, told={(1, "k7")})
    assert [keys(r.changes) for r in fanout.routes] == [["k7", "k8"], ["k8"]]
    everyone = route(changes, [told, late], NOW, max_new=10)  # nothing known: as before
    assert [keys(r.changes) for r in everyone.routes] == [["k7", "k8"], ["k7", "k8"]]
    nobody = route(changes, [told, late], NOW, max_new=10, told=set())
    assert [keys(r.changes) for r in nobody.routes] == [["k8"], ["k8"]]


def test_substantive_edits_ask_the_model_once_per_language() -> None:
    minor = Change(ChangeKind.EDITED, post(5), TextDiff(added=("a",), removed=("b",), minor=True))
    readers = [
        Reader(1),
        Reader(2, language="es"),
        Reader(3, language="en"),
        Reader(4, digest=True),
    ]
    fanout = route([edit(7), minor, new(8)], readers, NOW, max_new=10)
    assert fanout.explains() == {"k7": {"en", "es"}}  # not the minor edit, not a digest chat


def test_settling_searches_the_title_and_the_text_of_each_post() -> None:
    reader = Reader(1, keywords=KeywordFilter(include=("harbour",)), translate=True)
    titled, texted = new(0, "Harbour news"), Change(ChangeKind.NEW, post(1))
    texted = Change(ChangeKind.NEW, replace(texted.item, text="The harbour ferry runs late."))
    fanout = route([titled, texted, new(2)], [reader], NOW, max_new=10)
    settled = fanout.settled(lambda r, c: "")
    assert keys(settled.routes[0].changes) == ["k0", "k1"]


def test_telegraph_pages_are_for_posts_a_chat_gets_whole_as_a_message() -> None:
    """Issue 47: a page only where a `full` message shows the post (now or after quiet hours),
    never for a summary, a title, a digest's line or a flood's list."""
    full = Reader(1, message_format=Format.FULL)
    summary = Reader(2)
    digest = Reader(3, message_format=Format.FULL, digest=True)
    quiet = Reader(4, message_format=Format.FULL, quiet="11:00-13:00")
    assert route([new(0), edit(5), new(1)], [full], NOW, max_new=10).full_reads() == ["k0", "k1"]
    assert (
        route([new(0)], [summary, Reader(5, message_format=Format.TITLE)], NOW, 10).full_reads()
        == []
    )
    assert route([new(0)], [digest], NOW, max_new=10).full_reads() == []
    assert route([new(0)], [quiet], NOW, max_new=10).full_reads() == ["k0"]
    assert route([new(0), new(1), new(2)], [full], NOW, max_new=2).full_reads() == []
    both = route([new(0)], [full, Reader(6, message_format=Format.FULL)], NOW, max_new=10)
    assert both.full_reads() == ["k0"]
