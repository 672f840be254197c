"""The web game's store, on SQLite and on the machine's PostgreSQL: one code path, the same answers."""

from __future__ import annotations

import asyncio

import pytest

from biriba.server.store import SeatInfo, Store, TableRow, async_url, token_hash


def test_tables_deals_and_actions_round_trip(db_url: str) -> None:
    async def main() -> None:
        store = await Store.open(db_url)
        try:
            seats = [SeatInfo("person"), SeatInfo("bot", bot="greedy", name="greedy bot")]
            row = TableRow("t1", "classic", {"bot_delay": 1.0}, seats, "seed-1")
            await store.create_table(row)
            seats[0].name, seats[0].token_hash = "Eleni", token_hash("secret")
            await store.save_seats("t1", seats, "playing")
            await store.record_deal("t1", 1, 3, ["7H", "JK"], version=1)
            await store.record_action("t1", 1, 1, 0, "draw", version=2)
            await store.record_action("t1", 2, 1, 0, "discard 9C", version=3, status="over")
            stored = await store.load("t1")
            assert stored is not None
            assert stored.row.seats[0].name == "Eleni" and stored.row.seats[0].token_hash == token_hash("secret")
            assert stored.row.status == "over" and stored.row.version == 3 and stored.row.rules == "classic"
            assert stored.deals == [(1, 3, ["7H", "JK"])]
            assert stored.actions == [(1, 1, 0, "draw"), (2, 1, 0, "discard 9C")]
            assert await store.load("nope") is None
            assert [r.id for r in await store.list_tables(("over",))] == ["t1"]
            assert await store.list_tables(("open", "playing")) == []
            with pytest.raises(Exception):  # noqa: B017 - a move is never written twice
                await store.record_action("t1", 2, 1, 0, "draw", version=4)
            assert (await store.load("t1")).actions[-1] == (2, 1, 0, "discard 9C")  # type: ignore[union-attr]
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
