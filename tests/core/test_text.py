"""Visible text and fingerprints: markup never counts, words always do."""

from __future__ import annotations

import re
import string
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core import text as text_module
from bot.core.text import (
    fingerprint,
    fold_spaces,
    fold_spaces_like_re,
    html_to_text,
    letters,
    normalize_text,
    same_words,
    sentence_diff,
    sentences,
    shorten,
    typography,
    typography_of,
    words_of,
)

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


def test_empty_or_blank_html_is_empty_text() -> None:
    assert html_to_text("") == "" and html_to_text("  \n ") == ""


def test_headings_lists_and_tables_keep_their_shape() -> None:
    assert html_to_text("<p>a</p><h2>Head</h2><p>b</p>") == "a\n\nHead\n\nb"
    table = "<table><tr><th>Name</th><th>Score</th></tr><tr><td>A</td><td>B</td></tr></table>"
    assert html_to_text(table) == "Name Score\nA B"
    assert html_to_text("<blockquote>Quoted.</blockquote><ol><li>x</li></ol>") == "Quoted.\n\n1. x"


def test_text_is_plain_not_escaped_for_markdown() -> None:
    """html2text escapes what Markdown would read as a list or a heading; a reader saw `1\\.`."""
    html = (
        "<p>1. First, then 2. second.</p><p>- A dash</p><p>+ A plus</p><p>a\\*b_c</p>"
        "<ul><li>bullet</li></ul><p>* starred</p>"
    )
    assert html_to_text(html) == (
        "1. First, then 2. second.\n\n- A dash\n\n+ A plus\n\na\\*b_c\n\nbullet\n\nstarred"
    )


def test_when_html2text_fails_tags_are_stripped_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    def choke(_self: object, _html: str) -> str:
        raise AssertionError("html2text choked")

    monkeypatch.setattr(text_module._Converter, "handle", choke)
    assert html_to_text("<p>One</p><p>two <b>three</b></p>") == "One two three"


def test_line_endings_and_controls_are_normalised() -> None:
    assert normalize_text("a\r\nb\rc\r\n\r\nd") == "a\nb\nc\n\nd"
    assert normalize_text("a\x00b\x1fc\x7fd\x9fe\tf") == "a b c d e f"
    assert normalize_text("  x \u3000 y  \n\n\n\n z ") == "x y\n\nz"


def test_sentences_split_after_cjk_and_latin_ends_and_drop_blank_lines() -> None:
    assert sentences("「一つ目。」二つ目！三つ目？ Four. Five\n \nsix") == [
        "「一つ目。」",
        "二つ目！",
        "三つ目？",
        "Four.",
        "Five",
        "six",
    ]


_SPLIT_BY_LOOKBEHINDS = re.compile(  # the first form of the rule, slower on long texts
    r"(?<=[.!?…])\s+|(?<=[。！？])(?![」』）〕】”’])\s*|(?<=[。！？][」』）〕】”’])\s*|\n+"
)


@given(st.text(st.sampled_from("ab1 .!?…。！？」』）〕】”’\n\t\u3000「"), max_size=60))
def test_sentences_end_where_the_lookbehind_rule_ends_them(value: str) -> None:
    expected = [p.strip() for p in _SPLIT_BY_LOOKBEHINDS.split(value) if p and p.strip()]
    assert sentences(value) == expected


_SPACE_RUN = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")  # as first written


@given(st.text(st.sampled_from(" \t\xa0\u2003\u200a\u200b\u202f\u205f\u3000\nab\u2028\x85")))
def test_spaces_fold_as_the_regex_folded_them(value: str) -> None:
    """`fold_spaces` is a translate and replace loop for speed; the meaning is the regex's."""
    assert fold_spaces(value) == _SPACE_RUN.sub(" ", value)


def _normalized_line_by_line(value: str) -> str:
    """normalize_text as first written: each line's spaces folded and stripped in a loop."""
    value = unicodedata.normalize("NFC", value).translate(text_module._INVISIBLE)
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    value = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]", " ", value)
    lines = [_SPACE_RUN.sub(" ", line).strip() for line in value.split("\n")]
    return text_module._BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


@given(st.text(st.sampled_from("ab \t\n\r\x0b\x1c\x85\xa0\u1680\u2000\u2028\u2029\u3000é\u0301")))
def test_text_is_normalised_as_line_by_line(value: str) -> None:
    assert normalize_text(value) == _normalized_line_by_line(value)


@given(st.text(st.characters(max_codepoint=127)))
def test_ascii_text_takes_the_byte_path_and_is_normalised_the_same(value: str) -> None:
    assert normalize_text(value) == _normalized_line_by_line(value)
    assert fold_spaces(value) == _SPACE_RUN.sub(" ", value)


def test_the_ascii_paths_skip_only_tables_without_ascii_entries() -> None:
    """ASCII text skips NFC and the invisible characters, and folds only the tab as a space."""
    assert [k for k in text_module._INVISIBLE if k < 128] == []
    assert [k for k in text_module._SPACES if k < 128] == [0x09]


def test_same_words_ignores_spacing_punctuation_case_and_width() -> None:
    assert same_words("It’s  a TEST, really.", "its a test really")
    assert same_words("ＡＢＣ１２３", "abc 123")
    assert same_words("VenueKoramangala", "Venue Koramangala")
    assert not same_words("Price 10", "Price 12")


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("abcdefghij", 10, "abcdefghij"),  # exactly the limit: untouched
        ("abcdefghijk", 10, "abcdefgh…"),  # the cut leaves room for the ellipsis and a space
        ("abcdef", 2, "a…"),  # at least one character
        ("Aaaa bbb! Cccc ddd eeeee", 16, "Aaaa bbb! …"),  # "!" at exactly half the limit
        ("Aaaa bbb? Cccc ddd eeeee", 16, "Aaaa bbb? …"),
        ("Aaaaaa. Bbbbb. Cc dd ee ff gg hh", 24, "Aaaaaa. Bbbbb. …"),  # the last end, not first
        ("Aaaaaa! Bbbbb! Cc dd ee ff gg hh", 24, "Aaaaaa! Bbbbb! …"),
        ("Aaaaaa? Bbbbb? Cc dd ee ff gg hh", 24, "Aaaaaa? Bbbbb? …"),
        ("Aaaa bbb. Cccc ddd eee", 17, "Aaaa bbb. …"),  # odd limit: half is rounded down
        ("Aaaa bbbb. Cc dd ee ff gg hh ii", 24, "Aaaa bbbb. Cc dd ee…"),  # too early a sentence
        ("Aaaaaaaa bbbbbbbbbbbbb", 17, "Aaaaaaaa…"),  # a word boundary at exactly half
        ("Aaaaaa bbbbbbbbbbbbbbb", 17, "Aaaaaa bbbbbbbb…"),  # too early a word boundary
        ("pay the TAX, then more words here", 16, "pay the TAX…"),  # trailing comma dropped
        ("list: a; b; c; d; e; f", 11, "list: a…"),
    ],
)
def test_shorten_boundaries(text: str, limit: int, expected: str) -> None:
    assert shorten(text, limit) == expected


def test_dashes_typed_as_two_hyphens_or_spaced_fold_to_one_hyphen() -> None:
    assert typography("well--done") == typography("well-done") == "well-done"
    assert typography("a -- b") == typography("a — b") == typography("a - b") == "a-b"
    assert fingerprint("T", "It is -- as said -- done") == fingerprint("T", "It is—as said—done")


def _letters_by_regex(value: str) -> str:
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", value).casefold())


@given(st.text())
def test_letters_are_the_regex_fold_on_any_text(value: str) -> None:
    assert letters(value) == _letters_by_regex(value)


@given(st.text(st.characters(max_codepoint=127)))
def test_letters_of_ascii_take_the_byte_path_and_agree(value: str) -> None:
    assert letters(value) == _letters_by_regex(value)


def test_letters_of_every_ascii_character() -> None:
    every = "".join(map(chr, range(128)))
    assert letters(every) == _letters_by_regex(every) == string.digits + string.ascii_lowercase * 2


_TYPOGRAPHY_PIECES = st.sampled_from(["a", " ", "-", "--", " - ", "’", "—", "…", "\x1f", "b."])


@given(st.lists(st.lists(_TYPOGRAPHY_PIECES, max_size=6).map("".join), max_size=12))
def test_typography_of_parts_is_each_part_folded(parts: list[str]) -> None:
    assert typography_of(parts) == [typography(part) for part in parts]


def test_sentences_hand_out_a_list_of_their_own() -> None:
    """The split is cached: a caller changing its list must not change the next caller's."""
    first = sentences("One. Two.")
    first.append("Three.")
    assert sentences("One. Two.") == ["One.", "Two."]


_SPACES = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())


def test_str_split_and_the_regex_know_the_same_whitespace() -> None:
    """`fold_spaces_like_re` relies on it: every code point, both ways."""
    assert re.findall(r"\s", "".join(map(chr, range(sys.maxunicode + 1)))) == list(_SPACES)


@given(st.text(st.sampled_from(["a", "b", ".", *_SPACES])))
def test_fold_spaces_like_re_is_the_regex_fold(text: str) -> None:
    assert fold_spaces_like_re(text) == re.sub(r"\s+", " ", text)


@given(st.text())
def test_fold_spaces_like_re_is_the_regex_fold_on_any_text(text: str) -> None:
    assert fold_spaces_like_re(text) == re.sub(r"\s+", " ", text)


_HTML_PIECES = st.sampled_from(
    ["<p>", "</p>", "<li>", "</li>", "<ul>", "<ol>", "</ol>", "<h2>", "</h2>", "<br>", "<b>",
     "</b>", "<pre>", "</pre>", "<abbr title=\"t\">", "</abbr>", "<head>", "</head>", "<td>",
     "</td>", "<table><tr>", "</tr></table>", "<blockquote>", "</blockquote>", "<a href=\"x\">",
     "</a>", "&nbsp;", "&amp;", " One. ", "two\n\t words", "  ", "\u3000", "\xa0", "é"]
)  # fmt: skip


@given(st.lists(_HTML_PIECES, max_size=40).map("".join))
def test_the_converter_folds_text_as_html2text_does(html: str) -> None:
    """`_Converter.o` replaces html2text's regex fold with `fold_spaces_like_re`: the text must
    be what html2text's own `o` gives."""
    import html2text

    class Plain(text_module._Converter):
        o = html2text.HTML2Text.o

    ours, plain = text_module._Converter(), Plain()
    assert text_module.configured(ours).handle(html) == text_module.configured(plain).handle(html)


@given(st.text())
def test_words_are_the_regex_words_on_any_text(value: str) -> None:
    assert words_of(value) == re.findall(r"\w+", value)


@given(st.text(st.characters(max_codepoint=127)))
def test_words_of_ascii_take_the_byte_path_and_agree(value: str) -> None:
    assert words_of(value) == re.findall(r"\w+", value)


def test_words_of_every_ascii_character() -> None:
    every = "".join(map(chr, range(128)))
    assert (
        words_of(every)
        == re.findall(r"\w+", every)
        == [
            "0123456789",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
            "_",
            "abcdefghijklmnopqrstuvwxyz",
        ]
    )


@given(st.text(st.sampled_from("ab `'-\"´’…\xa0") | st.characters(max_codepoint=127)))
def test_typography_of_ascii_text_is_the_table_fold(value: str) -> None:
    by_table = value.translate(text_module._TYPOGRAPHY).replace("--", "-").replace(" - ", "-")
    assert typography(value) == by_table
