"""SQLModel tables. Alembic migrations in `alembic/versions` own the schema; keep them in step
(`tests/db/test_migrations.py` fails when autogenerate would find a difference)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Index,
    MetaData,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.types import UserDefinedType
from sqlmodel import Field, SQLModel

from bot.core.modes import Edits, Format, Preview, SummaryMode
from bot.core.polls.decide import FeedStatus
from bot.runtime.clock import utcnow  # aware UTC; SQLModel keeps it aware on SQLite too

# Named constraints so batch migrations on SQLite can drop and recreate them.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata: MetaData = SQLModel.metadata


class TSVector(UserDefinedType[str]):
    """PostgreSQL's `tsvector` (`ItemVersion.terms`), named here rather than imported from
    SQLAlchemy's PostgreSQL dialect: that import loads every PostgreSQL driver's dialect, 5% of
    a quiet `poll --once` on SQLite (issue 48). Autogenerate compares it by its name."""

    cache_ok = True

    def get_col_spec(self, **kw: Any) -> str:
        return "TSVECTOR"


class DeliveryStatus(StrEnum):
    HELD = "held"  # waiting for the subscription's digest
    DIGESTED = "digested"
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Feed(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=64, unique=True)
    url: str = Field(max_length=2048)
    title: str = Field(default="", max_length=1000)
    trusted: bool = Field(default=True, description="added by an operator, not from a chat")
    etag: str | None = Field(default=None, max_length=1024)
    last_modified: str | None = Field(default=None, max_length=256)
    body_hash: str | None = Field(default=None, max_length=64)
    status: str = Field(default=FeedStatus.OK, max_length=16)
    last_error: str | None = Field(default=None, max_length=1000)
    error_count: int = 0
    # Its own pace (`feed set --interval`; None: POLL_INTERVAL_SECONDS) and its RSS <ttl>.
    interval_seconds: int | None = None
    ttl_seconds: int | None = None
    # Operator alerts (core/polls/alerts.py): since when it fails, and what operators were told.
    failing_since: datetime | None = None
    alert: str | None = Field(default=None, max_length=16)
    alerted_at: datetime | None = None  # when operators were last told (moved: once a day)
    # Consecutive polls that stored (almost) every item as new (core/detection/churn.py).
    churn_polls: int | None = None
    baseline_done: bool = False
    # Read each new post's page for its article (`feed set --full-text`), and whether the
    # last parse found only excerpts (the hint `feed add` and `feed list` give).
    full_text: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    excerpt_only: bool | None = None
    # Its edits are reported (`feed set --edits off`: new posts only, for re-issuing planets).
    edits: bool = Field(default=True, sa_column_kwargs={"server_default": true()})
    # The user who added it from a chat (MAX_FEEDS_PER_USER); None: an operator or the CLI.
    added_by: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True, index=True)
    )
    created_at: datetime = Field(default_factory=utcnow)
    last_checked_at: datetime | None = None
    next_check_at: datetime = Field(default_factory=utcnow, index=True)
    lease_until: datetime | None = None
    lease_owner: str | None = Field(default=None, max_length=128)


class Item(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("feed_id", "key"),
        Index("ix_item_canon_key", "feed_id", "canon_key"),
        Index("ix_item_canon_link", "feed_id", "canon_link"),
        Index("ix_item_canon_title", "feed_id", "canon_title"),
    )

    id: int | None = Field(default=None, primary_key=True)
    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE")
    key: str = Field(max_length=1000)
    link: str | None = Field(default=None, max_length=2048)
    title: str = Field(default="", max_length=1000)
    author: str | None = Field(default=None, max_length=200)
    published_at: datetime | None = None
    categories: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    fingerprint: str = Field(max_length=64)
    content_hash: str | None = Field(default=None, max_length=64)
    image: str | None = Field(default=None, max_length=2048)
    # text.FINGERPRINT_VERSION when `fingerprint` was taken ("" for rows from before 0010).
    fingerprint_version: str = Field(
        default="", max_length=40, sa_column_kwargs={"server_default": ""}
    )
    # Found again under a new key by these (core/detection/identity.py): hashes of the
    # canonical id, the canonical link, and the title with the publication date.
    canon_key: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    canon_link: str | None = Field(default=None, max_length=64)
    canon_title: str | None = Field(default=None, max_length=64)
    # Excerpt or full text (None: stored before 0015), the summary's hash, counter places.
    full: bool | None = None
    excerpt_hash: str | None = Field(default=None, max_length=64)
    volatile: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # The hash of the bytes the fields above were read from (core/feeds/split.py; None: not
    # known): a document holding the same bytes again is not read again (core/feeds/changed.py).
    raw_hash: str | None = Field(default=None, max_length=64)
    first_seen_at: datetime = Field(default_factory=utcnow)
    last_changed_at: datetime = Field(default_factory=utcnow)
    last_seen_at: datetime = Field(default_factory=utcnow, index=True)


class Article(SQLModel, table=True):
    """What a post's page gave (full-text feeds): the article's HTML and image, or why there
    is none. Kept apart from `item`, whose rows every poll reads."""

    item_id: int = Field(foreign_key="item.id", primary_key=True, ondelete="CASCADE")
    html: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    image: str | None = Field(default=None, max_length=2048)
    error: str | None = Field(default=None, max_length=300)
    fetched_at: datetime = Field(default_factory=utcnow)


class TelegraphPage(SQLModel, table=True):
    """A long post's Telegraph page (issue 47): where it is, and a hash of what it shows, so
    an edit of the post edits the page (and one that changes nothing on it asks nothing)."""

    __tablename__ = "telegraph_page"

    item_id: int = Field(foreign_key="item.id", primary_key=True, ondelete="CASCADE")
    path: str = Field(max_length=256)
    url: str = Field(max_length=512)
    digest: str = Field(max_length=64)
    updated_at: datetime = Field(default_factory=utcnow)


class ItemVersion(SQLModel, table=True):
    """Every version of a post's title and text a chat could have read (the first one, one per
    edit, and after each the latest silent rewrite), for `/search` (db/store/search.py). The
    search index is kept beside it by migrations 0031 and 0032: on PostgreSQL `terms` (a
    tsvector) and its GIN index `ix_item_version_terms`; on SQLite the FTS5 table `item_search`
    (rowid = `search_key`; `terms` stays NULL). Both are the migrations' alone
    (`alembic/env.py` leaves them out of the comparison with these models)."""

    __tablename__ = "item_version"
    __table_args__ = (
        Index("ix_item_version_item", "item_id", "id"),
        # Newest first within a chat's feeds, read from the index alone (db/store/search.py).
        Index("ix_item_version_posted", "posted", "feed_id", "item_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    item_id: int = Field(foreign_key="item.id", ondelete="CASCADE")
    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE", index=True)
    posted: datetime = Field(default_factory=utcnow, description="published, or first seen")
    title: str = Field(default="", sa_column=Column(Text, nullable=False))
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    # Written by a silent rewrite (an absorbed change): the next one replaces it, while the
    # first version and each edit's stay.
    silent: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    terms: str | None = Field(
        default=None, sa_column=Column(Text().with_variant(TSVector(), "postgresql"))
    )
    # SQLite: this version's row in `item_search`, numbered by the post's date
    # (core/search/match.fts5_rowid, migration 0032); None on PostgreSQL.
    search_key: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


class ModelText(SQLModel, table=True):
    """What the operator's language model wrote, under the hash of everything that shaped it
    (core/modeltext.cache_key): read by every chat and every process, kept across restarts."""

    __tablename__ = "model_text"

    key: str = Field(primary_key=True, max_length=64)
    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE", index=True)
    title: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    summary: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)


class FeedCategory(SQLModel, table=True):
    """How many stored items of a feed carry each category, kept up to date as items are
    stored, edited and pruned, so /categories and /filter never scan a feed's items."""

    __tablename__ = "feed_category"

    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE", primary_key=True)
    name: str = Field(primary_key=True, max_length=100, description="casefolded")
    shown: str = Field(max_length=100, description="the first spelling seen")
    count: int = 0


class Chat(SQLModel, table=True):
    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    type: str = Field(default="private", max_length=16)
    title: str = Field(default="", max_length=256)
    active: bool = True
    paused: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    timezone: str = Field(default="UTC", max_length=64, sa_column_kwargs={"server_default": "UTC"})
    language: str | None = Field(default=None, max_length=8, description="None: not chosen yet")
    # /translate on: posts in another language come translated (the operator's model).
    translate: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # /quiet 22:00-07:00 in its time zone: messages held in the window (core/rules/quiet.py).
    quiet: str | None = Field(default=None, max_length=11)
    # /filter all …: field rules for every feed of the chat (core/rules/fields.py).
    rules: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    # A private chat managing a channel (/channel): its commands apply to that channel.
    managing: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    # /duplicates fold|show: a story already sent from another feed gains "Also in" (fold) or
    # comes as a quiet reply to it (show) (core/polls/duplicates.py).
    duplicates: str = Field(
        default="fold", max_length=8, sa_column_kwargs={"server_default": "fold"}
    )
    # /digest all daily HH:MM top N: the chat's digests due together are one ranked message,
    # its N first with summaries (core/messages/ranked.py); None: one digest per feed.
    digest_top: int | None = None
    created_at: datetime = Field(default_factory=utcnow)
    lease_until: datetime | None = Field(default=None, description="a worker is delivering here")
    lease_owner: str | None = Field(default=None, max_length=128)


class Subscription(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("chat_id", "feed_id"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(BigInteger, nullable=False, index=True),
    )
    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE", index=True)
    categories: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    without_categories: list[str] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    keywords: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=True))
    without_keywords: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=True))
    # One column per mode, holding its value (bot/core/modes.py): /edits, /preview, /format,
    # /summary, /silent.
    edit_mode: str = Field(
        default=Edits.ALL, max_length=16, sa_column_kwargs={"server_default": Edits.ALL.value}
    )
    preview_mode: str = Field(
        default=Preview.IMAGE,
        max_length=16,
        sa_column_kwargs={"server_default": Preview.IMAGE.value},
    )
    message_format: str = Field(
        default=Format.SUMMARY,
        max_length=16,
        sa_column_kwargs={"server_default": Format.SUMMARY.value},
    )
    summary_mode: str = Field(
        default=SummaryMode.EXTRACT,
        max_length=16,
        sa_column_kwargs={"server_default": SummaryMode.EXTRACT.value},
    )
    silent: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # /filter FEED title:… -author:…: field rules as written (core/rules/fields.py).
    rules: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    digest: str | None = Field(default=None, max_length=16, description="hourly or daily")
    digest_at: str | None = Field(default=None, max_length=5, description="HH:MM, daily only")
    last_digest_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    # When the chat left the feed (None: subscribed). A left row routes nothing and counts for
    # nothing; it keeps the chat's settings for a return (core/rules/leaving.py).
    left_at: datetime | None = None
    # 👎 → "Mute FEED for a day": nothing of the feed reaches the chat until then.
    muted_until: datetime | None = None


class Delivery(SQLModel, table=True):
    """The outbox: one row per (chat, event), written in the transaction that stores the item."""

    __table_args__ = (
        Index("ix_delivery_pending", "status", "next_attempt_at", "id"),
        Index("ix_delivery_queue", "status", "id"),  # due messages in order (claim_chats)
        Index("ix_delivery_item_id", "item_id"),  # who was told about a post (told_about)
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    feed_id: int = Field(foreign_key="feed.id", ondelete="CASCADE")
    item_id: int | None = Field(default=None, foreign_key="item.id", ondelete="CASCADE")
    kind: str = Field(max_length=16)
    text: str = Field(sa_column=Column(Text, nullable=False))
    preview: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    silent: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    image_url: str | None = Field(default=None, max_length=2048)  # previewed above the text
    # Sent as an album or a playable file instead (core/messages/media.py, JSON; None: a message).
    media: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    # A new post's "Follow changes" button, its label in the chat's language (None: none).
    follow_label: str | None = Field(default=None, max_length=64)
    # Telegram's id for the sent message: an edit of the same item replies to it.
    message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    status: str = Field(default=DeliveryStatus.PENDING, max_length=16)
    attempts: int = 0
    last_error: str | None = Field(default=None, max_length=1000)
    created_at: datetime = Field(default_factory=utcnow)
    next_attempt_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None


class Follow(SQLModel, table=True):
    """A chat following one post's changes until `until` (core/polls/follows.py)."""

    __table_args__ = (UniqueConstraint("chat_id", "item_id"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))
    item_id: int = Field(foreign_key="item.id", ondelete="CASCADE", index=True)
    thread_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    until: datetime = Field(index=True)
    created_at: datetime = Field(default_factory=utcnow)


class PostCheck(SQLModel, table=True):
    """What one post's page said when read for a follow (its article's text, the validators of
    a conditional GET) and where its withdrawal check stands (core/detection/withdrawal.py):
    kept in storage so pending checks survive a restart."""

    __tablename__ = "post_check"

    item_id: int = Field(foreign_key="item.id", primary_key=True, ondelete="CASCADE")
    etag: str | None = Field(default=None, max_length=1024)
    last_modified: str | None = Field(default=None, max_length=256)
    text: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    page_at: datetime | None = None  # when the page was last read for a follow
    # Withdrawal: when it left the feed from between other posts, 404/410 answers so far,
    # the next check, and whether the chats were told it is withdrawn.
    gone_since: datetime | None = None
    misses: int = 0
    check_at: datetime | None = Field(default=None, index=True)
    withdrawn: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class State(SQLModel, table=True):
    """Small cross-process facts, e.g. when the last poll cycle finished (for `health`)."""

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(default="", max_length=1000)
    updated_at: datetime = Field(default_factory=utcnow)


class RateBucket(SQLModel, table=True):
    """One Telegram rate budget shared by every process on the database (PostgreSQL): the
    overall messages per second, or one group's messages per minute. A virtual-scheduling
    bucket: `tokens` may go negative, which reserves a slot in the future."""

    __tablename__ = "rate_bucket"

    name: str = Field(primary_key=True, max_length=64)
    tokens: float = 0.0
    updated_at: datetime = Field(default_factory=utcnow)


class ModelBudget(SQLModel, table=True):
    """One share of the operator's model calls in the current clock hour (core/polls/shares.py),
    shared by every process on the database: calls used and refused in `hour`."""

    __tablename__ = "model_budget"

    name: str = Field(primary_key=True, max_length=64)
    hour: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    used: int = 0
    refused: int = 0


# What a chat was told and taught (issue 46): in their own module, under this naming convention.
from bot.db.chat_tables import Story as Story  # noqa: E402
from bot.db.chat_tables import Tuning as Tuning  # noqa: E402
