"""Database edge: SQLModel tables, the engine, and store functions that never commit.

- `tables`: the SQLModel tables (Alembic migrations own the schema)
- `chat_tables`: what a chat was told and taught (stories, tuning), re-exported by `tables`
- `core_tables`: the feed table as SQLAlchemy Core, for a quiet poll (no SQLModel, no ORM)
- `direct`: the per-message write (sent marks) on the pool's DBAPI cursor
- `engine`: engine and session factory
- `migrate`: Alembic run from code
- `reserve`: a full disk recognised, with space kept for the writes that free it
- `runlock`: one poller per SQLite database
- `store`: storage by domain (its own list)
"""
