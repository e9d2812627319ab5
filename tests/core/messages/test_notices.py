"""Withdrawn/back notices (core/messages/notices.py): escaped, linked only to http(s)."""

from __future__ import annotations

from bot.core.lang import ENGLISH
from bot.core.messages.notices import FOLLOW_LABEL, TITLE_COLUMNS, render_notice


def test_withdrawn_and_back() -> None:
    text = render_notice(True, "Fares <2027> & more", 'https://x.example/a?b=1&c="2"', ENGLISH)
    assert text == (
        "<b>Withdrawn: this post is no longer on the site</b>\n"
        '<a href="https://x.example/a?b=1&amp;c=&quot;2&quot;">Fares &lt;2027&gt; &amp; more</a>'
    )
    back = render_notice(False, "T", "http://x.example/", ENGLISH)
    assert back == '<b>Back: this post is on the site again</b>\n<a href="http://x.example/">T</a>'


def test_no_title_and_no_safe_link() -> None:
    assert render_notice(True, "", "javascript:alert(1)", ENGLISH).endswith("\njavascript:alert(1)")
    assert render_notice(True, "", None, ENGLISH).endswith("</b>\n")
    long = render_notice(True, "w" * 500, None, ENGLISH)
    assert len(long.split("\n")[1]) <= TITLE_COLUMNS


def test_the_button_label() -> None:
    assert ENGLISH.gettext(FOLLOW_LABEL) == "🔔 Follow changes"
