"""Rate buckets shared through PostgreSQL: one atomic statement reserves the next slot.

Virtual scheduling (GCRA): the bucket refills at `rate` up to `capacity`; taking one token may
leave it negative, and then the caller waits `-tokens / rate` seconds for the slot it reserved.
Every process pays for its own message in one round trip, and the row lock orders concurrent
reservations, so N processes share one budget instead of multiplying it.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

_ENSURE = text(
    "INSERT INTO rate_bucket (name, tokens, updated_at) VALUES (:name, :capacity, "
    "clock_timestamp()) ON CONFLICT (name) DO NOTHING"
)
_TAKE = text(
    "UPDATE rate_bucket SET tokens = LEAST(:capacity, tokens + :rate * "
    "EXTRACT(EPOCH FROM (clock_timestamp() - updated_at))) - 1, updated_at = clock_timestamp() "
    "WHERE name = :name RETURNING tokens"
)


def reserve(connection: Connection, *, name: str, rate: float, capacity: float) -> float:
    """Take one token from bucket `name`; return how many seconds to wait for it."""
    params = {"name": name[:64], "rate": rate, "capacity": capacity}
    tokens = connection.execute(_TAKE, params).scalar()
    if tokens is None:  # first use of this bucket
        connection.execute(_ENSURE, params)
        tokens = connection.execute(_TAKE, params).scalar()
    return max(0.0, -float(tokens or 0.0) / rate)
