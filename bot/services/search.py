"""`/search` as a use case: the chat's feeds, the query parsed against their names, the posts
found (any version, newest first) with the sentence that matched."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from sqlalchemy import Engine
from sqlmodel import Session

from bot.core.search.query import SearchQuery, parse
from bot.core.search.snippet import Found
from bot.db import store
from bot.runtime.clock import Clock, utcnow
from bot.services import run


class Outcome(StrEnum):
    FOUND = "found"  # `found` may be empty: nothing matched
    NO_FEEDS = "no-feeds"  # the chat follows nothing, so there is nothing to search
    NOT_SUBSCRIBED = "not-subscribed"  # `feed:NAME` names a feed the chat does not follow


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    outcome: Outcome
    query: SearchQuery | None = None
    found: tuple[Found, ...] = ()
    feed_title: str | None = None  # the one feed searched
    feeds: tuple[str, ...] = ()  # the chat's feed names (to say which there are)


class Searches:
    def __init__(self, engine: Engine, *, clock: Clock = utcnow) -> None:
        self.engine, self.clock = engine, clock

    async def search(self, chat_id: int, text: str) -> SearchAnswer:
        """Raises `QueryError` for a query that cannot run (the handler says why)."""
        return await run.read(self.engine, lambda s: self._search(s, chat_id, text))

    def _search(self, session: Session, chat_id: int, text: str) -> SearchAnswer:
        feeds = {name.slug: name for name in store.chat_feed_names(session, chat_id=chat_id)}
        query = parse(text, feeds)
        names = tuple(sorted(feeds))
        if not feeds:
            return SearchAnswer(Outcome.NO_FEEDS, query)
        feed = feeds.get(query.feed) if query.feed is not None else None
        if query.feed is not None and feed is None:
            return SearchAnswer(Outcome.NOT_SUBSCRIBED, query, feeds=names)
        since = None
        if query.since_days is not None:
            since = self.clock() - timedelta(days=query.since_days)
        found = store.search_posts(
            session,
            feed_ids=[feed.id] if feed is not None else [name.id for name in feeds.values()],
            query=query,
            since=since,
        )
        title = feed.title or feed.slug if feed is not None else None
        return SearchAnswer(Outcome.FOUND, query, tuple(found), title, names)
