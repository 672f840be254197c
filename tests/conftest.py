"""Shared fixtures: a fresh PostgreSQL database on the machine's server (127.0.0.1:5432, trust auth)."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator

import pytest

#: The PostgreSQL server the storage tests use (CI starts it when it is down).
POSTGRES = os.environ.get("BIRIBA_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


async def _admin(sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES + "/test")
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A database of its own for one test, dropped afterwards."""
    name = f"biriba_test_{secrets.token_hex(4)}"
    asyncio.run(_admin(f"CREATE DATABASE {name}"))
    try:
        yield f"{POSTGRES}/{name}"
    finally:
        asyncio.run(_admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """Each storage test runs on both stores: SQLite, and the machine's PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/tables.sqlite3"
    else:
        yield request.getfixturevalue("postgres_url")
