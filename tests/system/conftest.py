"""Fixtures of the system tests (processes against PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.databases import IN_CI, PG_URL, postgres_database


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    if not PG_URL:
        if IN_CI:
            pytest.fail("CI=true but TEST_DATABASE_URL is not set")
        pytest.skip("needs PostgreSQL (TEST_DATABASE_URL)")
    yield from postgres_database(request.getfixturevalue("postgres_template"))
