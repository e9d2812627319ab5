"""`full` keeps the post's structure in Telegram HTML (issue 42): headings bold, quotes as
`<blockquote>`, code as `<code>`/`<pre>`, footnote markers dropped, and never a heading or a
sentence introducing a picture as the last line before "Read on the site →"."""

from __future__ import annotations

from bot.core.messages.render import render_change
from bot.core.messages.summary import summarize, whole_post
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from tests.support.telegram_html import assert_valid_telegram_html

POST = (
    "<p>We rewrote the tile cache this spring.</p>"
    "<h2>Why it was slow</h2>"
    "<p>Every request walked the whole index<sup><a href='#fn1'>1</a></sup>, so a busy map "
    "paid for it a thousand times a second.</p>"
    "<blockquote><p>Measure before you cache.</p></blockquote>"
    "<p>The fix was one call to <code>bisect_left</code> instead of a scan.</p>"
    "<pre>def find(keys, k):\n    return bisect_left(keys, k)</pre>"
    "<p>Here is the new latency chart:</p>"
    "<figure><img src='https://maps.example/chart.png'></figure>"
    "<p>Median latency fell from 40 ms to 3 ms.</p>"
)


def test_headings_quotes_code_and_footnotes_in_full() -> None:
    shown, complete = whole_post(POST)
    assert complete
    assert_valid_telegram_html(shown)
    assert "\n\n<b>Why it was slow</b>\n\n" in shown
    assert "index, so a busy map" in shown  # the footnote marker is gone, not glued on
    assert "<blockquote>Measure before you cache.</blockquote>" in shown
    assert "one call to <code>bisect_left</code> instead" in shown
    assert "<pre>def find(keys, k):\n    return bisect_left(keys, k)</pre>" in shown
    assert "chart:" not in shown  # it introduced a picture the message does not show
    assert shown.endswith("Median latency fell from 40 ms to 3 ms.")


def test_never_a_heading_or_an_intro_last_before_read_on_the_site() -> None:
    filler = "<p>" + "A sentence that takes room in the message. " * 8 + "</p>"
    post = filler * 6 + "<h2>Results</h2>" + filler * 6 + "<p>See below:</p><img src='x'>" + filler
    item = ParsedItem(
        "k", "Tiles", "https://maps.example/tiles", None, None, (), "", "f", 0, html=post
    )
    for limit in range(200, 3400, 150):
        shown, complete = whole_post(post, limit=limit)
        last = shown.rsplit("\n", 1)[-1]
        assert not complete and not last.startswith("<b>") and not last.endswith(":"), limit
    message = render_change(Change(ChangeKind.NEW, item), FeedInfo("m", "Maps"), form=Format.FULL)
    assert_valid_telegram_html(message)
    before, read_on = message.rsplit("\n\n", 1)
    assert read_on.startswith('<a href="https://maps.example/tiles">Read on the site')
    assert not before.rstrip().endswith(("</b>", ":"))


def test_inline_code_in_a_summary_too_and_no_code_inside_a_link() -> None:
    summary = summarize(
        "<p>Call <code>flush()</code> or see <a href='https://d.example/'><code>docs</code></a>.</p>"
    )
    assert summary == 'Call <code>flush()</code> or see <a href="https://d.example/">docs</a>.'


def _highlighted(lines: list[str]) -> str:
    """A Hexo/highlight.js figure: a gutter of line numbers beside the code, a <br> per line."""
    numbers = "<br>".join(f'<span class="line">{n}</span>' for n in range(1, len(lines) + 1))
    code = "<br>".join(f'<span class="line">{line}</span>' for line in lines)
    return (
        '<figure class="highlight cpp"><table><tr><td class="gutter"><pre>'
        f'{numbers}</pre></td><td class="code"><pre>{code}</pre></td></tr></table></figure>'
    )


def test_a_highlighted_code_block_is_one_block_without_its_gutter() -> None:
    body = "<p>The table, then the query.</p>" + _highlighted(["int a = 1;", "  return a;"])
    shown, complete = whole_post(body)
    assert complete
    assert shown == "The table, then the query.\n\n<pre>int a = 1;\n  return a;</pre>"


def test_a_long_code_block_does_not_end_the_summary_s_reading() -> None:
    code = _highlighted([f"step({n});" for n in range(80)])
    body = (
        '<h1>Sparse table</h1><p><a href="https://ref.example/st">Sparse table</a></p>'
        f"{code}<h1>Two pointers</h1><ul><li>Each query takes constant time.</li></ul>"
    )
    shown = summarize(body, title="Templates: sparse table and two pointers")
    assert "Each query takes constant time." in shown  # the code's 160 lines were 160 blocks
