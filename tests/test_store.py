"""The web game's store, on SQLite and on the machine's PostgreSQL: one code path, the same answers."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config

from biriba.server.store import SeatInfo, Store, TableRow, async_url, migrate, token_hash


def test_tables_deals_and_actions_round_trip(db_url: str) -> None:
    async def main() -> None:
        store = await Store.open(db_url)
        try:
            seats = [SeatInfo("person"), SeatInfo("bot", bot="greedy", name="greedy bot")]
            row = TableRow("t1", "classic", {"bot_delay": 1.0}, seats, "seed-1")
            await store.create_table(row)
            seats[0].name, seats[0].token_hash = "Eleni", token_hash("secret")
            await store.save_seats("t1", seats, "playing")
            await store.record_deal("t1", 1, 3, ["7H", "JK"], version=1, totals=[0, 0])
            await store.record_action("t1", 1, 1, 0, "draw", version=2, by="clock")
            await store.record_action("t1", 2, 1, 0, "discard 9C", version=3, status="over", match=(1, [120, -40]))
            stored = await store.load("t1")
            assert stored is not None
            assert stored.row.seats[0].name == "Eleni" and stored.row.seats[0].token_hash == token_hash("secret")
            assert stored.row.status == "over" and stored.row.version == 3 and stored.row.rules == "classic"
            assert stored.row.claimed and (stored.row.deals, stored.row.totals) == (1, [120, -40])
            assert stored.deals == [(1, 3, ["7H", "JK"])]
            assert stored.actions == [(1, 1, 0, "draw", "clock"), (2, 1, 0, "discard 9C", None)]
            assert await store.load("nope") is None
            assert [r.id for r in await store.list_tables(("over",))] == ["t1"]
            assert await store.list_tables(("open", "playing")) == []
            with pytest.raises(Exception):  # noqa: B017 - a move is never written twice
                await store.record_action("t1", 2, 1, 0, "draw", version=4)
            assert (await store.load("t1")).actions[-1] == (2, 1, 0, "discard 9C", None)  # type: ignore[union-attr]
        finally:
            await store.close()
        again = await Store.open(db_url)  # the migrations run again, changing nothing
        try:
            assert await again.count() == 1
        finally:
            await again.close()

    asyncio.run(main())


def test_store_urls_name_their_database() -> None:
    assert async_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert async_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        async_url("mysql://u@h/db")
    with pytest.raises(ValueError, match="write sqlite"):
        async_url("tables.db")


def test_the_lobby_pages_quotas_and_expiry_read_the_store_alone(db_url: str) -> None:
    async def main() -> None:
        store = await Store.open(db_url)
        try:
            bots = [SeatInfo("bot", bot="greedy"), SeatInfo("bot", bot="greedy")]
            now = time.time()
            for n in range(5):  # older first: t0 was active longest ago
                row = TableRow(f"t{n}", "classic", {}, [SeatInfo("person"), *bots], "s", creator="a" if n < 3 else "b")
                row.touched = now - 1000 + n
                await store.create_table(row)
            first = await store.list_tables(("open",), limit=2)
            assert [r.id for r in first] == ["t4", "t3"]
            after = await store.list_tables(("open",), limit=2, before=(first[-1].touched, first[-1].id))
            assert [r.id for r in after] == ["t2", "t1"]
            assert (await store.open_tables_of("a"), await store.open_tables_of("b")) == (3, 2)
            seats = [SeatInfo("person", name="Ann", token_hash=token_hash("x")), *bots]
            await store.save_seats("t1", seats, "playing")  # claimed: it never expires for want of people
            await store.touch(["t2"])  # watched just now
            assert sorted(await store.expire(unclaimed_before=now - 500)) == ["t0", "t3", "t4"]
            assert [r.id for r in await store.list_tables(("open", "playing"))] == ["t2", "t1"]
            assert await store.open_tables_of("a") == 2
        finally:
            await store.close()

    asyncio.run(main())


def test_a_store_of_the_first_schema_is_migrated_and_keeps_its_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/old.sqlite3"
    config = Config()
    config.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
    config.set_main_option("sqlalchemy.url", async_url(url))
    command.upgrade(config, "0001")
    seats = '[{"kind": "person", "bot": null, "name": "Ann", "token_hash": "ab"}]'
    with sqlite3.connect(tmp_path / "old.sqlite3") as db:
        db.execute("INSERT INTO tables VALUES ('old', 12.5, '\"classic\"', '{}', ?, 'seed', 'playing', 7)", (seats,))

    async def main() -> None:
        store = await Store.open(url)  # upgrades to the head
        try:
            stored = await store.load("old")
            assert stored is not None and stored.row.version == 7 and stored.row.seats[0].name == "Ann"
            assert stored.row.claimed and stored.row.touched == 12.5 and stored.row.totals == []
        finally:
            await store.close()

    asyncio.run(main())
