"""The ranked digest across a chat's feeds (core/messages/ranked.py): taking its held posts."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session, col

from bot.db.tables import Chat, Delivery, DeliveryStatus


def take_held(session: Session, *, delivery_ids: list[int]) -> set[int]:
    """Mark held messages digested, compare-and-set: the ids that were still held (a digest
    another worker queued first took the others)."""
    if not delivery_ids:
        return set()
    taken = session.exec(
        update(Delivery)
        .where(col(Delivery.id).in_(delivery_ids), col(Delivery.status) == DeliveryStatus.HELD)
        .values(status=DeliveryStatus.DIGESTED)
        .returning(col(Delivery.id))
    )
    return {int(delivery_id) for (delivery_id,) in taken.all()}


def chat_digest_top(session: Session, *, chat_id: int) -> int | None:
    """How many posts the chat's ranked digest puts first (None: one digest per feed)."""
    chat = session.get(Chat, chat_id)
    return chat.digest_top if chat is not None else None
