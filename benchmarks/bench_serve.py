"""``make bench-serve``: the web game under load, through real WebSocket clients over loopback.

Starts ``biriba serve`` as its own process (SQLite, then PostgreSQL), opens N
tables of four seats, and seats four WebSocket clients at each; every client
answers its turns with a random legal action after a second's thought.  It
reports actions per second, the round trip of an action (sent until the
state that holds it comes back) as p50 and p99, and the server's memory per
table.  Figures, not a test: the machine is shared and noisy.

Usage: ``python benchmarks/bench_serve.py [--tables 200] [--seconds 30] [--think 1] [--db sqlite|postgresql]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serverkit import create_table, server_process, sit, ws_url

POSTGRES = "postgresql://postgres@127.0.0.1:5432"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def client(url: str, table_id: str, token: str, seed: int, think: float, stop: float, trips: list[float]) -> int:
    rng = random.Random(seed)
    sent_at: dict[int, float] = {}
    actions = 0
    async with connect(ws_url(url, table_id), max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "token": token, "since": 0}))
        while time.monotonic() < stop:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop - time.monotonic())))
            except TimeoutError:
                break
            if message["type"] != "state":
                continue
            for version, at in list(sent_at.items()):
                if message["version"] > version:
                    trips.append(time.monotonic() - at)
                    del sent_at[version]
            if message["legal"]:
                await asyncio.sleep(think)
                sent_at[message["version"]] = time.monotonic()
                action = rng.choice(message["legal"])
                await ws.send(json.dumps({"type": "action", "action": action, "version": message["version"]}))
                actions += 1
            elif message["result"] is not None and message["table"]["status"] != "over" and rng.random() < 0.25:
                await ws.send(json.dumps({"type": "next"}))
    return actions


async def load(url: str, tables: int, seconds: float, think: float) -> dict[str, Any]:
    seats = []
    for n in range(tables):
        table = await asyncio.to_thread(create_table, url, [{"kind": "person"}] * 4, bot_delay=0, deal_pause=0)
        tokens = [await asyncio.to_thread(sit, url, table["id"], s, f"p{s}") for s in range(4)]
        seats.append((table["id"], tokens, n))
    trips: list[float] = []
    start = time.monotonic()
    stop = start + seconds
    counts = await asyncio.gather(
        *(
            client(url, tid, token, n * 4 + s, think, stop, trips)
            for tid, tokens, n in seats
            for s, token in enumerate(tokens)
        )
    )
    elapsed = time.monotonic() - start
    trips.sort()
    return {
        "tables": tables,
        "seconds": round(elapsed, 1),
        "actions": sum(counts),
        "actions_per_s": round(sum(counts) / elapsed, 1),
        "round_trip_ms_p50": round(statistics.median(trips) * 1000, 1) if trips else None,
        "round_trip_ms_p99": round(trips[int(len(trips) * 0.99) - 1] * 1000, 1) if trips else None,
    }


async def fresh_postgres() -> str:
    name = f"biriba_bench_{random.randrange(16**6):06x}"
    conn = await asyncpg.connect(POSTGRES + "/test")
    await conn.execute(f"CREATE DATABASE {name}")
    await conn.close()
    return name


async def drop_postgres(name: str) -> None:
    conn = await asyncpg.connect(POSTGRES + "/test")
    await conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    await conn.close()


def run(db_kind: str, tables: int, seconds: float, think: float, folder: Path) -> dict[str, Any]:
    pg_name = None
    if db_kind == "postgresql":
        pg_name = asyncio.run(fresh_postgres())
        db = f"{POSTGRES}/{pg_name}"
    else:
        db = f"sqlite:///{folder / 'bench.sqlite3'}"
    try:
        with server_process(db) as (url, process):
            base = rss_kib(process.pid)
            figures = asyncio.run(load(url, tables, seconds, think))
            figures["memory_per_table_kib"] = round((rss_kib(process.pid) - base) / tables, 1)
            figures["server_rss_mib"] = round(rss_kib(process.pid) / 1024, 1)
            figures["db"] = db_kind
            assert httpx.get(url + "/api/rules").status_code == 200
        return figures
    finally:
        if pg_name:
            asyncio.run(drop_postgres(pg_name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think", type=float, default=1.0, help="seconds a client waits before it acts")
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    import tempfile

    results = []
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("sqlite", "postgresql") if args.db == "both" else (args.db,):
            figures = run(kind, args.tables, args.seconds, args.think, Path(folder))
            results.append(figures)
            print(json.dumps(figures), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
