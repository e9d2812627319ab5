"""Sequencing: each service reads from storage, calls the pure core, and writes back, in order.

- `polling`: claim → fetch → decide → apply, one poll cycle
- `catalog`: add, import and move feeds
- `outbox`: (event | backlog | digest) × audience → outbox rows
- `delivery`: send the outbox to Telegram
- `digests`: turn held rows into digest messages when a period ends
"""
