"""Database edge: SQLModel tables, the engine, and store functions that never commit."""
