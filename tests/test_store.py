"""The web game's store, on SQLite and on the machine's PostgreSQL: one code path, the same answers."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config

from biriba.server.store import Fenced, Lease, SeatInfo, Store, TableRow, async_url, migrate, token_hash


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


def test_a_lease_is_one_process_s_and_a_stale_epoch_writes_nothing(db_url: str) -> None:
    """Ownership and fencing (docs/deploy.md): one owner at a time; a write naming an old epoch is refused whole."""

    async def main() -> None:
        store = await Store.open(db_url)
        try:
            await store.create_table(TableRow("t1", "classic", {}, [SeatInfo("bot", bot="greedy")] * 4, "seed"))
            first = await store.claim("t1", "node-a", ttl=0.5)
            assert first == 1
            assert await store.claim("t1", "node-b", ttl=0.5) is None  # a's while its lease lasts
            await store.record_deal("t1", 1, 0, ["7H"], version=1, totals=[0, 0], epoch=first)
            await store.record_action("t1", 1, 1, 1, "draw", version=2, epoch=first)
            assert await store.renew("node-a", ["t1"], ttl=0.5) == {"t1"}
            await asyncio.sleep(0.7)  # a froze: its lease ran out
            second = await store.claim("t1", "node-b", ttl=5)
            assert second == 2
            assert (await store.leases(["t1"]))["t1"] == Lease("node-b", pytest.approx(time.time() + 5, abs=2), 2, 2)
            with pytest.raises(Fenced):
                await store.record_action("t1", 2, 1, 2, "draw", version=3, epoch=first)
            with pytest.raises(Fenced):
                await store.record_deal("t1", 2, 1, ["8H"], version=3, totals=[0, 0], epoch=first)
            with pytest.raises(Fenced):
                await store.save_seats("t1", [SeatInfo("bot", bot="easy")] * 4, "playing", epoch=first)
            with pytest.raises(Fenced):
                await store.save_settings("t1", {"handed": [0]}, epoch=first)
            assert await store.renew("node-a", ["t1"], ttl=5) == set()  # a learns it lost the table
            stored = await store.load("t1")
            assert stored is not None
            assert stored.actions == [(1, 1, 1, "draw", None)] and stored.row.version == 2
            assert stored.row.seats[0].bot == "greedy" and stored.row.settings == {}
            await store.record_action("t1", 2, 1, 2, "draw", version=3, epoch=second)  # b's epoch writes
            await store.release("node-b", ["t1"])
            assert (await store.leases(["t1"]))["t1"].owner is None
            assert await store.claim("t1", "node-c", ttl=5) == 3  # let go: taken at once
            assert await store.claim("t1", "node-d", ttl=5, steal=True) == 4  # a process alone takes its tables
        finally:
            await store.close()

    asyncio.run(main())


def test_a_batch_commits_its_current_epochs_and_refuses_only_the_stale(db_url: str) -> None:
    """Moves of many tables share a commit: one table's stale write does not hold up the others'."""

    async def main() -> None:
        store = await Store.open(db_url)
        try:
            for tid in ("t1", "t2"):
                await store.create_table(TableRow(tid, "classic", {}, [SeatInfo("bot", bot="greedy")] * 4, "s"))
            mine = await store.claim("t1", "a", ttl=30)
            theirs = await store.claim("t2", "a", ttl=30)
            assert await store.claim("t2", "b", ttl=30, steal=True) == (theirs or 0) + 1
            results = await asyncio.gather(
                store.record_action("t1", 1, 1, 0, "draw", version=1, epoch=mine),
                store.record_action("t2", 1, 1, 0, "draw", version=1, epoch=theirs),
                return_exceptions=True,
            )
            assert results[0] is None and isinstance(results[1], Fenced)
            assert [len((await store.load(t)).actions) for t in ("t1", "t2")] == [1, 0]  # type: ignore[union-attr]
        finally:
            await store.close()

    asyncio.run(main())
