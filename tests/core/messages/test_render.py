"""Messages: escaped, valid Telegram HTML, within 4096 UTF-16 units, and pleasant to read."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.feeds.parse import parse_feed
from bot.core.lang import ENGLISH
from bot.core.messages.render import render_change, telegram_length, to_plain
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem, TextDiff
from bot.runtime.i18n import LANGUAGES, translator
from tests.support.fixtures import blog
from tests.support.telegram_html import assert_valid_telegram_html

pieces = st.one_of(
    st.sampled_from([*"<>&\"'/;=#", "&amp;", "<b>", "</a>", "&lt;", "\u202e", "😀", "𝔘", "\x00"]),
    st.characters(),
    st.text(max_size=400),
)
nasty = st.lists(pieces, max_size=60).map("".join)


def make_item(
    title: str, text: str, link: str | None, cats: list[str], author: str | None
) -> ParsedItem:
    return ParsedItem(
        key="k",
        title=title,
        link=link,
        author=author,
        published=datetime(2026, 9, 8, 1, tzinfo=UTC),
        categories=tuple(cats),
        text=text,
        fingerprint="f",
        position=0,
    )


@settings(max_examples=150, deadline=None)
@given(
    title=nasty,
    text=nasty,
    link=st.one_of(st.none(), st.just('https://x.example/?a=1&b="2"<3>')),
    cats=st.lists(nasty, max_size=30),
    author=st.one_of(st.none(), nasty),
    feed_title=nasty,
    language=st.sampled_from(list(LANGUAGES)),
)
def test_new_item_messages_are_always_valid_and_short_enough(
    title: str,
    text: str,
    link: str | None,
    cats: list[str],
    author: str | None,
    feed_title: str,
    language: str,
) -> None:
    change = Change(ChangeKind.NEW, make_item(title, text, link, cats, author))
    message = render_change(change, FeedInfo("s", feed_title), translator(language))
    assert_valid_telegram_html(message)


def test_a_lone_surrogate_in_a_post_is_replaced_not_sent() -> None:
    """A JSON feed's "\\ud800" reaches the text and the summary's runs as a lone surrogate:
    the summary escaped it with html.escape alone, and the message could not be encoded."""
    for text, body in (("Odd \ud800", ""), ("", "<p>Broken \udfff here.</p>")):
        item = replace(make_item("Title", text, None, [], None), html=body)
        message = render_change(Change(ChangeKind.NEW, item), FeedInfo("s", "S"), translator("en"))
        assert_valid_telegram_html(message)
        assert "\ufffd" in message


@settings(max_examples=100, deadline=None)
@given(
    title=nasty,
    added=st.lists(nasty, max_size=40),
    removed=st.lists(nasty, max_size=40),
    old_title=st.one_of(st.none(), nasty),
    language=st.sampled_from(list(LANGUAGES)),
)
def test_edit_messages_are_always_valid_and_short_enough(
    title: str, added: list[str], removed: list[str], old_title: str | None, language: str
) -> None:
    diff = TextDiff(
        old_title=old_title,
        new_title=title if old_title is not None else None,
        added=tuple(added),
        removed=tuple(removed),
    )
    change = Change(ChangeKind.EDITED, make_item(title, "", "https://x.example/", [], None), diff)
    tr = translator(language)
    message = render_change(change, FeedInfo("s", "Feed"), tr)
    assert_valid_telegram_html(message)
    assert message.startswith("<b>" + tr.gettext("Updated: "))


def test_astral_characters_count_twice_toward_the_limit() -> None:
    emoji_text = "😀" * 5000
    change = Change(ChangeKind.NEW, make_item("😀" * 3000, emoji_text, None, [], None))
    message = render_change(change, FeedInfo("s", "F"))
    assert telegram_length(message) <= 4096
    assert telegram_length("😀") == 2


def test_script_in_a_title_is_shown_as_text_not_markup() -> None:
    change = Change(ChangeKind.NEW, make_item("<script>alert(1)</script> & co", "", None, [], None))
    message = render_change(change, FeedInfo("s", "F"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in message
    assert "<script>" not in message


def corvid_change() -> Change:
    parsed = parse_feed(blog.rss(blog.AFTER_POSTS))
    (item,) = [i for i in parsed.items if i.key == blog.CORVID.guid]
    return Change(ChangeKind.NEW, item)


def test_snapshot_of_the_corvid_membership_message() -> None:
    message = render_change(corvid_change(), FeedInfo("lumen", blog.FEED_TITLE))
    assert message == (
        '<b><a href="https://blog.lumen.example/corvid-labs-joins-as-platinum-member/">'
        "Corvid Labs Joins the Lumen Foundation as a Platinum Member</a></b>\n"
        "Lumen Blog · Lumen Foundation · 8 Sep 2026\n"
        "<i>Announcements</i>\n"
        "\n"
        "Corvid Labs designs accelerator chips for training and inference.\n"
        "\n"  # paragraphs stay apart (issue 25)
        "As a Platinum member it will help steer the foundation's hardware working group &amp; "
        "fund the &lt;continuous integration&gt; of new back ends."
    )
    assert_valid_telegram_html(message)


def test_snapshot_of_an_edit_message() -> None:
    parsed = parse_feed(blog.rss(blog.edited_posts()))
    (item,) = [i for i in parsed.items if i.key == blog.GUIDE.guid]
    diff = TextDiff(added=(blog.EDITED_SENTENCE,), removed=("Old wording was here.",))
    message = render_change(Change(ChangeKind.EDITED, item, diff), FeedInfo("lumen", "Lumen Blog"))
    assert message == (
        '<b>Updated: <a href="https://blog.lumen.example/guide-to-accelerators-at-lumenconf-2026/">'
        "Your Guide to Accelerators and Infrastructure at LumenConf 2026</a></b>\n"
        "Lumen Blog · Lumen Foundation · 4 Sep 2026\n"
        "<i>Events</i>\n"
        "\n"
        "<i>A paragraph added: “Registration closes on 1 October, and student tickets are…” "
        "(and 1 more change)</i>\n"
        "<b>Added:</b>\n"
        "+ Registration closes on 1 October, and student tickets are free.\n"
        "<b>Removed:</b>\n"
        "− Old wording was here."
    )


def test_long_summaries_are_three_whole_sentences() -> None:
    """Issue 25: the summary ends where a sentence ends (it used to stop mid-sentence at ~500
    characters with "…")."""
    text = " ".join(f"Sentence number {n} is here." for n in range(100))
    message = render_change(
        Change(ChangeKind.NEW, make_item("T", text, None, [], None)), FeedInfo("s", "F")
    )
    summary = message.split("\n\n", 1)[1]
    assert summary == " ".join(f"Sentence number {n} is here." for n in range(3))


def test_plain_fallback_keeps_the_link() -> None:
    plain = to_plain(render_change(corvid_change(), FeedInfo("lumen", blog.FEED_TITLE)))
    assert "<" not in plain.split("(")[0]
    assert "(https://blog.lumen.example/corvid-labs-joins-as-platinum-member/)" in plain
    assert "hardware working group & fund the <continuous integration>" in plain


def test_the_date_is_the_chat_s_date() -> None:
    """Issue 25: a Los Angeles chat read "8 Sep 2026" for a post published there on 7 Sep."""
    change = corvid_change()  # published 8 Sep 2026, 00:59 UTC
    info = FeedInfo("lumen", blog.FEED_TITLE)
    assert "· 8 Sep 2026" in render_change(change, info)
    assert "· 7 Sep 2026" in render_change(change, info, zone="America/Los_Angeles")
    assert "· 8 Sep 2026" in render_change(change, info, zone="Asia/Tokyo")
    assert "· 8 Sep 2026" in render_change(change, info, zone="Not/AZone")  # UTC then


def test_formats_title_summary_and_full() -> None:
    """Issue 25, `/format FEED title|summary|full`."""
    from dataclasses import replace

    from tests.support.fixtures.seed_posts import MEMBERSHIP

    info = FeedInfo("lumen", blog.FEED_TITLE)
    change = Change(ChangeKind.NEW, MEMBERSHIP)
    title = render_change(change, info, form=Format.TITLE)
    assert title.split("\n") == [
        f'<b><a href="{MEMBERSHIP.link}">{MEMBERSHIP.title}</a></b>',
        "Lumen Blog · Lumen Foundation · 8 Sep 2026",
    ]
    summary = render_change(change, info)
    full = render_change(change, info, form=Format.FULL)
    assert "Its engineers will join the hardware working group this autumn." in full
    assert "Its engineers" not in summary and "Read on the site" not in full  # all of it fits
    long = replace(
        MEMBERSHIP, html="".join(f"<p>Paragraph {n} has words. More words.</p>" for n in range(400))
    )
    cut = render_change(Change(ChangeKind.NEW, long), info, form=Format.FULL)
    assert cut.endswith(f'<a href="{MEMBERSHIP.link}">Read on the site →</a>')
    assert telegram_length(cut) <= 4096
    assert_valid_telegram_html(cut)
    # Issue 47: with the post's Telegraph page, the cut message links to it instead.
    page = "https://telegra.ph/Corvid-Labs-12-04?a=1&b=2"
    linked = render_change(Change(ChangeKind.NEW, long), info, form=Format.FULL, page=page)
    assert linked.endswith(
        '<a href="https://telegra.ph/Corvid-Labs-12-04?a=1&amp;b=2">'
        "Read the whole post in Instant View →</a>"
    )
    assert "Read on the site" not in linked and telegram_length(linked) <= 4096
    assert_valid_telegram_html(linked)
    assert render_change(change, info, form=Format.FULL, page=page) == full  # it fits: no page
    assert render_change(Change(ChangeKind.NEW, long), info, page=page) == render_change(
        Change(ChangeKind.NEW, long), info
    )  # a summary never links the page


def test_a_post_of_the_last_day_shows_its_time_of_day_in_the_chat_s_zone() -> None:
    """Issue 43, item 7: the date line had no time for posts published today."""
    from datetime import timedelta

    from bot.core.messages.render import dated

    now = datetime(2026, 9, 8, 12, 0, tzinfo=UTC)
    assert dated(now - timedelta(hours=2), ENGLISH, "UTC", now) == "8 Sep 2026 10:00"
    # In the chat's zone: 22:30 UTC on the 7th is 07:30 on the 8th in Tokyo.
    late = datetime(2026, 9, 7, 22, 30, tzinfo=UTC)
    assert dated(late, ENGLISH, "Asia/Tokyo", now) == "8 Sep 2026 07:30"
    assert dated(now - timedelta(days=1), ENGLISH, "UTC", now) == "7 Sep 2026 12:00"
    assert dated(now - timedelta(days=1, seconds=1), ENGLISH, "UTC", now) == "7 Sep 2026"
    assert dated(now + timedelta(minutes=30), ENGLISH, "UTC", now) == "8 Sep 2026 12:30"
    assert dated(now + timedelta(hours=1, seconds=1), ENGLISH, "UTC", now) == "8 Sep 2026"
    assert dated(now - timedelta(hours=2), ENGLISH, "UTC", None) == "8 Sep 2026"


def test_the_message_s_date_line_carries_the_time_when_the_poll_is_that_recent() -> None:
    from datetime import timedelta

    now = datetime(2026, 9, 8, 12, 0, tzinfo=UTC)
    post = ParsedItem(
        key="k",
        title="Fresh post",
        link="https://a.example/p",
        author=None,
        published=now - timedelta(hours=3),
        categories=(),
        text="Body.",
        fingerprint="f",
        position=0,
    )
    change, info = Change(ChangeKind.NEW, post), FeedInfo("a", "A")
    assert "8 Sep 2026 09:00" in render_change(change, info, now=now)
    assert "8 Sep 2026 09:00" not in render_change(change, info)
    from bot.core.messages.render import dated

    assert dated(now + timedelta(hours=1), ENGLISH, "UTC", now) == "8 Sep 2026 13:00"


def test_the_items_a_summary_leaves_out_are_counted_as_items_in_every_language() -> None:
    body = (
        "<p>This release brings:</p><ul>"
        + "".join(f"<li>Fix number {n} of the sync engine</li>" for n in range(9))
        + "</ul>"
    )
    item = replace(make_item("Kestrel 2.0", "", None, [], None), html=body)
    tails = {"en": "… and 4 more", "es": "… y 4 más", "zh": "……还有 4 条"}
    for language, tail in tails.items():
        message = render_change(
            Change(ChangeKind.NEW, item), FeedInfo("k", "K"), translator(language)
        )
        assert tail in to_plain(message), language  # "句" (sentences) was wrong for items
