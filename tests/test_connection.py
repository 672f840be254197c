"""One WebSocket at a table (server/connection.py): a client that never reads, and the caps on connections.

A real server on loopback (uvicorn in a thread) and WebSocket clients, as in test_server.py; the client
that never reads is a raw socket with a small receive buffer, as a hostile one would be (issue 49).
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from biriba.server.config import ServerConfig
from serverkit import GREEDY, PERSON, Player, create_table, deaf_watcher, running_server, serving, sit


def metric(url: str, name: str) -> float:
    """A sample's value in /metrics (0 when absent)."""
    found = re.search(rf"^{re.escape(name)} (\S+)$", httpx.get(url + "/metrics").text, re.MULTILINE)
    return float(found[1]) if found else 0.0


@pytest.mark.slow  # seconds of real time: make check leaves it to make test
def test_a_watcher_that_never_reads_is_cut_off_and_its_table_plays_on(tmp_path: Any) -> None:
    """Issue 49, row 1: the table never waits on a client; one that falls behind is closed with 4420."""
    config = ServerConfig(bot_workers=1, send_timeout=2.0)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        table = create_table(url, [GREEDY] * 4, bot_delay=0.02, options={"target": 100_000})
        deaf = deaf_watcher(url, table["id"])
        try:

            async def main() -> list[float]:
                arrivals: list[float] = []
                cut_at, looked = None, 0.0
                async with Player(url, table["id"], None, name="Maria") as watcher:
                    end = time.monotonic() + 60
                    while time.monotonic() < end:
                        message = await watcher.receive(10)
                        now = time.monotonic()
                        if message["type"] == "state" and message["events"]:
                            arrivals.append(now)
                        if cut_at is None and now > looked + 0.5:
                            looked = now
                            cut_at = now if metric(url, 'biriba_clients_cut_total{code="4420"}') else None
                        if cut_at is not None and now > cut_at + 3:
                            return arrivals  # and the table played on for 3 s after
                raise AssertionError("the deaf watcher was never cut off")

            arrivals = asyncio.run(main())
            left = time.monotonic() + 5  # its close frame never read, its connection is dropped (2 s at most)
            while metric(url, "biriba_connections") != 0 and time.monotonic() < left:
                time.sleep(0.1)
            assert metric(url, "biriba_connections") == 0, "the deaf watcher's connection outlived its cut"
        finally:
            deaf.close()
        gaps = [b - a for a, b in itertools.pairwise(arrivals)]
        assert max(gaps) < 5, f"the table stood still {max(gaps):.1f} s while a watcher read nothing"
        assert metric(url, 'biriba_clients_cut_total{code="4420"}') == 1


def test_connections_are_capped_per_address_per_table_and_watchers_per_table(tmp_path: Any) -> None:
    """Issue 49, row 3: one address cannot open connections without end; each cap refuses with 4429."""
    config = ServerConfig(bot_workers=1, connections_per_address=5, connections_per_table=3, watchers=2)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        first = create_table(url, [PERSON, PERSON, GREEDY, GREEDY])  # half seated: nothing is dealt
        token = sit(url, first["id"], 0, "Eleni")
        other = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])

        async def refused(player: Player) -> dict[str, Any]:
            error = await player.until(lambda m: m["type"] == "error")
            assert player.socket is not None
            try:
                await asyncio.wait_for(player.socket.recv(), 5)
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 4429
            else:
                raise AssertionError("the connection over the cap stayed open")
            return error

        async def main() -> None:
            async with Player(url, first["id"], None) as one, Player(url, first["id"], None) as two:
                await one.until(lambda m: m["type"] == "state")
                await two.until(lambda m: m["type"] == "state")
                async with Player(url, first["id"], None) as third:
                    error = await refused(third)
                    assert error["code"] == "too_many" and "2 watchers" in error["message"]
                async with Player(url, first["id"], token) as eleni:  # a seat is not a watcher: in, the third
                    await eleni.until(lambda m: m["type"] == "state")
                    async with Player(url, first["id"], token) as again:
                        error = await refused(again)
                        assert "3 connections to this table" in error["message"]
                    async with Player(url, other["id"], None) as fourth, Player(url, other["id"], None) as fifth:
                        await fourth.until(lambda m: m["type"] == "state")
                        await fifth.until(lambda m: m["type"] == "state")
                        async with Player(url, other["id"], None) as sixth:
                            error = await refused(sixth)
                            assert "5 connections" in error["message"]
                        assert metric(url, "biriba_connections") == 5
            async with Player(url, first["id"], None) as later:  # the caps count open connections only
                await later.until(lambda m: m["type"] == "state")

        asyncio.run(main())
        assert metric(url, 'biriba_clients_cut_total{code="4429"}') == 3


async def drain(player: Player) -> None:
    """Read what has come for the player, until nothing more comes for a fifth of a second."""
    while True:
        try:
            await player.receive(0.2)
        except TimeoutError:
            return


@pytest.mark.slow  # seconds of real time: make check leaves it to make test
def test_coming_and_going_is_told_in_small_messages_at_most_once_a_second(tmp_path: Any) -> None:
    """Issue 49, row 3: a client that joins and leaves in a loop resends no state to the watchers."""
    config = ServerConfig(bot_workers=1, connections_per_address=100, connections_per_table=100)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY])
        sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            watchers = [Player(url, table["id"], None, name=f"w{n}") for n in range(30)]
            for watcher in watchers:
                await watcher.__aenter__()
                await watcher.until(lambda m: m["type"] == "state")
            await asyncio.sleep(1.5)
            for watcher in watchers:  # what their own coming told, read before the loop
                await drain(watcher)
                watcher.messages.clear()
            started = time.monotonic()
            for _ in range(20):
                async with Player(url, table["id"], None) as passing:
                    await passing.until(lambda m: m["type"] == "state")
            took = time.monotonic() - started
            await asyncio.sleep(1.5)  # the last presence, told at most a second after the last change
            for watcher in watchers:
                await drain(watcher)
            for watcher in watchers:
                kinds = {m["type"] for m in watcher.messages}
                assert kinds <= {"presence"}, kinds
                assert len(watcher.messages) <= took + 2, (len(watcher.messages), took)
                assert watcher.messages[-1]["watching"] == 30
                await watcher.__aexit__()

        asyncio.run(main())


def test_an_address_opens_so_many_connections_a_minute(tmp_path: Any) -> None:
    """Issue 49, row 3: a client that joins and leaves in a loop is turned away once past its minute's quota."""
    config = ServerConfig(bot_workers=1, connections_per_minute=3)
    with serving(f"sqlite:///{tmp_path}/t.sqlite3", config) as (url, _app):
        table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY])

        async def main() -> dict[str, Any]:
            for _ in range(3):
                async with Player(url, table["id"], None) as passing:
                    await passing.until(lambda m: m["type"] == "state")
            async with Player(url, table["id"], None) as fourth:
                return await fourth.until(lambda m: m["type"] in ("state", "error"))

        refused = asyncio.run(main())
        assert refused["code"] == "too_many" and "3 connections in the last minute" in refused["message"]


def test_a_connection_that_joins_with_same_is_told_the_table_s_info_only_when_it_changed(tmp_path: Any) -> None:
    """Issue 54: the table's info is more than half a state message and most actions leave it as it was; a
    client that asks (``"same": true``, as the page does) is told it once, then only when it changes, the state
    naming it in ``same``.  A client that does not ask is told it whole every time."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [GREEDY] * 4, bot_delay=0.05, deal_pause=0, options={"target": 1})

        async def watch() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
            async with Player(url, table["id"], None, same=True) as lean, Player(url, table["id"], None) as whole:
                over = lambda m: m["type"] == "state" and m["table"]["status"] == "over"  # noqa: E731
                await lean.until(over, timeout=60)
                await whole.until(over, timeout=60)
                assert lean.state is not None
                return lean.messages, whole.messages, lean.state

        lean, whole, last = asyncio.run(watch())
        states = [m for m in lean if m["type"] == "state"]
        assert "table" in states[0] and "same" not in states[0]  # the first state is whole
        named = [m for m in states[1:] if "same" in m]
        assert named and all(m["same"] == ["table"] and "table" not in m for m in named)
        assert len(named) > len(states) // 2  # most actions leave the info as it was
        assert all("table" in m and "same" not in m for m in whole if m["type"] == "state")
        assert last["table"]["status"] == "over"  # the info told again once it changed
