"""Many server processes on one PostgreSQL, events through Redis, nginx in front (docs/deploy.md).

Real processes (``biriba serve --redis``), a PostgreSQL, a Redis and an
nginx (running the repository's ``deploy/nginx/biriba.conf``), and steady
WebSocket players who reconnect through nginx as the page does.  Each test
plays tables of four people and tables of bots watched by two, does one
harm mid-play (a process killed, frozen, added and removed; Redis or
PostgreSQL restarted), and then checks, against the store, what every
client was told: each event once and in order, each the store's own (no
acknowledged action lost, none duplicated or in conflict), every table
gone on after the harm, every person back in their seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.protocol import State

from biriba.server.live import rebuild
from biriba.server.store import Store
from browserkit import Sockets, chromium
from clusterkit import PostgresServer, RedisServer, ServerProcess, SteadyPlayer, nginx, postgres_server, redis_server
from serverkit import BIRIBA, GREEDY, PERSON, Player, create_table, server_process, signed_up, sit, ws_url
from test_quick import until_seated
from test_web_e2e import DESKTOP, play_my_turn, shot, sit_down, wait_my_turn, watch_errors

pytestmark = [
    pytest.mark.needs("postgresql"),
    pytest.mark.needs("redis"),
    pytest.mark.needs("nginx"),
    pytest.mark.xdist_group("cluster"),  # one cluster at a time: three servers and their bot workers fill the machine
]

#: The servers' lease: a dead process's tables are taken over within about this, plus a beat.
LEASE = 2.0
#: Seconds within which a table left by a process must be driven by another: a bound on liveness only (how long
#: it took is measured and printed, for docs/deploy.md; a loaded machine may take several times the lease).
LIVENESS = LEASE + 20
#: Seconds of play in each test (the harm comes a third of the way in).
PLAY = 16.0
#: Seconds of play in the rolling restart's test: three processes stopped and started in turn, then new clients
#: knock for AFTER_ROLL seconds more (nginx's old failure count kept a restarted process out for 5 s at least).
ROLL_PLAY = 40.0
AFTER_ROLL = 8.0
#: Seconds between two new watchers of each of the rolling restart's two knockers, and the quiet tables they watch.
KNOCK_EVERY = 0.1
KNOCKED_TABLES = 20
#: Seconds a process stays frozen in the proxy's test, and within which nginx must have passed it over
#: (its proxy_read_timeout is 10 s).
FROZEN_FOR = 13.0
PASSED_OVER_WITHIN = 12.0
#: The refusals a client may meet: while the servers change hands (it tries again), and as any quick player does
#: (an action on a state already moved on, the next deal asked for as it starts by itself); nothing else.
EXPECTED = {"moving", "store", "stale", "not_your_turn", "no_deal"}


@dataclass
class Run:
    """One test's cluster: its store, bus, processes, proxy, tables and players."""

    db: str
    redis: RedisServer
    servers: list[ServerProcess]
    url: str = ""
    tables: list[str] = field(default_factory=list)
    players: list[SteadyPlayer] = field(default_factory=list)

    async def owners(self, table_ids: list[str] | None = None) -> dict[str, str | None]:
        return {k: v[0] for k, v in (await self.leases(table_ids)).items()}

    async def versions(self) -> dict[str, int]:
        return {k: v[1] for k, v in (await self.leases()).items()}

    async def leases(self, table_ids: list[str] | None = None) -> dict[str, tuple[str | None, int, str]]:
        connection = await asyncpg.connect(self.db, timeout=5)
        try:
            rows = await connection.fetch(
                "SELECT id, owner, version, status FROM tables WHERE id = ANY($1::text[])", table_ids or self.tables
            )
            return {r["id"]: (r["owner"], r["version"], r["status"]) for r in rows}
        finally:
            await connection.close()

    def busiest(self, held: dict[str, str | None]) -> ServerProcess:
        """The live process that drives the most tables."""
        alive = [s for s in self.servers if s.process is not None and s.process.poll() is None]
        return max(alive, key=lambda s: list(held.values()).count(s.node))

    async def taken_over(self, tables: list[str], node: str, within: float) -> float:
        """Seconds until none of ``tables`` is driven by ``node`` any more (each by a live process, unless its
        match is over: nobody need drive it then)."""
        started = time.monotonic()
        while True:
            held = {k: v[0] for k, v in (await self.leases(tables)).items() if v[2] != "over"}
            if all(owner is not None and owner != node for owner in held.values()):
                return time.monotonic() - started
            assert time.monotonic() - started < within, f"no takeover in {within} s: {held}"
            await asyncio.sleep(0.05)


@contextlib.contextmanager
def cluster(db: str, tmp_path: Path, processes: int = 3, spare: int = 0) -> Iterator[Run]:
    """``processes`` servers behind nginx (with ``spare`` more ports in its upstream, started by the test)."""
    (tmp_path / "nginx").mkdir()
    with redis_server(tmp_path) as redis:
        run = Run(db, redis, [ServerProcess(db, redis.url, LEASE) for _ in range(processes + spare)])
        try:
            for server in run.servers[:processes]:
                server.start()
            with nginx([s.port for s in run.servers], tmp_path / "nginx") as url:
                run.url = url
                yield run
        finally:
            for server in run.servers:
                with contextlib.suppress(Exception):
                    server.signal(signal.SIGCONT)
                server.stop()


def seat_players(run: Run, persons: int, bots: int) -> None:
    """``persons`` tables of four people and ``bots`` tables of four greedy bots with two watchers each."""
    for number in range(persons):
        table = create_table(run.url, [PERSON] * 4, bot_delay=0, absent_after=600, deal_pause=0.5)
        run.tables.append(table["id"])
        for seat in range(4):
            token = sit(run.url, table["id"], seat, f"P{seat}")
            run.players.append(SteadyPlayer(run.url, table["id"], token, seat, f"{number}/{seat}"))
    for number in range(bots):
        table = create_table(run.url, [GREEDY] * 4, bot_delay=0.05, deal_pause=0.5)
        run.tables.append(table["id"])
        run.players += [SteadyPlayer(run.url, table["id"], None, None, f"w{number}/{w}") for w in range(2)]


def play_through(run: Run, harm: Callable[[], Awaitable[dict[str, Any]]], seconds: float = PLAY) -> dict[str, Any]:
    """Play for ``seconds``, the harm a third of the way in; then check every client against the store.

    The players play on through the harm however long it takes (a loaded machine starts and stops processes
    slowly), and for a third of ``seconds`` after it at least: what is checked is what follows the harm."""

    async def scenario() -> dict[str, Any]:
        started = time.monotonic()
        end = math.inf
        playing = asyncio.gather(*(p.run(lambda: end) for p in run.players))
        await asyncio.sleep(seconds / 3)
        before = await run.versions()
        measured = await harm()
        end = max(started + seconds, time.monotonic() + seconds / 3)
        await playing
        after = await run.versions()
        measured["stalled"] = [t for t in run.tables if after[t] <= before[t]]
        return measured

    measured = asyncio.run(scenario())
    assert measured["stalled"] == [], "every table went on after the harm"
    seated = [p for p in run.players if p.seat is not None]
    assert all(p.joined_as and p.joined_as[-1] == p.seat for p in seated), "every person back in their seat"
    errors: Counter[str] = Counter()
    for player in run.players:
        errors.update(player.errors)
    assert set(errors) <= EXPECTED, errors
    measured.update(check_against_store(run), refusals=dict(errors))
    measured["reconnections"] = sum(p.connections - 1 for p in run.players)
    print(measured)
    return measured


def check_against_store(run: Run) -> dict[str, int]:
    """Every event a client was told is the store's, in order and once; the store's moves replay (none conflict)."""

    async def main() -> dict[str, int]:
        store = await Store.open(run.db)
        try:
            events = {}
            for table_id in run.tables:
                stored = await store.load(table_id)
                assert stored is not None
                seqs = [a[0] for a in stored.actions]
                assert seqs == list(range(1, len(seqs) + 1)), f"{table_id}: the moves' sequence has a gap or a repeat"
                events[table_id] = rebuild(stored, store).table.events  # replays: every move legal where it stands
        finally:
            await store.close()
        told = 0
        for player in run.players:
            table_events = events[player.url.rsplit("/", 1)[1]]
            assert player.out_of_order == [], "a client was told an event twice or out of order"
            for number, event in player.events.items():
                assert number < len(table_events), f"a client was told event {number}, which the store lacks"
                stored_event = table_events[number]
                assert event["kind"] == str(stored_event.kind)
                if stored_event.outcome is not None:
                    assert (event["seat"], event["action"]) == (
                        stored_event.outcome.seat,
                        str(stored_event.outcome.action),
                    )
                told += 1
        assert told > 0
        return {"events_told": told, "events_stored": sum(len(e) for e in events.values())}

    return asyncio.run(main())


def test_a_killed_process_s_tables_go_on_elsewhere(postgres_url: str, tmp_path: Path) -> None:
    """kill -9 of the process that drives the most tables: the others take them over within seconds."""
    with cluster(postgres_url, tmp_path) as run:
        seat_players(run, persons=18, bots=6)

        async def kill() -> dict[str, Any]:
            held = await run.owners()
            assert set(held.values()) <= {s.node for s in run.servers}, "every table driven by one of the three"
            victim = run.busiest(held)
            orphans = [t for t, node in held.items() if node == victim.node]
            victim.signal(signal.SIGKILL)
            return {"orphans": len(orphans), "takeover_s": await run.taken_over(orphans, victim.node, LIVENESS)}

        measured = play_through(run, kill)  # the seconds it took are printed: docs/deploy.md's figure, not a bound
        assert measured["orphans"] > 0
        assert measured["reconnections"] > 0, "the victim's clients were cut off, and came back through nginx"


def test_a_frozen_owner_commits_nothing_once_its_tables_are_taken_over(postgres_url: str, tmp_path: Path) -> None:
    """SIGSTOP of an owner until its leases have passed to the others, then SIGCONT: the store refuses its writes."""
    with cluster(postgres_url, tmp_path, processes=2) as run:
        seat_players(run, persons=4, bots=4)
        frozen: list[ServerProcess] = []

        async def freeze() -> dict[str, Any]:
            held = await run.owners()
            server = run.busiest(held)
            frozen.append(server)
            mine = [t for t, node in held.items() if node == server.node]
            server.signal(signal.SIGSTOP)
            took = await run.taken_over(mine, server.node, LIVENESS)
            await asyncio.sleep(1)
            server.signal(signal.SIGCONT)  # it wakes with its bots' moves and its clocks due, and its leases gone
            return {"frozen_tables": len(mine), "takeover_s": took}

        play_through(run, freeze)

        def metrics() -> dict[str, str]:
            return dict(
                line.split()
                for line in httpx.get(frozen[0].url + "/metrics", timeout=10).text.splitlines()
                if line.startswith("biriba_") and " " in line and "{" not in line
            )

        assert float(metrics()["biriba_fenced_writes"]) >= 1, "the thawed process tried, and the store refused it"
        # what it drives is what the store says it holds (read a few times: a table may pass to its players' process
        # between the two readings)
        for _ in range(20):
            driven = float(metrics()["biriba_tables_driven"])
            held = list(asyncio.run(run.owners()).values()).count(frozen[0].node)
            if driven == held:
                break
            time.sleep(0.5)
        assert driven == held, "the thawed process drives exactly the tables whose leases it holds"


def test_redis_restarted_mid_play(postgres_url: str, tmp_path: Path) -> None:
    """Redis down for three seconds: requests to other processes are refused with a word, followers read the
    store, and when it is back every process subscribes again by itself."""
    with cluster(postgres_url, tmp_path) as run:
        seat_players(run, persons=8, bots=2)

        async def restart_redis() -> dict[str, Any]:
            run.redis.stop()
            await asyncio.sleep(3)
            buses = [httpx.get(s.url + "/healthz", timeout=5).json()["bus"] for s in run.servers]
            run.redis.start()
            return {"buses_while_down": buses}

        measured = play_through(run, restart_redis)
        assert measured["buses_while_down"] == ["away"] * 3
        assert [httpx.get(s.url + "/healthz", timeout=5).json()["bus"] for s in run.servers] == ["ok"] * 3


@pytest.mark.needs("postgresql-server")
def test_postgresql_restarted_mid_play(tmp_path: Path) -> None:
    """The store restarted under the servers: writes in flight fail and are not told, tables are read back, the
    clients told and reconnected; the processes go on by themselves."""
    with postgres_server() as postgres, cluster(postgres.url, tmp_path) as run:
        seat_players(run, persons=8, bots=2)

        async def restart_store(server: PostgresServer = postgres) -> dict[str, Any]:
            await asyncio.to_thread(server.stop, "fast")
            await asyncio.sleep(1)
            await asyncio.to_thread(server.start)
            return {}

        play_through(run, restart_store, seconds=PLAY + 6)
        for server in run.servers:
            assert httpx.get(server.url + "/healthz", timeout=5).status_code == 200


def test_a_rolling_restart_loses_nothing(postgres_url: str, tmp_path: Path) -> None:
    """A process added while tables play, then one stopped as an operator would (SIGTERM): its tables are let go
    at once and taken over, its clients reconnect through nginx."""
    with cluster(postgres_url, tmp_path, processes=2, spare=1) as run:
        seat_players(run, persons=8, bots=2)

        async def roll() -> dict[str, Any]:
            await asyncio.to_thread(run.servers[2].start)
            await asyncio.sleep(2)
            held = await run.owners()
            leaving = run.servers[0]
            mine = [t for t, node in held.items() if node == leaving.node]
            await asyncio.to_thread(leaving.stop)
            let_go = await run.owners(mine)  # given up as it stopped: nobody waits for its leases to run out
            assert leaving.node not in let_go.values(), let_go
            return {"handed_over": len(mine), "takeover_s": await run.taken_over(mine, leaving.node, LIVENESS)}

        measured = play_through(run, roll, seconds=PLAY + 4)
        held = asyncio.run(run.owners())
        assert measured["handed_over"] > 0 and run.servers[0].node not in held.values()


def test_a_rolling_restart_behind_nginx_refuses_no_handshake(postgres_url: str, tmp_path: Path) -> None:
    """Each of the three processes stopped (SIGTERM) and started again in turn, as a new version is rolled out,
    while players play and new watchers come in a loop through nginx and stay: nginx answers every handshake 101,
    during the roll and after it."""
    with cluster(postgres_url, tmp_path) as run:
        seat_players(run, persons=4, bots=2)
        quiet = [create_table(run.url, [PERSON] * 4)["id"] for _ in range(KNOCKED_TABLES)]  # nobody plays: no events
        knocks: Counter[int | str] = Counter()
        watching: list[asyncio.Task[None]] = []

        async def watch(socket: ClientConnection, done: asyncio.Event) -> None:
            """Watch a quiet table, reading what comes, until the test is done (or the server cuts it off)."""
            with contextlib.suppress(ConnectionClosed):
                await socket.send(json.dumps({"type": "join", "token": None, "since": 0}))
                while not done.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(socket.recv(), timeout=0.5)
            await socket.close()

        async def knock(done: asyncio.Event, rng: random.Random) -> None:
            """A new watcher, again and again, who stays (as a player's page does): 101, or what nginx answered."""
            while not done.is_set():
                try:
                    socket = await connect(ws_url(run.url, rng.choice(quiet)), open_timeout=10)
                    knocks[101] += 1
                    watching.append(asyncio.create_task(watch(socket, done)))
                except InvalidStatus as exc:
                    knocks[exc.response.status_code] += 1
                except (OSError, TimeoutError) as exc:
                    knocks[type(exc).__name__] += 1
                await asyncio.sleep(KNOCK_EVERY)

        async def roll() -> dict[str, Any]:
            done = asyncio.Event()
            knocking = asyncio.gather(*(knock(done, random.Random(n)) for n in range(2)))
            started = time.monotonic()
            for server in run.servers:
                await asyncio.to_thread(server.stop)
                await asyncio.to_thread(server.start)
            rolled = time.monotonic() - started
            await asyncio.sleep(AFTER_ROLL)
            done.set()
            await knocking
            await asyncio.gather(*watching)
            return {"roll_s": round(rolled, 1)}

        measured = play_through(run, roll, seconds=ROLL_PLAY)
        refused: Counter[int] = Counter()
        for player in run.players:
            refused.update(player.refused)
        print({"knocks": dict(knocks), "players_refused": dict(refused)})
        assert knocks[101] > 100 and set(knocks) == {101}, knocks
        assert refused == Counter(), refused
        assert measured["reconnections"] > 0, "the players were cut off by each stop, and came back through nginx"


def test_nginx_passes_a_frozen_process_over(postgres_url: str, tmp_path: Path) -> None:
    """One of two processes frozen (SIGSTOP): the kernel still accepts connections for it, so only nginx's read
    timeout can tell.  New handshakes and GETs that nginx sends it go on to the live process within that timeout
    (10 s); a silent watcher on the frozen process is cut off within it too (to connect again, as the page does),
    while the live process's silent watcher stays: its server's pings keep nginx's timeout from it."""
    with cluster(postgres_url, tmp_path, processes=2) as run:
        table = create_table(run.url, [PERSON] * 4)["id"]  # nobody sits: a quiet table
        url = ws_url(run.url, table)

        async def watcher() -> ClientConnection:
            """A watcher that never pings (its library still answers the server's pings)."""
            socket = await connect(url, ping_interval=None)
            await socket.send(json.dumps({"type": "join", "token": None, "since": 0}))
            assert json.loads(await socket.recv())["type"] == "state"
            return socket

        async def stays(socket: ClientConnection) -> bool:
            """Whether the watcher is still open once nginx's read timeout has passed (False: cut off)."""
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(socket.wait_closed(), timeout=FROZEN_FOR)
            return socket.state is State.OPEN

        async def handshake() -> float:
            started = time.monotonic()
            async with connect(url, open_timeout=FROZEN_FOR + 5) as socket:
                await socket.send(json.dumps({"type": "join", "token": None, "since": 0}))
                assert json.loads(await socket.recv())["type"] == "state"
            return time.monotonic() - started

        async def get(client: httpx.AsyncClient) -> float:
            started = time.monotonic()
            assert (await client.get(f"{run.url}/api/tables/{table}")).status_code == 200
            return time.monotonic() - started

        async def freeze() -> dict[str, Any]:
            watchers = [await watcher(), await watcher()]
            counts = [server.connections() for server in run.servers]
            assert counts == [1, 1], f"round-robin put one watcher on each process: {counts}"
            run.servers[0].signal(signal.SIGSTOP)
            async with httpx.AsyncClient(timeout=FROZEN_FOR + 5) as client:
                kept, *times = await asyncio.gather(
                    asyncio.gather(*(stays(w) for w in watchers)),
                    *(handshake() for _ in range(4)),
                    *(get(client) for _ in range(4)),
                )
            for socket in watchers:
                await socket.close()
            return {"kept": sorted(kept), "times": [round(t, 1) for t in times]}

        measured = asyncio.run(freeze())
        print(measured)
        assert measured["kept"] == [False, True], "the frozen process's watcher cut off, the live one's kept"
        assert max(measured["times"]) < PASSED_OVER_WITHIN, "every request answered by the live process in time"
        assert max(measured["times"]) > 9, "some went to the frozen process first, and were passed over"


@pytest.mark.needs("chromium")
def test_the_page_on_a_frozen_process_moves_to_the_live_one(postgres_url: str, tmp_path: Path) -> None:
    """Two processes behind nginx, the page's socket on one, which is frozen (SIGSTOP): its ping unanswered, the
    page drops the socket and connects again, nginx sends the new one to the live process (passing the frozen one
    over if it comes to it first), and the person plays on there."""
    # the browser only inside the test: Playwright's loop would stop the database fixture's asyncio.run
    with cluster(postgres_url, tmp_path, processes=2) as run, chromium() as browser:
        table = create_table(run.url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0.3, deal_pause=0)
        page = browser.new_context(viewport=DESKTOP, locale="en-US").new_page()
        errors = watch_errors(page)
        sockets = Sockets(page)
        sit_down(page, run.url, table["id"], 0, "Eleni").wait_for_selector("[data-testid=hand-card]", timeout=30_000)
        sockets.wait(lambda: 0 in sockets.stated, 10, "the first state")
        holding = [server for server in run.servers if server.connections() == 1]
        assert len(holding) == 1, "the page's socket is on one process"
        frozen = time.monotonic()
        holding[0].signal(signal.SIGSTOP)
        sockets.wait(lambda: sockets.first_state_after(frozen) is not None, 20, "a state from the live process")
        noticed = sockets.opened[1] - frozen
        back = (sockets.first_state_after(frozen) or 0) - frozen
        print({"noticed_s": round(noticed, 1), "back_s": round(back, 1), "sockets": len(sockets.opened)})
        assert noticed < 11.5  # a ping unanswered at the next one (5 to 10 s), then the reconnection's backoff
        assert back < 18  # and if nginx sends it to the frozen one first, the page gives that up in 5 s
        assert [s.connections() for s in run.servers if s is not holding[0]] == [1]
        page.wait_for_selector("#banner", state="hidden")
        wait_my_turn(page)
        play_my_turn(page, random.Random(4))  # the table goes on, driven by the live process
        page.wait_for_function("() => [...document.querySelectorAll('#draw, #take')].every(b => b.disabled)")
        shot(page, "moved-to-live-process-desktop")
        assert not errors, errors
        page.context.close()


def test_workers_serve_on_one_port(postgres_url: str, tmp_path: Path) -> None:
    """``biriba serve --workers 2 --redis URL``: two processes on one port, each a node of its own, one table."""
    with (
        redis_server(tmp_path) as redis,
        server_process(
            postgres_url, None, None, BIRIBA, "--workers", "2", "--redis", redis.url, "--lease-ttl", str(LEASE)
        ) as (url, main),
    ):
        workers = Path(f"/proc/{main.pid}/task/{main.pid}/children").read_text().split()
        serving = [pid for pid in workers if b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(serving) >= 2, "uvicorn started two worker processes"
        run = Run(postgres_url, redis, [], url=url)
        seat_players(run, persons=4, bots=0)

        async def every_table_driven() -> dict[str, Any]:
            """A table passed on (its clients all on the other worker) has no owner until the next beat: wait that."""
            deadline = time.monotonic() + LIVENESS
            while None in (nodes := set((await run.owners()).values())) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            return {"nodes": nodes}

        measured = play_through(run, every_table_driven, seconds=8)
        assert measured["nodes"] and None not in measured["nodes"]


def test_a_table_goes_to_the_process_its_players_are_on(postgres_url: str, tmp_path: Path) -> None:
    """A table made on one process, its players all on another: the maker passes it on, so one copy plays."""
    with redis_server(tmp_path) as redis:
        maker, host = ServerProcess(postgres_url, redis.url, LEASE), ServerProcess(postgres_url, redis.url, LEASE)
        try:
            maker.start()
            host.start()
            run = Run(postgres_url, redis, [maker, host], url=maker.url)
            seat_players(run, persons=2, bots=0)
            assert set(asyncio.run(run.owners()).values()) == {maker.node}
            for player in run.players:  # every player connects to the other process
                player.url = player.url.replace(f":{maker.port}/", f":{host.port}/")

            async def passed_on() -> dict[str, Any]:
                return {"passed_on_s": await run.taken_over(run.tables, maker.node, LIVENESS)}

            play_through(run, passed_on, seconds=9)
            assert set(asyncio.run(run.owners()).values()) == {host.node}
        finally:
            maker.stop()
            host.stop()


def test_quick_play_seats_players_who_wait_on_different_processes(postgres_url: str, tmp_path: Path) -> None:
    """Issue 52, row 4: the waiting list is the store's, so that two players waiting on one process and two on
    another are seated at one table; a partnership whose friends wait on different processes sits on one team."""
    with redis_server(tmp_path) as redis:
        servers = [ServerProcess(postgres_url, redis.url, LEASE) for _ in range(2)]
        try:
            for server in servers:
                server.start()
            names = ("Ann", "Bob", "Cat", "Dan")
            on = {
                name: servers[n // 2].url for n, name in enumerate(names)
            }  # Ann and Bob on one, Cat and Dan on the other
            who = {name: signed_up(on[name], name) for name in names}
            partner = {"Ann": "Dan", "Dan": "Ann"}
            for name in names:
                body = {"rules": "classic", "bots": False, "partner": partner.get(name)}
                asked = httpx.post(f"{on[name]}/api/quick", json=body, cookies=who[name][0], headers=who[name][1])
                assert asked.status_code == 200, asked.text
            places = {name: until_seated(on[name], who[name][0], LIVENESS) for name in names}
            assert len({p["table"] for p in places.values()}) == 1, places
            assert places["Ann"]["seat"] % 2 == places["Dan"]["seat"] % 2 != places["Bob"]["seat"] % 2  # R1
            table = places["Ann"]["table"]
            for name in names:  # each takes their seat on their own process, and is told the deal
                cookies, csrf = who[name]
                taken = httpx.post(
                    f"{on[name]}/api/tables/{table}/seats/{places[name]['seat']}/token", cookies=cookies, headers=csrf
                )
                assert taken.status_code == 200, taken.text

                async def told(url: str = on[name], token: str = taken.json()["token"]) -> dict[str, Any]:
                    async with Player(url, table, token) as player:
                        return await player.until(lambda m: m["type"] == "state")

                assert asyncio.run(told())["seat"] == places[name]["seat"]
        finally:
            for server in servers:
                server.stop()


def test_an_addresss_quotas_hold_over_every_process(postgres_url: str, tmp_path: Path) -> None:
    """Issue 49, row 6: the tables an address makes a minute, and a seat's hints, are counted in Redis, so that
    going round the processes gains nothing."""
    with redis_server(tmp_path) as redis:
        quota = ("--tables-per-minute", "3")
        servers = [ServerProcess(postgres_url, redis.url, LEASE, flags=quota) for _ in range(2)]
        try:
            for server in servers:
                server.start()
            body = {"rules": "classic", "seats": [PERSON, GREEDY, GREEDY, GREEDY], "bot_delay": 0}
            made = [httpx.post(servers[n % 2].url + "/api/tables", json=body, timeout=10) for n in range(4)]
            assert [r.status_code for r in made] == [201, 201, 201, 429]
            assert 1 <= int(made[-1].headers["Retry-After"]) <= 60
            table = made[0].json()["id"]
            token = sit(servers[0].url, table, 0, "Eleni")

            async def hints() -> list[dict[str, Any]]:
                """The one seat on both processes, asking a hint on each at once, on its turn."""
                async with Player(servers[0].url, table, token) as one, Player(servers[1].url, table, token) as two:
                    for tab in (one, two):
                        await tab.until(lambda m: m["type"] == "state" and bool(m["legal"]))
                    for tab in (one, two):
                        await tab.send({"type": "hint"})
                    return [await tab.until(lambda m: m["type"] in ("hint", "error")) for tab in (one, two)]

            answers = asyncio.run(hints())
            assert sorted(a["type"] for a in answers) == ["error", "hint"], answers
            assert [a["code"] for a in answers if a["type"] == "error"] == ["rate_limited"]
        finally:
            for server in servers:
                server.stop()


def test_over_a_redis_with_a_password_and_tls_no_token_nor_deck_crosses_the_bus(
    postgres_url: str, tmp_path: Path
) -> None:
    """Issue 49, row 8: docs/deploy.md's Redis between machines (a password, TLS) works, and a listener on every
    channel of it hears no seat's token and no deck, though a follower replays every deal."""
    import redis.asyncio as aioredis

    with redis_server(tmp_path, password="a long secret", tls=True) as redis:
        owner, follower = (ServerProcess(postgres_url, redis.url, LEASE) for _ in range(2))
        try:
            owner.start()
            follower.start()
            table = create_table(owner.url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=0, deal_pause=0.5)
            heard: list[str] = []

            async def main() -> tuple[str, str]:
                listener = aioredis.from_url(redis.url)
                pubsub = listener.pubsub()
                await pubsub.psubscribe("biriba:*")
                listening = asyncio.create_task(listen(pubsub))
                eleni = sit(owner.url, table["id"], 0, "Eleni")
                nikos = sit(follower.url, table["id"], 1, "Nikos")  # asked of the owner through the bus
                async with Player(owner.url, table["id"], eleni) as a, Player(follower.url, table["id"], nikos) as b:
                    second_deal = lambda m: m["table"]["deals"] >= 2  # noqa: E731
                    await asyncio.wait_for(
                        asyncio.gather(a.play(random.Random(1), second_deal), b.play(random.Random(2), second_deal)),
                        120,
                    )
                listening.cancel()
                await pubsub.aclose()
                await listener.aclose()
                return eleni, nikos

            async def listen(pubsub: Any) -> None:
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message["type"] == "pmessage":
                        heard.append(message["data"].decode())

            tokens = asyncio.run(main())
            stored = asyncio.run(load(postgres_url, table["id"]))
        finally:
            owner.stop()
            follower.stop()
    assert any('"t":"change"' in m.replace(" ", "") for m in heard), "the listener heard the owner's changes"
    assert len(stored.deals) >= 2
    for message in heard:
        assert not any(token in message for token in tokens), "a seat's token crossed the bus"
        assert '"deck"' not in message
        for _, _, deck in stored.deals:
            assert json.dumps(deck[:8])[1:-1] not in message, "a deck crossed the bus"


async def load(db: str, table_id: str) -> Any:
    store = await Store.open(db)
    try:
        return await store.load(table_id)
    finally:
        await store.close()
