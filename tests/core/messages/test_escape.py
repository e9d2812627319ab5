"""`escape`: the one escape for Telegram HTML."""

from __future__ import annotations

from bot.core.messages.escape import esc, esc_attr


def test_text_escapes_markup_but_keeps_quotes_readable() -> None:
    assert esc('Say "hi" & <b>wave</b>') == 'Say "hi" &amp; &lt;b&gt;wave&lt;/b&gt;'


def test_attributes_escape_quotes_too() -> None:
    assert esc_attr('https://x.example/?a="1"&b=<2>') == (
        "https://x.example/?a=&quot;1&quot;&amp;b=&lt;2&gt;"
    )


def test_lone_surrogates_become_replacement_characters() -> None:
    assert esc("a\ud800b\udfff") == "a\ufffdb\ufffd" == esc_attr("a\ud800b\udfff")
    assert esc(42) == "42"
