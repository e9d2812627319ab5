"""Summaries and translations written by the operator's language model: the pure rules.

What a model is asked (`prompt`), how its answer is read (`read_reply`: untrusted text, so no
markup, no link-like form but those in the post itself, at most three sentences and a length
cap), which chats
need which text (`needs`, `Written.for_reader`), and the cache key (`cache_key`: one call per
post version, language, kind, model and prompt, however many chats read it; `version`: the
feed's own content, so the keys are known before the poll reads storage).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bot.core.lang import detect_language
from bot.core.messages.explain import grounded
from bot.core.messages.sentences import sentence_ends
from bot.core.modes import Format, SummaryMode
from bot.core.text import clean_inline, shorten
from bot.core.types import Change, ChangeKind, Reader, TextDiff

MAX_INPUT_CHARS = 6000  # the post's text sent to the model (its top: that is what is summarised)
MAX_TITLE_CHARS = 200
MAX_SENTENCES = 3
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "zh": "Simplified Chinese"}
_TAG = re.compile(r"<[^>]*>")
# Every form Telegram makes tappable in plain text, or a link by another name: anything with
# "://" in it (any scheme, a bare "://"), schemes used without slashes (`tg:`, `mailto:` …),
# e-mail addresses, bare domains with a path (`evil-login.example/reset`, `t.me/evilbot`, also
# with full-width dots) and `@handles`. Why: a model's answer is steered by the post it read,
# so "reset your password at evil-login.example/reset" must not become a tappable link.
_NAME = "a-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"  # Latin, Greek, Cyrillic domain labels
_TLD = "(?:xn--[a-z0-9-]+|[a-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]{2,63})"
# From a run's first character only (linear): "_-t.me" and "a..t.me" are one domain-like word.
_DOT = ".\uff0e\uff61"  # and the full-width dots
_DOMAIN = rf"(?<![{_NAME}_{_DOT}-])(?:[{_NAME}_-]*[{_DOT}])+{_TLD}(?![{_NAME}_]|-+[{_NAME}_])"
_SCHEMES = "tg|mailto|tel|sms|callto|javascript|vbscript|data|file|ton|xmpp|magnet|intent|skype"
_LINKLIKE = re.compile(
    r"(?<!\S)\S*?://\S*"  # from a word's start only: linear, however long the answer
    rf"|(?<![{_NAME}])(?:{_SCHEMES}):\S+"
    rf"|(?<![\w.+-])[\w.+-]*[\w+-]@{_DOMAIN}"
    rf"|{_DOMAIN}(?::\d+)?(?:[/?#]\S*)?"
    r"|(?<![a-z0-9_])@[a-z0-9_@]+",
    re.IGNORECASE,
)
_MAX_READ = 2_000  # characters of an answer's value read: four times the longest shown
_AROUND = "()[]{}<>\"'.,;:!?«»“”‘’"  # punctuation around a link, not part of it
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


class Kind(StrEnum):
    SUMMARY = "summary"  # written by the model, in the chat's language (with the title)
    TRANSLATION = "translation"  # the title and the extractive summary, translated
    EXPLANATION = "explanation"  # an edit in one sentence, in the chat's language


@dataclass(frozen=True, slots=True)
class ModelText:
    """What a model wrote for one post in one language (plain text, already cleaned)."""

    title: str | None = None
    summary: str | None = None
    explained: str | None = None  # an edit in one sentence (`explain.grounded` checked it)


@dataclass(frozen=True, slots=True)
class Written:
    """The model's texts for one post: its language, and each (chat language, kind)."""

    language: str
    texts: Mapping[tuple[str, Kind], ModelText] = field(default_factory=dict)

    def for_reader(self, reader: Reader, change: Change) -> ModelText | None:
        """What this chat's message shows from the model, if anything: the model's summary
        (`/summary FEED model`), with the title translated when the chat translates and the
        post is in another language; else the translation (`/translate on`)."""
        if change.kind is ChangeKind.EDITED:
            return self._explained(reader, change)
        if change.kind is not ChangeKind.NEW or reader.message_format is Format.FULL:
            return None
        wanted = reader.language or DEFAULT_LANGUAGE
        foreign = self.language != wanted
        if reader.summary_mode is SummaryMode.MODEL:
            own = self.texts.get((wanted, Kind.SUMMARY))
            if own is not None and own.summary:
                title = own.title if reader.translate and foreign else None
                return ModelText(title=title, summary=own.summary)
        if reader.translate and foreign:
            return self.texts.get((wanted, Kind.TRANSLATION))
        return None

    def _explained(self, reader: Reader, change: Change) -> ModelText | None:
        """The model's sentence for an edit in the chat's language, when every number and
        name in it is in the edit (`explain.grounded`); else None: the rule-based line."""
        own = self.texts.get((reader.language or DEFAULT_LANGUAGE, Kind.EXPLANATION))
        if own is None or not own.summary or change.diff is None:
            return None
        sentence = _at_most(own.summary, 1, MAX_EXPLAINED_CHARS)
        return ModelText(explained=sentence) if grounded(sentence, change.diff) else None


def explanation_prompt(language: str, title: str, diff: TextDiff) -> list[dict[str, str]]:
    """The chat-completions messages for one edit: the post's title and what the edit removed
    and added (public text only), asked once per edit and language."""
    removed = [*diff.removed, *([diff.old_title] if diff.old_title else [])]
    added = [*diff.added, *([diff.new_title] if diff.new_title else [])]
    body = (
        f"Title: {title}\n\nRemoved:\n" + "\n".join(removed)[: MAX_INPUT_CHARS // 2]
        + "\n\nAdded:\n" + "\n".join(added)[: MAX_INPUT_CHARS // 2]
    )  # fmt: skip
    target = LANGUAGE_NAMES.get(language, language)
    return [
        {"role": "system", "content": EXPLANATION_TASK.format(target=target) + EXPLAINED_FORMAT},
        {"role": "user", "content": body},
    ]


def needs(readers: Iterable[Reader], post_language: str) -> set[tuple[str, Kind]]:
    """The (language, kind) texts a post needs for these chats: a call each, not one a chat."""
    wanted: set[tuple[str, Kind]] = set()
    for reader in readers:
        language = reader.language or DEFAULT_LANGUAGE
        if reader.message_format is Format.FULL:
            continue
        if reader.summary_mode is SummaryMode.MODEL:
            wanted.add((language, Kind.SUMMARY))
        elif reader.translate and post_language != language:
            wanted.add((language, Kind.TRANSLATION))
    return wanted


def language_of(declared: str | None, text: str) -> str:
    """The post's language: the feed's declared one (`en-US` → `en`), else recognised from
    its text (`lang.detect_language`: script, kana before Han, then common words)."""
    if declared:
        primary = declared.strip().lower().replace("_", "-").split("-")[0]
        if primary.isalpha() and 2 <= len(primary) <= 3:
            return primary
    return detect_language(text)


SUMMARY_TASK = (
    "Summarise the blog post below in {target}, in at most three short sentences, saying what "
    "it is about and what is new. Plain text, no links, no markdown."
)
TRANSLATION_TASK = (
    "Translate the title and the summary of the blog post below into {target}. Keep names, "
    "numbers and code as they are. Plain text, no links, no markdown."
)
ANSWER_FORMAT = ' Answer with JSON only: {"title": "…", "summary": "…"}.'
EXPLANATION_TASK = (
    "In one short sentence in {target}, say what this edit of a blog post changed, from the "
    "removed and added text below. Use only numbers and names that appear in that text. "
    "Plain text, no links, no markdown."
)
EXPLAINED_FORMAT = ' Answer with JSON only: {"summary": "…"}.'
MAX_EXPLAINED_CHARS = 200  # one sentence, one or two lines on a phone
MAX_SUMMARY_CHARS = 450  # three sentences of English; the extractive summary is about as long
_TRIM = " -–—·"  # a model's bullets and dashes around an answer


def prompt(
    kind: Kind, language: str, title: str, text: str, extract: str = "", custom: str = ""
) -> list[dict[str, str]]:  # fmt: skip
    """The chat-completions messages for one post: only its public title and text."""
    if kind is Kind.SUMMARY:
        body = f"Title: {title}\n\n{text[:MAX_INPUT_CHARS]}"
    else:
        body = f"Title: {title}\n\nSummary: {extract[:MAX_INPUT_CHARS]}"
    return [
        {"role": "system", "content": instruction(kind, language, custom)},
        {"role": "user", "content": body},
    ]


def instruction(kind: Kind, language: str, custom: str = "") -> str:
    """The system message: what is asked, in which language, in which answer format."""
    target = LANGUAGE_NAMES.get(language, language)
    if kind is Kind.SUMMARY:
        return (custom or SUMMARY_TASK.format(target=target)) + ANSWER_FORMAT
    return TRANSLATION_TASK.format(target=target) + ANSWER_FORMAT


def version(content_hash: str, full_text: bool) -> str:
    """A post's version as the cache knows it: the feed's own content (its hash) and whether
    its page is read. Known before any page is read, so a poll reads its cached answers with
    everything else it reads (`store.read_poll`); a page's furniture never asks again."""
    return f"{content_hash}\x1f{'page' if full_text else 'feed'}"


def possible_keys(
    posts: Iterable[tuple[str, str]], readers: Iterable[Reader], model: str, custom: str = ""
) -> list[str]:
    """The cache keys these (title, version) posts may need for these chats: every (language,
    kind) some chat may ask for, whatever the post's language (a superset, for one read)."""
    wanted = sorted(needs(readers, ""))
    if not wanted:
        return []
    systems = [(kind, language, instruction(kind, language, custom)) for language, kind in wanted]
    return [
        cache_key(kind, language, model, system, title, seen)
        for title, seen in posts
        for kind, language, system in systems
    ]


def read_reply(reply: str, own_link: str | None = None, own_text: str = "") -> ModelText | None:
    """The model's answer as untrusted text: JSON `{"title", "summary"}` (or, from a model
    that ignored the format, its whole answer as the summary), without markup or any link-like
    form (`_LINKLIKE`) but the post's own link and those in its own text (`own_text`: what the
    model was sent), the summary at most three sentences and MAX_SUMMARY_CHARS, the title one
    line. None when nothing usable is left."""
    raw = _FENCE.sub("", reply.strip())
    title: object = None
    summary: object = raw
    try:
        found = json.loads(raw)
    except ValueError:
        found = None
    if isinstance(found, dict):
        title, summary = found.get("title"), found.get("summary")
    elif raw.startswith(("{", "[")):
        return None  # JSON that does not parse (cut off, or not what was asked): nothing usable
    own = own_text.casefold()
    cleaned_title = _clean(title, own_link, own)
    cleaned = _clean(summary, own_link, own)
    if cleaned is not None:
        cleaned = _at_most(cleaned, MAX_SENTENCES, MAX_SUMMARY_CHARS)
    if cleaned_title is not None:
        cleaned_title = _at_most(cleaned_title, 1, MAX_TITLE_CHARS)
    if not cleaned and not cleaned_title:
        return None
    return ModelText(title=cleaned_title or None, summary=cleaned or None)


def cache_key(
    kind: Kind, language: str, model: str, prompt_text: str, title: str, text: str
) -> str:
    """One answer per (post version, language, kind, model, prompt): the post's version is its
    title and text as sent, so an edit that changes them asks again and nothing else does."""
    parts = "\x1f".join((kind.value, language, model, prompt_text, title, text[:MAX_INPUT_CHARS]))
    return hashlib.sha256(parts.encode("utf-8", "surrogatepass")).hexdigest()


def _clean(value: object, own_link: str | None, own: str) -> str | None:
    """Tags and link-like forms out; invisible characters are removed first, so a zero-width
    space inside `ht\u200btp://` cannot hide a link that removing it would join."""
    if not isinstance(value, str):
        return None
    text = clean_inline(html.unescape(_TAG.sub(" ", value[:_MAX_READ])))

    def kept(match: re.Match[str]) -> str:
        found = match.group(0)
        bare = found.strip(_AROUND)
        ours = own_link in (found, bare) or (bool(bare) and bare.casefold() in own)
        return found if ours else " "

    while (dropped := clean_inline(_LINKLIKE.sub(kept, text)).strip(_TRIM)) != text:
        text = dropped  # until removing and trimming expose nothing more
    return text or None


def _at_most(text: str, most: int, limit: int) -> str:
    """The first `most` sentences, cut to `limit` characters at a sentence or a word."""
    text = text[: limit * 2]  # past `limit` nothing is shown (and sentence_ends is slow)
    ends = sentence_ends(text)
    if len(ends) > most:
        text = text[: ends[most - 1]]
    return shorten(text, limit)
