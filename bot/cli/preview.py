"""`preview URL_OR_FILE [--format F] [--language L] [--html] [--model]` and the messages a dry
run prints: what chats would read, without a database. `--format` and `--language` render
exactly what a chat with that `/format` and `/language` receives (the same `render_change`
call the poll makes), `--html` prints it as sent to Telegram, and a first line says what
appears above it: the post's own image, or Telegram's card of its page."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.core.feeds.entries import NotAFeed
from bot.core.feeds.parse import parse_feed
from bot.core.messages.digest import render_new_list
from bot.core.messages.modeltext import Kind, prompt, read_reply
from bot.core.messages.render import render_change, to_plain
from bot.core.modes import Format
from bot.core.types import Change, ChangeKind, FeedInfo, ParsedItem
from bot.core.urls import safe_link
from bot.net.fetch import FetchError
from bot.runtime.config import Settings
from bot.runtime.i18n import translator
from bot.services.outcome import PollOutcome
from bot.services.wiring import make_fetcher


class PreviewError(Exception):
    """Printed as one line by the command line."""


def _read_local(path: Path, limit: int) -> bytes | None:
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        return handle.read(limit)


def print_messages(outcome: PollOutcome, max_new: int) -> None:
    """Each event of a dry run: a `[new]`/`[edited]` line, then the message a chat without
    filters would get, as plain text and indented (a flood of new posts is one `[list]`)."""
    info = FeedInfo(slug=outcome.slug, title=outcome.feed_title or outcome.slug)
    fresh = [c for c in outcome.changes if c.kind is ChangeKind.NEW]
    flood = len(fresh) > max_new
    if flood:
        print(
            f"[list] {outcome.slug}: {len(fresh)} new posts in one message "
            f"(more than MAX_NEW_PER_POLL={max_new})"
        )
        for text in render_new_list(info.title, [c.item for c in fresh]):
            print(_indented(to_plain(text)))
    for change in outcome.changes:
        if not (flood and change.kind is ChangeKind.NEW):
            print(format_event(outcome.slug, change))
            print(_indented(to_plain(render_change(change, info))))


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines()) + "\n"


def format_event(slug: str, change: Change) -> str:
    item = change.item
    line = f"[{change.kind.value}] {slug}: {item.title}"
    if item.link:
        line += f" <{item.link}>"
    return line


async def preview(
    settings: Settings,
    source: str,
    limit: int,
    model: bool = False,
    language: str = "en",
    *,
    form: Format = Format.SUMMARY,
    as_html: bool = False,
    base: str | None = None,
) -> int:
    """The newest items' messages as a chat with `form` and `language` gets them; with
    `model`, what the operator's model writes for each. `base`: the address a saved file was
    fetched from (a poll resolves relative links against it; a file has none of its own)."""
    if model and not settings.model_api_url:
        raise PreviewError("--model needs a language model: set MODEL_API_URL and MODEL_NAME")
    headers: dict[str, str] = {}
    url = ""
    local = await asyncio.to_thread(_read_local, Path(source), settings.max_feed_bytes)
    if local is not None:
        body = local
        url = _base(base) if base else ""
    else:
        async with make_fetcher(settings) as fetcher:
            try:
                result = await fetcher.fetch(source, trusted=True)
            except FetchError as exc:
                raise PreviewError(f"cannot fetch {source}: {exc}") from None
        if result.status != 200:
            raise PreviewError(f"cannot fetch {source}: HTTP {result.status}")
        body, headers, url = result.body, result.headers, result.url
    try:
        parsed = await asyncio.to_thread(parse_feed, body, headers, url)
    except NotAFeed as exc:
        raise PreviewError(f"{source} is {exc}") from None
    if not url and parsed.link and any(item.link is None for item in parsed.items):
        # A saved file has no address: its relative entry links resolve against the site's
        # own link, as a poll resolves them against the address it fetched
        parsed = await asyncio.to_thread(parse_feed, body, headers, parsed.link)
    if not url and any(item.link is None for item in parsed.items):
        print(f"note: {source} has relative links and no address: pass --base URL\n")
    info = FeedInfo(slug="preview", title=parsed.title)
    newest = sorted(
        parsed.items,
        key=lambda i: (
            i.published is not None,
            i.published.timestamp() if i.published else 0.0,
            -i.position,
        ),
        reverse=True,
    )[: max(limit, 0)]
    count = len(parsed.items)
    print(f"{parsed.title or source}: {count} item{'' if count == 1 else 's'}\n")
    tr = translator(language)
    for item in newest:
        message = render_change(Change(ChangeKind.NEW, item), info, tr, form=form)
        print(shown_above(item))
        print(message if as_html else to_plain(message))
        if model:
            print("\n" + await _model_summary(settings, item, language))
        print("\n" + "-" * 40 + "\n")
    return 0


def _base(base: str) -> str:
    """`--base` when it is an http(s) address, else a one-line error."""
    if safe_link(base) is None:
        raise PreviewError(f"--base must be an http(s) address, not {base!r}")
    return base


def shown_above(item: ParsedItem) -> str:
    """What Telegram shows above the message for a chat with the default previews."""
    if item.image:
        return f"[image above the text: {item.image}]"
    if item.link:
        return f"[card of the post's page: {item.link}]"
    return "[no preview]"


async def _model_summary(settings: Settings, item: ParsedItem, language: str) -> str:
    """What the model writes for this post in `language` (asked now, not cached)."""
    from bot.net.model_api import ModelApi, ModelError

    api = ModelApi(settings)
    try:
        reply = await api.complete(prompt(Kind.SUMMARY, language, item.title, item.text))
    except ModelError as exc:
        return f"[model: {exc}]"
    finally:
        await api.aclose()
    written = read_reply(reply, item.link, f"{item.title}\n{item.text}")
    if written is None or not written.summary:
        return "[model: an empty answer once cleaned]"
    return f"[model, {language}] {written.summary}"
