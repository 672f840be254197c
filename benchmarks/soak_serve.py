"""``make soak-serve``: the web game for a long while, tables coming and going; its memory minute by minute.

Starts ``biriba serve`` as its own process and keeps it busy for the
given minutes (30 in the measured run) with ``make bench-serve``'s kind of
load: tables of four people (WebSocket clients answering their turns after
a second's thought) that play for a few minutes and are then abandoned,
new ones taking their place; tables of bots alone, with a short target,
played to the match's end; and a few tables of hard bots.  Every minute it
records the server's RSS (and its bot workers'), the tables it holds in
memory and the engine caches' size.  The memory should be flat once warm:
the last minute within 10% of the tenth.  Figures, not a test.

Usage: ``python benchmarks/soak_serve.py [--minutes 30] [--tables 100] [--db sqlite|postgresql] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from bench_serve import ROOMY, WORKERS, client, drop_postgres, fresh_postgres, rss_kib

from serverkit import BIRIBA, create_table, server_process, sit

#: Minutes to warm up: the first abandoned tables leave memory after five minutes idle, so tables in memory
#: level off about the tenth minute.
WARM_UP = 10
PERSON = {"kind": "person"}
GREEDY = {"kind": "bot", "bot": "greedy"}
HARD = {"kind": "bot", "bot": "hard"}


def children_rss_kib(pid: int) -> int:
    """The server's bot workers' memory (its child processes)."""
    total = 0
    for child in Path(f"/proc/{pid}/task").glob("*/children"):
        for kid in child.read_text().split():
            with contextlib.suppress(OSError):
                total += rss_kib(int(kid))
    return total


async def people_table(url: str, seed: int, lifetime: float) -> int:
    """A table of four people that play for ``lifetime`` seconds, then leave it."""
    table = await asyncio.to_thread(create_table, url, [PERSON] * 4, bot_delay=0, deal_pause=0)
    tokens = [await asyncio.to_thread(sit, url, table["id"], s, f"p{s}") for s in range(4)]
    stop = time.monotonic() + lifetime
    counts = await asyncio.gather(
        *(client(url, table["id"], t, seed * 4 + s, 1.0, stop, []) for s, t in enumerate(tokens))
    )
    return sum(counts)


async def keep_people(url: str, tables: int, until: float, done: list[int]) -> None:
    """``tables`` tables of people at all times: each plays one to five minutes, then another takes its place."""
    rng = random.Random(1)
    running: set[asyncio.Task[int]] = set()
    made = 0
    while time.monotonic() < until:
        while len(running) < tables:
            made += 1
            lifetime = min(rng.uniform(60, 300), max(1.0, until - time.monotonic()))
            running.add(asyncio.create_task(people_table(url, made, lifetime)))
        finished, running = await asyncio.wait(running, timeout=5, return_when=asyncio.FIRST_COMPLETED)
        done += [task.result() for task in finished if not task.exception()]
    await asyncio.gather(*running, return_exceptions=True)


async def keep_bots(url: str, until: float, made: list[str]) -> None:
    """Two tables of greedy bots a minute, played to the end of a short match, and a few of hard bots."""
    for _ in range(3):
        made.append((await asyncio.to_thread(create_table, url, [HARD] * 4, bot_delay=0, deal_pause=0))["id"])
    while time.monotonic() < until:
        table = await asyncio.to_thread(
            create_table, url, [GREEDY] * 4, bot_delay=0, deal_pause=0, options={"target": 500}
        )
        made.append(table["id"])
        await asyncio.sleep(30)


async def record(url: str, pid: int, until: float, minutes: list[dict[str, Any]]) -> None:
    start = time.monotonic()
    while True:
        metrics = httpx.get(url + "/metrics", timeout=30).text
        numbers = {
            name: float(value)
            for name, _space, value in (line.rpartition(" ") for line in metrics.splitlines() if line[:1] != "#")
            if name
        }
        minutes.append(
            {
                "minute": round((time.monotonic() - start) / 60, 1),
                "server_rss_mib": round(rss_kib(pid) / 1024, 1),
                "workers_rss_mib": round(children_rss_kib(pid) / 1024, 1),
                "live_tables": int(numbers.get("biriba_live_tables", 0)),
                "connections": int(numbers.get("biriba_connections", 0)),
                "engine_cache_entries": int(numbers.get("biriba_engine_cache_total", 0)),
                "engine_cache_clears": int(numbers.get("biriba_engine_cache_clears", 0)),
                "gc_pause_ms": round(numbers.get("biriba_gc_pause_seconds", 0) * 1000, 1),
            }
        )
        print(json.dumps(minutes[-1]), flush=True)
        if time.monotonic() >= until:
            return
        await asyncio.sleep(min(60, max(0, until - time.monotonic())))


async def soak(url: str, pid: int, minutes: float, tables: int) -> dict[str, Any]:
    until = time.monotonic() + minutes * 60
    played: list[int] = []
    bots: list[str] = []
    rows: list[dict[str, Any]] = []
    await asyncio.gather(
        keep_people(url, tables, until, played), keep_bots(url, until, bots), record(url, pid, until, rows)
    )
    over = sum(1 for tid in bots if httpx.get(f"{url}/api/tables/{tid}", timeout=30).json().get("status") == "over")
    warm = rows[min(WARM_UP, len(rows) - 1)]["server_rss_mib"]
    return {
        "minutes": minutes,
        "actions": sum(played),
        "bot_matches_over": over,
        "server_rss_mib_warm": warm,
        "server_rss_mib_last": rows[-1]["server_rss_mib"],
        "growth_after_warm_up": round(rows[-1]["server_rss_mib"] / warm - 1, 3),
        "by_minute": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--tables", type=int, default=100, help="tables of four people at all times")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pg_name = asyncio.run(fresh_postgres()) if args.db == "postgresql" else None
        db = f"postgresql://postgres@127.0.0.1:5432/{pg_name}" if pg_name else f"sqlite:///{folder}/soak.sqlite3"
        try:
            with server_process(db, None, None, BIRIBA, "--bot-workers", str(WORKERS), *ROOMY) as (url, process):
                figures = asyncio.run(soak(url, process.pid, args.minutes, args.tables))
        finally:
            if pg_name:
                asyncio.run(drop_postgres(pg_name))
    figures["db"] = args.db
    summary = {k: v for k, v in figures.items() if k != "by_minute"}
    print(json.dumps(summary), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
