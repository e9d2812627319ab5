"""The test databases: PostgreSQL when TEST_DATABASE_URL is set (CI always sets it), each test
in its own database copied from one migrated template."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

from sqlalchemy.engine import make_url

PG_URL = os.environ.get("TEST_DATABASE_URL", "")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def postgres_database(template: str) -> Iterator[str]:
    import psycopg

    admin = make_url(PG_URL)
    name = f"fw_{uuid.uuid4().hex[:12]}"
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    url = admin.set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
