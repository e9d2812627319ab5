"""Tables of what a chat was told and taught (issue 46): each new post's message as a story
(the cross-feed duplicate check) and the weights its reactions moved. Imported at the end of
`tables.py`, after its naming convention; import them from there."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Column, Index, Text
from sqlmodel import Field, SQLModel

from bot.runtime.clock import utcnow


class Story(SQLModel, table=True):
    """A new post's message in a chat, as the duplicate check compares it
    (core/polls/duplicates.py): read by chat and link, or by chat and time, never scanned."""

    __table_args__ = (
        Index("ix_story_link", "chat_id", "link"),
        Index("ix_story_recent", "chat_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    delivery_id: int = Field(foreign_key="delivery.id", ondelete="CASCADE", index=True)
    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE", index=True)
    link: str | None = Field(default=None, max_length=64)
    title: str = Field(default="", sa_column=Column(Text, nullable=False))
    opening: str = Field(default="", sa_column=Column(Text, nullable=False))
    # The other feeds that carried it, as its "Also in" line names them.
    also: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Tuning(SQLModel, table=True):
    """What a chat's 👍 and 👎 taught (core/polls/tuning.py): a weight per feed and per
    category, shown by /list and cleared by /tuning reset."""

    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    kind: str = Field(primary_key=True, max_length=8, description="feed or category")
    name: str = Field(primary_key=True, max_length=100, description="a feed id, or casefolded")
    shown: str = Field(default="", max_length=100)
    weight: int = 0
    updated_at: datetime = Field(default_factory=utcnow)
