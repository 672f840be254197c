"""``make bench-serve``: the web game under load, through real WebSocket clients over loopback.

Starts ``biriba serve`` as its own process (SQLite, then PostgreSQL), opens N
tables of four seats, and seats four WebSocket clients at each; every client
answers its turns with a random legal action after a second's thought.
Beside them, P "paced" tables of one person and three greedy bots at the
bots' pace of 0.5 s, and H tables of four hard bots at full speed (no pause:
their searches run one after another in the server's bot workers).  Each
load is run twice, without the hard bots (quiet) and with them (loaded).

It reports actions per second, the round trip of a person's action (sent
until the state that holds it comes back) as p50 and p99, the round trip
of a ping (p50, p95), the pace of the paced tables' bots (the median time
between two bot moves in a row, against the 0.5 s asked), the hard bots'
decisions, the server's memory per table, and the share of a core its
own process used (``server_cpu_share``; its bot workers apart).  Figures, not a test: the
machine is shared and noisy, and the clients run on the same two cores.

With ``--watchers W``, ``--deaf`` and ``--churn``, one more table (four
greedy bots at 0.2 s a move) draws what a hostile review threw at the
server (issue 49): W watchers, a watcher that joins with a 4 KiB receive
buffer and never reads, and a client that joins and leaves in a loop.
The round trips above are the other tables'; it reports beside them the
messages a watcher was sent, the join-and-leave cycles, and whether the
deaf client was cut off.

With ``--processes 1,2,3`` it measures the server as several processes
instead (docs/deploy.md): for each count, that many ``biriba serve
--redis`` processes on one PostgreSQL behind nginx (the repository's
configuration), the tables of four clients only, the clients in this
process.  Beside actions per second and the round trips, it reports the
CPU-seconds that the servers, PostgreSQL and Redis each spent per thousand
actions (from ``/proc``), from which the figure for more cores can be read.

With ``--watch W``, each table of four people has W watchers too (reading every state), and each run reports
``servers_cpu_s_per_1000``: the CPU-seconds the server (its bot workers included) spent per thousand actions.

Usage: ``python benchmarks/bench_serve.py [--tables 200] [--paced 10] [--hard 20] [--seconds 30] [--think 1]
[--db sqlite|postgresql|both] [--watch 2] [--watchers 300] [--deaf] [--churn] [--processes 1,2,3 [--affinity]]``.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from clusterkit import ServerProcess, nginx, redis_server
from serverkit import BIRIBA, create_table, deaf_watcher, server_process, sit, ws_url

#: The server's bot workers: every core but one (this machine has two).
WORKERS = 1

POSTGRES = "postgresql://postgres@127.0.0.1:5432"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def whole(message: dict[str, Any], last: dict[str, Any]) -> dict[str, Any]:
    """A state message with what it names as the same taken from the last one (the clients join with "same",
    as the page does)."""
    return {**message, **{key: last[key] for key in message.pop("same", [])}}


async def client(url: str, table_id: str, token: str, seed: int, think: float, stop: float, trips: list[float]) -> int:
    rng = random.Random(seed)
    last: dict[str, Any] = {}
    sent_at: dict[int, float] = {}
    actions = 0
    async with connect(ws_url(url, table_id), max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "token": token, "since": 0, "same": True}))
        while time.monotonic() < stop:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop - time.monotonic())))
                if message["type"] == "state":
                    last = message = whole(message, last)
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


async def paced_client(
    url: str, table_id: str, token: str, seed: int, think: float, stop: float, gaps: list[float], pings: list[float]
) -> None:
    """A person at a table of three bots: plays its turns, notes the time between two bot moves, and pings.

    It keeps reading while it thinks, so that a pong or a bot's move is timed when it comes.
    """
    rng = random.Random(seed)
    last_bot: float | None = None
    pinged: float | None = None
    next_ping = time.monotonic() + 1
    due: tuple[float, dict[str, Any]] | None = None  # an action to send at a time (after thinking)
    joined = False
    last: dict[str, Any] = {}
    async with connect(ws_url(url, table_id), max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "token": token, "since": 0, "same": True}))
        while time.monotonic() < stop:
            now = time.monotonic()
            if pinged is None and now >= next_ping:
                pinged = now
                await ws.send(json.dumps({"type": "ping"}))
            if due is not None and now >= due[0]:
                await ws.send(json.dumps(due[1]))
                due = None
            wake = min(stop, next_ping if pinged is None else stop, due[0] if due is not None else stop)
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.01, wake - now)))
                if message["type"] == "state":
                    last = message = whole(message, last)
            except TimeoutError:
                continue
            now = time.monotonic()
            if message["type"] == "pong" and pinged is not None:
                pings.append(now - pinged)
                pinged, next_ping = None, now + 1
                continue
            if message["type"] != "state":
                continue
            for event in message["events"] if joined else ():  # the first state tells the past: not timed
                if event["kind"] != "action" or event["seat"] == 0:
                    last_bot = None
                else:
                    if last_bot is not None:
                        gaps.append(now - last_bot)
                    last_bot = now
            joined = True
            if message["legal"]:
                action = rng.choice(message["legal"])
                due = (now + think, {"type": "action", "action": action, "version": message["version"]})
            elif message["result"] is not None and message["table"]["status"] != "over":
                await ws.send(json.dumps({"type": "next"}))


def cpu_seconds(pid: int) -> float:
    """The CPU time a process and its waited-for children have used (user and system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """A process's CPU time with its live children's (a server and its bot workers)."""
    total = cpu_seconds(pid)
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        with contextlib.suppress(FileNotFoundError):
            total += tree_cpu(int(child))
    return total


def postgres_cpu() -> float:
    """The CPU time of every PostgreSQL process on the machine (the benchmark runs alone on it)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/comm"):
        with contextlib.suppress(OSError):
            if stat.read_text().strip() == "postgres":
                total += cpu_seconds(int(stat.parent.name))
    return total


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[max(0, int(len(values) * q) - 1)] * 1000, 1)


async def load(
    url: str, tables: int, seconds: float, think: float, paced: int, hard: int, hostile: Hostile
) -> dict[str, Any]:
    seats, paced_seats = await make_tables(url, tables, paced, hard)
    if not (hostile.watchers or hostile.deaf or hostile.churn):
        return await play(url, seats, paced_seats, seconds, think, hostile.watch)
    greedy = {"kind": "bot", "bot": "greedy"}
    watched = (await asyncio.to_thread(create_table, url, [greedy] * 4, bot_delay=0.2, deal_pause=0))["id"]
    stop = time.monotonic() + seconds  # CLOCK_MONOTONIC: the same in the hostile clients' process
    cycles: list[int] = []
    deaf = await asyncio.to_thread(deaf_watcher, url, watched) if hostile.deaf else None
    # the watchers in a process of their own, so that the players' round trips are not this process's queue
    with concurrent.futures.ProcessPoolExecutor(1) as pool:
        watching = asyncio.get_running_loop().run_in_executor(pool, watchers, url, watched, hostile.watchers, stop)
        try:
            figures, *_ = await asyncio.gather(
                play(url, seats, paced_seats, seconds, think, hostile.watch),
                *([churn(url, watched, stop, cycles)] if hostile.churn else []),
            )
            told = await watching
        finally:
            if deaf is not None:
                deaf.close()
    metrics = httpx.get(url + "/metrics").text
    cut = [line for line in metrics.splitlines() if line.startswith('biriba_clients_cut_total{code="4420"}')]
    figures.update(
        watchers=hostile.watchers,
        watcher_messages_median=sorted(told)[len(told) // 2] if told else None,
        churn_cycles=sum(cycles),
        deaf_cut=bool(cut and float(cut[0].split()[-1]) >= 1),
    )
    return figures


@dataclass(frozen=True)
class Hostile:
    """What the hostile review threw at one table: watchers, a client that never reads, one that comes and goes."""

    watchers: int = 0
    deaf: bool = False
    churn: bool = False
    watch: int = 0  # and watchers at each table of four people (not hostile: what a busy site has)


def watchers(url: str, table_id: str, count: int, stop: float) -> list[int]:
    """``count`` spectators of the table until ``stop``, in a process of their own: the messages each was sent."""
    told: list[int] = []

    async def main() -> None:
        await asyncio.gather(*(watcher(url, table_id, stop, told) for _ in range(count)))

    asyncio.run(main())
    return told


async def watcher(url: str, table_id: str, stop: float, told: list[int]) -> None:
    """A spectator that reads everything until ``stop``; ``told``: how many messages it was sent."""
    count = 0
    async with connect(ws_url(url, table_id), max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "token": None, "since": 0, "same": True}))
        while (left := stop - time.monotonic()) > 0:
            try:
                await asyncio.wait_for(ws.recv(), timeout=left)
            except TimeoutError:
                break
            count += 1
    told.append(count)


async def churn(url: str, table_id: str, stop: float, cycles: list[int]) -> None:
    """A client that joins the table, reads its first state, and leaves, again and again until ``stop``."""
    count = 0
    while time.monotonic() < stop:
        async with connect(ws_url(url, table_id), max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "join", "token": None, "since": 0}))
            while json.loads(await ws.recv())["type"] != "state":
                pass
        count += 1
    cycles.append(count)


async def make_tables(
    url: str, tables: int, paced: int, hard: int
) -> tuple[list[tuple[str, list[str], int]], list[tuple[str, str, int]]]:
    person = {"kind": "person"}
    seats = []
    for n in range(tables):
        table = await asyncio.to_thread(create_table, url, [person] * 4, bot_delay=0, deal_pause=0)
        tokens = [await asyncio.to_thread(sit, url, table["id"], s, f"p{s}") for s in range(4)]
        seats.append((table["id"], tokens, n))
    greedy = {"kind": "bot", "bot": "greedy"}
    paced_seats = []
    for n in range(paced):
        table = await asyncio.to_thread(create_table, url, [person, greedy, greedy, greedy], bot_delay=0.5)
        paced_seats.append((table["id"], await asyncio.to_thread(sit, url, table["id"], 0, "paced"), n))
    for _ in range(hard):
        await asyncio.to_thread(create_table, url, [{"kind": "bot", "bot": "hard"}] * 4, bot_delay=0, deal_pause=0)
    return seats, paced_seats


async def play(
    url: str,
    seats: list[tuple[str, list[str], int]],
    paced_seats: list[tuple[str, str, int]],
    seconds: float,
    think: float,
    watch: int = 0,
) -> dict[str, Any]:
    tables, paced = len(seats), len(paced_seats)
    trips: list[float] = []
    gaps: list[float] = []
    pings: list[float] = []
    start = time.monotonic()
    stop = start + seconds
    counts = await asyncio.gather(
        *(
            client(url, tid, token, n * 4 + s, think, stop, trips)
            for tid, tokens, n in seats
            for s, token in enumerate(tokens)
        ),
        *(paced_client(url, tid, token, 10_000 + n, think, stop, gaps, pings) for tid, token, n in paced_seats),
        *(watcher(url, tid, stop, []) for tid, _, _ in seats for _ in range(watch)),
    )
    elapsed = time.monotonic() - start
    metrics = httpx.get(url + "/metrics").text
    decisions = sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("biriba_bot_decisions"))
    return {
        "tables": tables,
        "paced_tables": paced,
        "seconds": round(elapsed, 1),
        "watchers_per_table": watch,
        "actions": sum(c for c in counts if c is not None),
        "actions_per_s": round(sum(c for c in counts if c is not None) / elapsed, 1),
        "round_trip_ms_p50": quantile(trips, 0.5),
        "round_trip_ms_p99": quantile(trips, 0.99),
        "ping_ms_p50": quantile(pings, 0.5),
        "ping_ms_p95": quantile(pings, 0.95),
        "bot_pace_ms_median": quantile(gaps, 0.5),
        "bot_pace_ms_p90": quantile(gaps, 0.9),
        "hard_decisions": int(decisions),
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


#: A benchmark makes hundreds of tables, and their clients, from one address: the quotas are opened wide.
ROOMY = ("--tables-per-minute", "1000000", "--open-tables", "1000000", "--connections-per-address", "1000000")
ROOMY += ("--connections-per-table", "1000000", "--connections-per-minute", "1000000", "--watchers", "1000000")


def run(
    db_kind: str, tables: int, seconds: float, think: float, folder: Path, paced: int, hard: int, hostile: Hostile
) -> dict[str, Any]:
    pg_name = None
    if db_kind == "postgresql":
        pg_name = asyncio.run(fresh_postgres())
        db = f"{POSTGRES}/{pg_name}"
    else:
        db = f"sqlite:///{folder / f'bench-{hard}.sqlite3'}"
    try:
        with server_process(db, None, None, BIRIBA, "--bot-workers", str(WORKERS), *ROOMY) as (url, process):
            base = rss_kib(process.pid)
            cpu, tree = cpu_seconds(process.pid), tree_cpu(process.pid)
            figures = asyncio.run(load(url, tables, seconds, think, paced, hard, hostile))
            figures["server_cpu_share"] = round((cpu_seconds(process.pid) - cpu) / figures["seconds"], 2)
            # the server's process and its bot workers, per thousand actions of the people's tables
            figures["servers_cpu_s_per_1000"] = round(
                (tree_cpu(process.pid) - tree) * 1000 / max(1, figures["actions"]), 2
            )
            figures["hard_tables"] = hard
            figures["memory_per_table_kib"] = round((rss_kib(process.pid) - base) / tables, 1)
            figures["server_rss_mib"] = round(rss_kib(process.pid) / 1024, 1)
            figures["db"] = db_kind
            assert httpx.get(url + "/api/rules").status_code == 200
        return figures
    finally:
        if pg_name:
            asyncio.run(drop_postgres(pg_name))


def cluster_run(
    processes: int, tables: int, seconds: float, think: float, folder: Path, affinity: bool, watch: int = 0
) -> dict[str, Any]:
    """``processes`` servers on one PostgreSQL and a Redis, behind nginx; tables of four clients, played."""
    pg_name = asyncio.run(fresh_postgres())
    db = f"{POSTGRES}/{pg_name}"
    run_folder = folder / f"cluster-{processes}"
    (run_folder / "nginx").mkdir(parents=True)
    servers = [ServerProcess(db, "", 5.0) for _ in range(processes)]
    try:
        with redis_server(run_folder) as redis:
            for server in servers:
                server.redis = redis.url
                server.start()
            with nginx([s.port for s in servers], run_folder / "nginx", affinity) as url:
                seats, _ = asyncio.run(make_tables(url, tables, 0, 0))
                pids = [s.process.pid for s in servers if s.process is not None]
                assert redis.process is not None
                before = ([tree_cpu(p) for p in pids], postgres_cpu(), cpu_seconds(redis.process.pid))
                figures = asyncio.run(play(url, seats, [], seconds, think, watch))
                after = ([tree_cpu(p) for p in pids], postgres_cpu(), cpu_seconds(redis.process.pid))
        per_thousand = 1000 / max(1, figures["actions"])
        figures.update(
            processes=processes,
            affinity=affinity,
            db="postgresql",
            servers_cpu_s_per_1000=round((sum(after[0]) - sum(before[0])) * per_thousand, 2),
            postgres_cpu_s_per_1000=round((after[1] - before[1]) * per_thousand, 2),
            redis_cpu_s_per_1000=round((after[2] - before[2]) * per_thousand, 2),
        )
        for key in ("paced_tables", "ping_ms_p50", "ping_ms_p95", "bot_pace_ms_median", "bot_pace_ms_p90"):
            figures.pop(key, None)
        return figures
    finally:
        for server in servers:
            server.stop()
        asyncio.run(drop_postgres(pg_name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--paced", type=int, default=10, help="tables of a person and three bots at 0.5 s a move")
    parser.add_argument("--hard", type=int, default=20, help="tables of four hard bots at full speed (loaded)")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--think", type=float, default=1.0, help="seconds a client waits before it acts")
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--processes", metavar="N,N", help="several server processes behind nginx instead (for example 1,2,3)"
    )
    parser.add_argument(
        "--affinity", action="store_true", help="with --processes: nginx sends each table's WebSockets to one process"
    )
    parser.add_argument("--watch", type=int, default=0, help="watchers at each table of four people")
    parser.add_argument("--watchers", type=int, default=0, help="watchers on one more table of bots")
    parser.add_argument("--deaf", action="store_true", help="and a watcher there that never reads")
    parser.add_argument("--churn", action="store_true", help="and a client there that joins and leaves in a loop")
    args = parser.parse_args()
    hostile = Hostile(args.watchers, args.deaf, args.churn, args.watch)
    import tempfile

    results = []
    with tempfile.TemporaryDirectory() as folder:
        if args.processes:
            for count in (int(n) for n in args.processes.split(",")):
                figures = cluster_run(
                    count, args.tables, args.seconds, args.think, Path(folder), args.affinity, args.watch
                )
                results.append(figures)
                print(json.dumps(figures), flush=True)
        kinds = ("sqlite", "postgresql") if args.db == "both" else (args.db,)
        for kind in () if args.processes else kinds:
            for hard in (0, args.hard):  # quiet, then loaded with the hard bots
                figures = run(kind, args.tables, args.seconds, args.think, Path(folder), args.paced, hard, hostile)
                results.append(figures)
                print(json.dumps(figures), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
