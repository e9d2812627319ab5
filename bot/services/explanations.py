"""The operator's model explaining an edit in one sentence (issue 45), beside `models.py`.

For the substantive edits some chat gets as a message now (`Fanout.explains`), one call per
(edit, language), cached like summaries under a key of the prompt and the edit's removed and
added sentences, within the feed's share of the model's hour. Whether a sentence is shown is
decided per message, by the pure core: only when every number and name in it is in the edit
(`Written.for_reader`, `explain.grounded`); else the rule-based line.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from bot.core.messages.modeltext import Kind, ModelText, Written, cache_key, explanation_prompt
from bot.core.polls.decide import FeedState
from bot.core.polls.shares import Share
from bot.core.types import Change
from bot.runtime import metrics
from bot.services.models import Job, ModelWriter, Wrote

Cached = Callable[[list[str]], Awaitable[Mapping[str, ModelText]]]


async def explain_edits(
    writer: ModelWriter,
    feed: FeedState,
    edits: Sequence[Change],
    languages: Mapping[str, set[str]],
    cached: Cached,
) -> Wrote:
    """One sentence per edit and chat language (`languages`: post key → the languages of the
    chats that get it), from the cache (`cached` reads stored answers) or asked now."""
    if writer.api is None:
        return Wrote()
    jobs = jobs_for(writer.api.model, edits, languages)
    if not jobs:
        return Wrote()
    hits = dict(await cached([j.key for j in jobs]))
    metrics.MODEL_CACHE_HITS.inc(len(hits))
    asked = list({j.key: j for j in jobs if j.key not in hits}.values())
    fresh: dict[str, ModelText] = {}
    spent: tuple[Share, ...] = ()
    if asked and writer.breaker.allows():
        granted = await writer.budget.take(feed, len(asked))
        spent = granted.spent
        fresh = await writer.ask_all(feed, asked[: granted.granted])
    answers = {**hits, **fresh}
    written: dict[str, dict[tuple[str, Kind], ModelText]] = {}
    for job in jobs:
        text = answers.get(job.key)
        if text is None:
            metrics.MODEL_FALLBACKS.inc()
        else:
            written.setdefault(job.item, {})[(job.language, job.kind)] = text
    return Wrote({k: Written("", v) for k, v in written.items()}, fresh, spent)


def jobs_for(model: str, edits: Sequence[Change], languages: Mapping[str, set[str]]) -> list[Job]:
    """A call per (edit, language); the key holds the prompt and the edit's sentences, so an
    edit is asked once however many chats and processes read it."""
    jobs = []
    for change in edits:
        if change.diff is None or change.item.key not in languages:
            continue
        for language in sorted(languages[change.item.key]):
            messages = explanation_prompt(language, change.item.title, change.diff)
            system, sent = messages[0]["content"], messages[-1]["content"]
            key = cache_key(Kind.EXPLANATION, language, model, system, "", sent)
            jobs.append(Job(key, change.item.key, language, Kind.EXPLANATION, messages, None))
    return jobs
