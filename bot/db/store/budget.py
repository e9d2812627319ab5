"""Budgets shared by every process on the database: Telegram's rate buckets and the model's
hourly shares.

Rate buckets, through PostgreSQL: one atomic statement reserves the next slot.

Virtual scheduling (GCRA): the bucket refills at `rate` up to `capacity`; taking one token may
leave it negative, and then the caller waits `-tokens / rate` seconds for the slot it reserved.
Every process pays for its own message in one round trip, and the row lock orders concurrent
reservations, so N processes share one budget instead of multiplying it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, bindparam, select, text, update
from sqlmodel import Session

from bot.core.polls.shares import Grant, Share, Spent, grant
from bot.db.store.statements import run, table
from bot.db.tables import ModelBudget

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


_BUDGET = table(ModelBudget)
_LOCK_SHARES = (
    select(_BUDGET.c.name, _BUDGET.c.hour, _BUDGET.c.used, _BUDGET.c.refused)
    .where(_BUDGET.c.name.in_(bindparam("names", expanding=True)))
    .order_by(_BUDGET.c.name)
    .with_for_update()
)
_ENSURE_SHARE = text(
    "INSERT INTO model_budget (name, hour, used, refused) VALUES (:name, :hour, 0, 0) "
    "ON CONFLICT (name) DO NOTHING"
)
_SET_SHARE = (
    update(_BUDGET)
    .where(_BUDGET.c.name == bindparam("b_name"))
    .values(hour=bindparam("b_hour"), used=bindparam("b_used"), refused=bindparam("b_refused"))
)


def spend_model_calls(session: Session, *, shares: Sequence[Share], asked: int, hour: int) -> Grant:
    """Take up to `asked` calls from every one of `shares` at once (core/polls/shares.py says
    how many), in the caller's transaction. The rows are locked in name order, so processes
    taking overlapping shares wait for each other instead of deadlocking or both spending."""
    names = sorted({s.name[:64] for s in shares})
    rows = run(session, _LOCK_SHARES, {"names": names}).all()
    spent = {row.name: Spent(row.hour, row.used, row.refused) for row in rows}
    missing = [n for n in names if n not in spent]
    if missing:  # a share's first use: its row (another process may be adding it), locked
        run(session, _ENSURE_SHARE, [{"name": n, "hour": hour} for n in missing])
        rows = run(session, _LOCK_SHARES, {"names": names}).all()
        spent = {row.name: Spent(row.hour, row.used, row.refused) for row in rows}
    result, after = grant(asked, shares, spent, hour)
    run(
        session,
        _SET_SHARE,
        [
            {"b_name": n, "b_hour": s.hour, "b_used": s.used, "b_refused": s.refused}
            for n, s in sorted(after.items())
        ],
    )
    return result
