"""The language model's pure rules (issue 28): the post's language, which texts a post needs,
which text a chat gets, the cache key, and the model's answer read as untrusted text."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from bot.core.messages.modeltext import (
    _LINKLIKE,
    Kind,
    ModelText,
    Written,
    cache_key,
    explanation_prompt,
    instruction,
    language_of,
    needs,
    possible_keys,
    prompt,
    read_reply,
    version,
)
from bot.core.messages.render import render_change, to_plain
from bot.core.modes import Format, SummaryMode
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem, Reader, TextDiff
from tests.support.telegram_html import assert_valid_telegram_html

LINK = "https://blog.example/post/"
POST = ParsedItem("k", "Cambricon joins", LINK, None, None, (), "Body.", "f", 0)
NEW, EDIT = Change(ChangeKind.NEW, POST), Change(ChangeKind.EDITED, POST, TextDiff())


def reader(language: str | None = None, **kw: object) -> Reader:
    return Reader(chat_id=1, language=language, **kw)  # type: ignore[arg-type]


# --- the post's language -----------------------------------------------------------------------


def test_the_declared_language_wins_in_its_primary_form() -> None:
    assert language_of("en-US", "寒武纪加入基金会") == "en"
    assert language_of("zh_CN", "text") == "zh"
    assert language_of("ES", "text") == "es"
    assert language_of("x-klingon-9", "The text") == "en"  # not a language tag: guessed
    assert language_of("", "寒武纪加入了 PyTorch 基金会") == "zh"
    assert language_of("fil", "text") == "fil"  # three letters: ISO 639-2
    assert language_of("abcd", "The text") == "en"


def test_scripts_and_common_words_tell_the_rest() -> None:
    assert language_of(None, "Cambricon joins the PyTorch Foundation as a member") == "en"
    assert language_of(None, "La fundación anuncia que el proyecto se une a la comunidad") == "es"
    assert language_of(None, "カンブリコンが参加しました") == "ja"
    assert language_of(None, "캠브리콘이 합류했습니다") == "ko"
    assert language_of(None, "Камбрикон присоединяется к фонду") == "ru"
    assert language_of(None, "The PyTorch 2.5 release notes mention 寒武纪 support") == "en"
    assert language_of(None, "") == "en"
    # A script is the post's when it is at least a quarter of its letters.
    assert language_of(None, "字abc") == "zh" and language_of(None, "字abcd") == "en"
    # English wins a tie of common words; more Spanish ones make it Spanish.
    assert language_of(None, "el the") == "en" and language_of(None, "el la the") == "es"
    assert language_of(None, "el the of") == "en"


# --- which texts a post needs, and which a chat gets -------------------------------------------


def test_one_text_per_language_and_kind_whatever_the_number_of_chats() -> None:
    readers = [
        reader("zh", translate=True, message_format=Format.FULL),  # the whole post: no summary
        reader("zh", summary_mode=SummaryMode.MODEL),
        reader("zh", summary_mode=SummaryMode.MODEL),
        reader("es", translate=True),
        reader("en", translate=True),  # the post is English: nothing to translate
        reader(None),
    ]
    assert needs(readers, "en") == {("zh", Kind.SUMMARY), ("es", Kind.TRANSLATION)}
    assert needs([reader(None, summary_mode=SummaryMode.MODEL)], "en") == {("en", Kind.SUMMARY)}


def test_a_chat_gets_the_text_it_asked_for() -> None:
    texts = {
        ("zh", Kind.SUMMARY): ModelText("中文标题", "中文摘要。"),
        ("zh", Kind.TRANSLATION): ModelText("译名", "译文。"),
        ("en", Kind.SUMMARY): ModelText("Title", "English summary."),
    }
    written = Written("en", texts)
    assert written.for_reader(reader("zh", summary_mode=SummaryMode.MODEL), NEW) == ModelText(
        None, "中文摘要。"
    )
    both = written.for_reader(reader("zh", summary_mode=SummaryMode.MODEL, translate=True), NEW)
    assert both == ModelText("中文标题", "中文摘要。")
    assert written.for_reader(reader("zh", translate=True), NEW) == texts[("zh", Kind.TRANSLATION)]
    same = written.for_reader(reader("en", summary_mode=SummaryMode.MODEL, translate=True), NEW)
    assert same == ModelText(None, "English summary.")  # no title: the post is English
    assert written.for_reader(reader("en", translate=True), NEW) is None
    assert written.for_reader(reader("zh"), NEW) is None  # a chat that asked for nothing
    assert written.for_reader(reader("zh", summary_mode=SummaryMode.MODEL), EDIT) is None
    assert (
        written.for_reader(
            reader("zh", summary_mode=SummaryMode.MODEL, message_format=Format.FULL), NEW
        )
        is None
    )
    assert (
        written.for_reader(reader("es", summary_mode=SummaryMode.MODEL), NEW) is None
    )  # not written
    empty = Written("en", {("zh", Kind.SUMMARY): ModelText("t", None)})
    assert (
        empty.for_reader(reader("zh", summary_mode=SummaryMode.MODEL, translate=True), NEW) is None
    )


# --- the prompt and the cache key --------------------------------------------------------------


def test_the_prompt_sends_only_the_post_and_names_the_language() -> None:
    system, user = prompt(Kind.SUMMARY, "zh", "Title", "Body " * 5000)
    assert system["role"] == "system" and "Simplified Chinese" in system["content"]
    assert user["role"] == "user"
    assert user["content"].startswith("Title: Title\n\n") and len(user["content"]) < 6100
    assert "JSON" in system["content"]
    own = prompt(Kind.SUMMARY, "es", "T", "B", custom="Resume en una frase.")[0]["content"]
    assert own.startswith("Resume en una frase.") and "Spanish" not in own
    translate = prompt(Kind.TRANSLATION, "es", "T", "B", "The summary.")
    assert translate[0]["content"].startswith("Translate") and "Spanish" in translate[0]["content"]
    assert translate[1]["content"] == "Title: T\n\nSummary: The summary."
    assert "Klingon" in prompt(Kind.SUMMARY, "Klingon", "T", "B")[0]["content"]


def test_the_cache_key_changes_with_everything_that_shapes_the_answer() -> None:
    base = (Kind.SUMMARY, "zh", "m", "p", "Title", "Text")
    key = cache_key(*base)
    assert len(key) == 64 and key == cache_key(*base)
    for n, other in enumerate((Kind.TRANSLATION, "es", "m2", "p2", "Title 2", "Text 2")):
        changed = list(base)
        changed[n] = other
        assert cache_key(*changed) != key  # type: ignore[arg-type]
    # Keys are stored: they must not change between releases, or every post is asked again.
    assert key == "c9fc26995187dede84e1fe216730b9eae5289450e8e6f9c6810ea9dc84a529cb"
    lone = cache_key(Kind.SUMMARY, "zh", "m", "p", "a \ud800 lone surrogate", "Text")
    assert len(lone) == 64  # a feed's broken text still has a key
    long = "x" * 7000
    assert cache_key(Kind.SUMMARY, "zh", "m", "p", "T", long) == cache_key(
        Kind.SUMMARY, "zh", "m", "p", "T", long + "more"
    )  # past what is sent, nothing changes the answer


def test_a_posts_version_is_the_feeds_content_and_whether_its_page_is_read() -> None:
    assert version("abc", False) == "abc\x1ffeed" and version("abc", True) == "abc\x1fpage"


def test_the_keys_read_with_the_poll_cover_every_text_a_chat_may_ask_for() -> None:
    readers = [
        Reader(1, language="zh", summary_mode=SummaryMode.MODEL),
        Reader(2, language="es", translate=True),
        Reader(3, language="zh", summary_mode=SummaryMode.MODEL, message_format=Format.FULL),
        Reader(4),
    ]
    posts = [("Title one", version("h1", False)), ("Title two", version("h2", True))]
    keys = possible_keys(posts, readers, "m", "Be brief.")
    expected = [
        cache_key(kind, language, "m", instruction(kind, language, custom), title, seen)
        for title, seen in posts
        for language, kind, custom in (
            ("es", Kind.TRANSLATION, ""),
            ("zh", Kind.SUMMARY, "Be brief."),
        )
    ]
    assert keys == expected
    assert possible_keys(posts, [Reader(4)], "m") == []
    plain = instruction(Kind.SUMMARY, "en")
    assert plain.startswith("Summarise the blog post below in English")
    assert possible_keys(posts[:1], readers[:1], "m") == [
        cache_key(Kind.SUMMARY, "zh", "m", instruction(Kind.SUMMARY, "zh"), *posts[0])
    ]
    # What the poll asks later is found under the same key.
    system = prompt(Kind.SUMMARY, "zh", "Title one", "Body", custom="Be brief.")[0]["content"]
    assert system == instruction(Kind.SUMMARY, "zh", "Be brief.")
    assert cache_key(Kind.SUMMARY, "zh", "m", system, *posts[0]) in keys


# --- the answer, as untrusted text -------------------------------------------------------------


def answer(title: object = None, summary: object = None) -> str:
    return json.dumps({"title": title, "summary": summary})


def test_json_answers_and_prose() -> None:
    assert read_reply(answer("标题", "摘要。")) == ModelText("标题", "摘要。")
    assert read_reply('```json\n{"title": "T", "summary": "S."}\n```') == ModelText("T", "S.")
    assert read_reply("Just a sentence about it.") == ModelText(None, "Just a sentence about it.")
    assert read_reply('{"title": "T", "summary": "cut of') is None  # truncated JSON: nothing
    assert read_reply("[1, 2]") is None
    assert read_reply(answer(3, ["x"])) is None
    assert read_reply(answer("", "   ")) is None
    assert read_reply(answer("Only a title", None)) == ModelText("Only a title", None)


def test_markup_and_foreign_links_are_removed_and_the_posts_own_link_kept() -> None:
    got = read_reply(
        answer(
            '<a href="https://evil.example/">Click</a> <b>now</b>',
            f"See https://evil.example/x and www.evil.example or {LINK} — <i>fine</i> &amp; ok.",
        ),
        LINK,
    )
    assert got is not None and got.title == "Click now"
    assert got.summary == f"See and or {LINK} — fine & ok."
    assert read_reply(answer(None, f"Read {LINK}"), None) == ModelText(None, "Read")
    assert read_reply(answer(f"At {LINK}", "S."), LINK) == ModelText(f"At {LINK}", "S.")


ATTACK = (
    "Reset your password at evil-login.example/reset or tg://resolve?domain=evilbot and @evilbot"
)


def summary_of(text: str, own_text: str = "", own_link: str | None = LINK) -> str | None:
    got = read_reply(answer(None, text), own_link, own_text)
    return None if got is None else got.summary


def test_every_link_like_form_not_in_the_post_is_dropped() -> None:
    assert summary_of(ATTACK) == "Reset your password at or and"
    for form in (
        "tg:resolve?domain=evilbot",
        "TG://resolve",
        "mailto:help@evil.example",
        "help@evil.example",
        "t.me/evilbot",
        "https://t.me/evilbot",
        "evil-login.example",
        "www.evil.example/login?x=1",
        "evil-login\uff0eexample/reset",  # a full-width dot
        "пример.рф/вход",
        "xn--e1afmkfd.xn--p1ai",
        "evil.example:8443/x",
        "@evil_bot",
        "javascript:alert(1)",
        "://",
        "ftp://files.evil.example/",
        "ht\u200btp://evil.example",  # joined once the zero-width space is removed
    ):
        assert summary_of(f"Go to {form} now.") == "Go to now.", form
    assert summary_of("请访问evil.example/reset 领取") == "请访问 领取"
    assert summary_of("Go to (evil.example/reset).") == "Go to ("
    assert summary_of("Ok -t.me/evil, t.me-") == "Ok"
    assert summary_of("Ok @evil@evil x@evil.example@evil") == "Ok"


def test_links_and_handles_the_post_itself_shows_are_kept() -> None:
    post = "Docs at docs.lumen.example/start, support @LumenHelp, mail team@lumen.example."
    said = "See docs.lumen.example/start or ask @lumenhelp (team@lumen.example)."
    assert summary_of(said, post) == said
    assert summary_of(said.replace("docs.", "evil."), post) == (
        "See or ask @lumenhelp (team@lumen.example)."
    )
    assert summary_of(f"More in ({LINK}).") == f"More in ({LINK})."
    assert summary_of(f"More at {LINK}") == f"More at {LINK}"
    assert summary_of(f"More at {LINK}", own_link=None) == "More at"
    titled = read_reply(answer("Start at docs.lumen.example", "S."), LINK, post)
    assert titled == ModelText("Start at docs.lumen.example", "S.")


def test_prose_that_only_looks_dotted_stays() -> None:
    text = "Version 2.5.1 is 1.5 times faster, e.g. on U.S. servers; i.e. a 3.12 upgrade at 9:30."
    assert summary_of(text) == text
    assert summary_of("Email: write to us. Price: 5 € @ 3 p.m.") == (
        "Email: write to us. Price: 5 € @ 3 p.m."
    )


@given(
    st.lists(
        st.sampled_from(
            ["evil", "example", ".", "．", "/", ":", "//", "@", "tg", "t.me", " ", "x", "-", "_",
             "mailto", "?", "a=b", "\u200b", "é", "(", ")", "com", "1", "<b>", "&amp;"]
        ),
        max_size=30,
    ).map("".join)
)  # fmt: skip
def test_what_is_left_holds_no_link_like_form(text: str) -> None:
    got = summary_of(text, own_link=None)
    if got is not None:
        assert _LINKLIKE.search(got) is None, got
        assert "://" not in got


def test_three_sentences_one_title_line_and_the_length_limits() -> None:
    got = read_reply(answer("T" * 400, "One. Two. Three. Four. Five."))
    assert got is not None and got.summary == "One. Two. Three."
    assert got.title is not None and len(got.title) <= 200 and got.title.endswith("…")
    assert read_reply(answer("First. Second.", "S.")) == ModelText("First.", "S.")
    wide = read_reply(answer(None, "字" * 1000))
    assert wide is not None and wide.summary is not None
    assert len(wide.summary) <= 450 and wide.summary.endswith("…")
    words = read_reply(answer(None, "word " * 400))
    assert words is not None and words.summary is not None and words.summary.endswith("word…")
    assert read_reply(answer("— Title —", "· A summary. -")) == ModelText("Title", "A summary.")


@given(st.text(max_size=400), st.text(max_size=200))
def test_no_answer_can_smuggle_markup_or_links_into_a_message(summary: str, title: str) -> None:
    got = read_reply(answer(title, summary), LINK)
    if got is None:
        return
    for text in (got.title or "", got.summary or ""):
        assert not re.search(r"<[a-zA-Z/!][^>]*>", text)  # no tag survives (a lone "<" is text)
        assert "://" not in text.replace(LINK, "")
    message = render_change(NEW, FeedInfo("s", "Site"), model=got)
    assert_valid_telegram_html(message)
    assert message.count("<a ") == 1  # the post's own title link, nothing else


def test_a_translated_title_keeps_the_original_as_the_link() -> None:
    message = render_change(NEW, FeedInfo("s", "Site"), model=ModelText("寒武纪加入", "摘要。"))
    first, second = message.split("\n")[:2]
    assert first == "<b>寒武纪加入</b>"
    assert second == f'<a href="{LINK}">Cambricon joins</a>'
    assert to_plain(message).endswith("摘要。")


# --- an edit explained by the model (issue 45) -------------------------------------------------

PRICE_EDIT = TextDiff(added=("Seats cost $59.",), removed=("Seats cost $49.",))


def test_an_edit_s_prompt_holds_only_what_it_removed_and_added() -> None:
    system, user = (m["content"] for m in explanation_prompt("es", "Tickets", PRICE_EDIT))
    assert system.startswith("In one short sentence in Spanish, say what this edit")
    assert user == "Title: Tickets\n\nRemoved:\nSeats cost $49.\n\nAdded:\nSeats cost $59."


def test_the_model_s_explanation_is_shown_only_when_grounded_in_the_edit() -> None:
    edit = Change(ChangeKind.EDITED, POST, PRICE_EDIT)
    good = Written("", {("en", Kind.EXPLANATION): ModelText(summary="Seats now $59, not $49.")})
    assert good.for_reader(reader("en"), edit) == ModelText(explained="Seats now $59, not $49.")
    assert good.for_reader(reader("es"), edit) is None  # no Spanish answer: the rule-based line
    bad = Written("", {("en", Kind.EXPLANATION): ModelText(summary="Seats now $69.")})
    assert bad.for_reader(reader("en"), edit) is None
    two = Written("", {("en", Kind.EXPLANATION): ModelText(summary="Now $59. Was $49.")})
    assert two.for_reader(reader("en"), edit) == ModelText(explained="Now $59.")
