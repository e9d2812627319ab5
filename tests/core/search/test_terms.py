"""Search terms: one form for what is stored and what is asked (issue 45, outcome 4)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.core.search.query import Term
from bot.core.search.snippet import has
from bot.core.search.terms import (
    MAX_TERMS,
    MAX_TOKEN,
    Kind,
    index_text,
    is_cjk,
    pairs,
    query_tokens,
    runs,
    tokens,
)


def term(phrase: str, *, exact: bool = False) -> Term:
    found, prefix = query_tokens(phrase, exact=exact)
    return Term(phrase, found, prefix, exact)


def test_words_are_folded_and_split_at_everything_else() -> None:
    assert tokens("Café PRICES: $49.99 → Ｆｕｌｌ-width") == [
        "cafe",
        "prices",
        "49",
        "99",
        "full",
        "width",
    ]
    assert tokens("naïve Straße") == ["naive", "strasse"]
    assert tokens("e\u0301te") == ["ete"]  # a combining accent stays inside its word
    assert tokens("") == [] and tokens(" .,;!? ") == []
    assert tokens("½ snake_case it’s") == ["1", "2", "snake", "case", "it", "s"]


def test_cjk_runs_become_pairs_and_their_last_character() -> None:
    assert pairs("价格上涨") == ["价格", "格上", "上涨", "涨"]
    assert pairs("价") == ["价"]
    assert tokens("新价格。GPT模型・アイ") == [
        "新价",
        "价格",
        "格",
        "gpt",
        "模型",
        "型",
        "アイ",
        "イ",
    ]
    assert tokens("한국어 문장") == ["한국", "국어", "어", "문장", "장"]
    assert is_cjk("中") and is_cjk("カ") and is_cjk("𠀀") and not is_cjk("a")
    assert not is_cjk("\u303f") and is_cjk("\u3040") and is_cjk("\u30ff")
    assert not is_cjk("\u30ff\u0001"[1])


def test_index_text_is_the_title_then_the_text_bounded() -> None:
    assert index_text("Big News", "Prices rise.") == "big news prices rise"
    assert len(index_text("", "word " * (MAX_TERMS + 50)).split()) == MAX_TERMS
    assert tokens("x" * 100) == ["x" * MAX_TOKEN]


def test_query_tokens() -> None:
    assert query_tokens("price") == (("price",), True)
    assert query_tokens("price", exact=True) == (("price",), False)
    assert query_tokens("don't") == (("don", "t"), True)
    assert query_tokens("价格") == (("价格",), False)
    assert query_tokens("价格上涨") == (("价格", "格上", "上涨"), False)
    assert query_tokens("价") == (("价",), True)
    assert query_tokens("价", exact=True) == (("价",), True)
    assert query_tokens("模型gpt") == (("模型", "型", "gpt"), True)
    assert query_tokens("gpt模型") == (("gpt", "模型"), False)
    assert query_tokens("型gpt") == (("型", "gpt"), True)
    assert query_tokens("!!!") == ((), False)
    assert query_tokens("x" * 100) == (("x" * MAX_TOKEN,), True)


def test_a_word_and_a_phrase_are_found_where_the_index_has_them() -> None:
    stored = tokens("Registration closes on 1 October; student tickets are free.")
    assert has(stored, term("registration"))
    assert has(stored, term("regist"))
    assert not has(stored, term("regist", exact=True))
    assert has(stored, term("student tickets", exact=True))
    assert not has(stored, term("tickets student", exact=True))
    assert has(stored, term("free"))
    assert not has(stored, term("freedom"))
    stored = tokens("开源模型大会在杭州举行")
    assert has(stored, term("杭州")) and has(stored, term("模型大会")) and has(stored, term("行"))
    assert not has(stored, term("杭城"))


CJK = st.text(st.sampled_from("价格上涨模型大会杭州举行的了是新"), min_size=1, max_size=12)


@given(CJK, st.data())
def test_every_cjk_substring_is_found(text: str, data: st.DataObject) -> None:
    """Chinese has no spaces: any piece of a run is a word someone may search for."""
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    assert has(tokens(text), term(text[start:end]))


WORDS = st.lists(st.text("abcdé", min_size=1, max_size=6), min_size=1, max_size=8)


@given(WORDS, st.data())
def test_every_word_and_run_of_words_is_found(words: list[str], data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(words) - 1))
    end = data.draw(st.integers(start + 1, len(words)))
    stored = tokens(" ".join(words))
    assert has(stored, term(" ".join(words[start:end]), exact=True))
    assert has(stored, term(words[start][:2]))  # a beginning finds the word


@given(st.text(max_size=60))
def test_tokens_are_letters_and_digits_only(text: str) -> None:
    """Nothing a feed or a chat writes becomes FTS5 or tsquery syntax."""
    for token in tokens(text) + list(query_tokens(text)[0]):
        assert token and token.isalnum() and len(token) <= MAX_TOKEN


def _tokens_by_runs(text: str) -> list[str]:
    """What `tokens` gives, the plain way: every run, CJK ones as pairs."""
    out: list[str] = []
    for run_kind, run in runs(text):
        out.extend(pairs(run) if run_kind is Kind.CJK else [run[:MAX_TOKEN]])
    return out


MIXED = st.text(st.sampled_from("ab Z9_-.价格モデルéÉßＡ½\u0301한x" + "y" * 10), max_size=120)


@given(st.one_of(st.text(max_size=80), MIXED))
def test_tokens_is_its_runs_whatever_the_script(text: str) -> None:
    """The ASCII fast path (a whole text, or one word) gives exactly what the runs give."""
    assert tokens(text) == _tokens_by_runs(text)
    assert tokens(text * 7) == _tokens_by_runs(text * 7)  # long runs: the length cap
