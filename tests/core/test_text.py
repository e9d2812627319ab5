"""Visible text and fingerprints: markup never counts, words always do."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from bot.core.text import fingerprint, html_to_text, sentence_diff, shorten

words = st.text(alphabet=string.ascii_letters + "éü", min_size=1, max_size=10)
sentences_ = st.lists(words, min_size=1, max_size=8).map(lambda ws: " ".join(ws) + ".")
paragraphs = st.lists(sentences_, min_size=1, max_size=5)

attributes = st.sampled_from(
    [
        "",
        ' fetchpriority="high"',
        ' class="alignnone size-large wp-image-162764"',
        ' style="font-weight: 400;"',
        ' data-x="1" decoding="async"',
    ]
)


def render(paras: list[str], attr: str, img: str, link_query: str) -> str:
    out = [
        f'<p><img{attr} src="https://x.example/a.png?{img}" srcset="a.png 1x, b.png 2x" alt=""></p>'
    ]
    for index, para in enumerate(paras):
        if index == 0:
            out.append(f'<p{attr}><a href="https://x.example/p?{link_query}">{para}</a></p>')
        else:
            out.append(f"<p><span{attr}>{para}</span></p>")
    return "\n".join(out)


def fp(html: str, title: str = "Title") -> str:
    return fingerprint(title, html_to_text(html))


@given(
    paragraphs,
    attributes,
    attributes,
    st.text(string.ascii_letters, max_size=8),
    st.text(string.ascii_letters, max_size=8),
)
def test_fingerprint_ignores_markup_attributes_images_and_link_targets(
    paras: list[str], attr_a: str, attr_b: str, query_a: str, query_b: str
) -> None:
    a = render(paras, attr_a, "v=1", f"utm_source={query_a}")
    b = render(paras, attr_b, "v=2", f"utm_source={query_b}")
    assert fp(a) == fp(b)


@given(paragraphs, sentences_, attributes)
def test_fingerprint_reacts_to_added_text(paras: list[str], extra: str, attr: str) -> None:
    before = render(paras, attr, "", "")
    after = render([*paras, extra], attr, "", "")
    assert fp(before) != fp(after)


@given(paragraphs, words)
def test_fingerprint_reacts_to_title_changes(paras: list[str], suffix: str) -> None:
    html = render(paras, "", "", "")
    assert fp(html, "Title") != fp(html, "Title " + suffix)


def test_fetchpriority_move_from_the_seed_is_not_an_edit() -> None:
    with_prio = '<p><img fetchpriority="high" decoding="async" src="a.png"></p><p>Keynotes set.</p>'
    without = '<p><img decoding="async" src="a.png"></p><p>Keynotes set.</p>'
    assert fp(with_prio) == fp(without)


def test_html_to_text_keeps_words_drops_markup() -> None:
    text = html_to_text(
        '<p>Hello <b>big</b> <a href="https://t.example/?utm=1">world</a>!</p><ul><li>One</li><li>Two</li></ul>'
    )
    assert text == "Hello big world!\n\nOne\nTwo"


def test_sentence_diff_reports_added_and_removed_in_order() -> None:
    added, removed = sentence_diff("A one. B two. C three.", "A one. C three! D four. E five.")
    assert added == ("C three!", "D four.", "E five.")
    assert removed == ("B two.", "C three.")


@given(st.text(min_size=0, max_size=2000), st.integers(min_value=10, max_value=600))
def test_shorten_never_exceeds_the_limit(text: str, limit: int) -> None:
    short = shorten(text, limit)
    assert len(short) <= limit
    if len(text.strip()) <= limit:
        assert short == text.strip()
    else:
        assert short.endswith("…")


def test_shorten_prefers_a_sentence_then_a_word_boundary() -> None:
    text = "First sentence is here. Second sentence goes on and on and on."
    assert shorten(text, 40) == "First sentence is here. …"
    assert shorten("alpha beta gamma delta epsilon", 20) == "alpha beta gamma…"
