"""The web game's server: HTTP, the WebSocket protocol, what each client may see, bad input, durability.

A real server runs on loopback (uvicorn in a thread, or ``biriba serve`` as
a process to kill), on SQLite and on the machine's PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import sqlite3
import time
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from biriba.cards import parse_card
from biriba.server.config import ServerConfig
from biriba.server.store import PROBE_TIMEOUT
from clusterkit import postgres_server
from serverkit import BIRIBA, Player, create_table, running_server, server_process, sit, ws_url

PERSON = {"kind": "person"}
GREEDY = {"kind": "bot", "bot": "greedy"}


# --------------------------------------------------------------------- HTTP
def test_the_http_api_creates_lists_and_seats_and_gives_the_rules_as_data(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        rules = httpx.get(url + "/api/rules").json()
        assert set(rules["presets"]) >= {"classic", "italian"} and "target" in rules["options"]
        bad = httpx.post(url + "/api/tables", json={"rules": "classic", "options": {"target": "lots"}})
        assert bad.status_code == 422 and "target" in bad.json()["error"] and bad.json()["code"] == "invalid"
        bad = httpx.post(url + "/api/tables", json={"rules": "classic", "seats": [PERSON, PERSON]})
        assert bad.status_code == 422 and "4 entries" in bad.json()["error"]
        table = create_table(url, [PERSON, GREEDY, PERSON, GREEDY], options={"target": 3000}, bot_delay=0)
        assert table["status"] == "open" and table["invite"] == f"{url}/t/{table['id']}"
        assert any("target: 3000" in w for w in table["rules"]["words"])
        assert table["rules"]["options"]["target"] == 3000 and table["rules"]["options"]["seats"] == 4
        assert table["rules"]["wilds"] == ["JK", "2S", "2H", "2D", "2C"]  # R6
        assert table["rules"]["preset"] == "classic"  # with a house rule for tables with people (D36)
        assert table["rules"]["changed"] == {"target": "3000", "idle_rounds": "2"}
        assert [s["kind"] for s in table["seats"]] == ["person", "bot", "person", "bot"]
        assert httpx.get(f"{url}/t/{table['id']}").status_code == 200  # the page
        assert [t["id"] for t in httpx.get(url + "/api/tables").json()["tables"]] == [table["id"]]
        token = sit(url, table["id"], 0, "Eleni")
        assert len(token) > 20
        taken = httpx.post(f"{url}/api/tables/{table['id']}/seats/0", json={"name": "Nikos"})
        assert taken.status_code == 409
        bot_seat = httpx.post(f"{url}/api/tables/{table['id']}/seats/1", json={"name": "Nikos"})
        assert bot_seat.status_code == 400 and "bot" in bot_seat.json()["error"]
        assert httpx.get(f"{url}/api/tables/{table['id']}/record").status_code == 403  # decks stay secret
        assert httpx.get(f"{url}/api/tables/nope").status_code == 404


def test_look_alike_names_never_sit_at_one_table_and_blank_names_never_sit(tmp_path: Any) -> None:
    """A review sat ``P0``, full-width ``Ｐ０``, Cyrillic ``Р0`` and Greek ``Ρ0`` at one table, and names of Hangul
    fillers, a Braille blank, or one letter under 29 accents (issue 49)."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, PERSON, PERSON, PERSON])
        seats = f"{url}/api/tables/{table['id']}/seats"
        sit(url, table["id"], 0, "P0")
        for alike in ("\uff30\uff10", "\u04200", "\u03a10", "p0", "PO"):
            taken = httpx.post(f"{seats}/1", json={"name": alike})
            assert taken.status_code == 409 and taken.json()["code"] == "name_taken", taken.text
            assert "looks like a name already at this table" in taken.json()["error"]
        for blank in ("\u3164", "\u115f", "\u2800", "a" + "".join(map(chr, range(0x300, 0x31D)))):
            refused = httpx.post(f"{seats}/1", json={"name": blank})
            assert refused.status_code == 422 and refused.json()["code"] == "invalid", refused.text
        sit(url, table["id"], 1, "Q1")  # a name of its own sits
        info = httpx.get(f"{url}/api/tables/{table['id']}").json()
        assert [seat["name"] for seat in info["seats"]] == ["P0", "Q1", None, None]


# ----------------------------------------------------------- what is seen
OPEN_KEYS = {"melds", "discard", "took_single", "cut_wilds", "known", "action", "taken", "result", "hands_own"}


def cards_in(data: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """Every card name in a message, with the keys leading to it."""
    found = []
    if isinstance(data, str):
        for word in data.replace("=", " ").split():
            try:
                parse_card(word)
            except ValueError:
                continue
            found.append((path, word))
    elif isinstance(data, list):
        for item in data:
            found += cards_in(item, path)
    elif isinstance(data, dict):
        for key, value in data.items():
            if key not in ("rules", "table", "sheet", "format", "phase", "kind", "type", "code", "message"):
                found += cards_in(value, (*path, key))
    return found


def check_nothing_hidden(message: dict[str, Any], seat: int | None) -> None:
    """No card a seat may not see: other hands, the stock, the packets, another's drawn card or packet."""
    if message["type"] != "state" or message["view"] is None:
        return
    view = message["view"]
    assert view["viewer"] == seat
    for s, hand in enumerate(view["hands"]):
        assert isinstance(hand, list) == (s == seat), f"seat {seat} sees hand {s}"
    assert isinstance(view["stock"], dict) and all(isinstance(p, dict) for p in view["packets"])
    assert "reserve_packets" not in view and "deck" not in view
    for event in message["events"]:
        if event.get("seat") != seat or seat is None:
            assert event.get("drawn") is None and not event.get("packet"), f"seat {seat} sees {event}"
    for path, card in cards_in({k: v for k, v in message.items() if k in ("view", "events", "legal", "result")}):
        allowed = path[:1] in (("legal",), ("result",)) or path[-1] in OPEN_KEYS or path[-1] in ("drawn", "packet")
        allowed = allowed or path == ("view", "hands")
        assert allowed, f"seat {seat} sees {card} at {path}"


@pytest.mark.slow  # seconds of real time: make check leaves it to make test
def test_a_whole_deal_of_four_people_through_the_server_shows_each_only_their_own(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON] * 4, bot_delay=0, rules="classic")
        tokens = [sit(url, table["id"], s, f"P{s}") for s in range(4)]

        async def main() -> list[Player]:
            players = [Player(url, table["id"], t) for t in tokens]
            watcher = Player(url, table["id"], None)
            for p in [*players, watcher]:
                await p.__aenter__()
            done = lambda m: m["result"] is not None  # noqa: E731 - the first deal's end
            tasks = [p.play(random.Random(s), done, act_delay=0.06) for s, p in enumerate(players)]  # a person's pace
            tasks.append(watcher.until(lambda m: m["type"] == "state" and done(m), timeout=120))
            await asyncio.gather(*tasks)
            for p in [*players, watcher]:
                await p.__aexit__()
            return [*players, watcher]

        everyone = asyncio.run(main())
        for seat, player in enumerate(everyone):
            states = [m for m in player.messages if m["type"] == "state"]
            assert len(states) > 20
            for message in player.messages:
                check_nothing_hidden(message, seat if seat < 4 else None)
            assert states[-1]["result"]["ended_by"] in ("closure", "passes", "idle")  # random play: often idle (D36)
            assert states[-1]["sheet"][0]["totals"] == states[-1]["result"]["team_scores"]
            for message in states:  # the board is the engine's account of each meld on the table
                assert [len(team["melds"]) for team in message["board"]] == list(map(len, message["view"]["melds"]))
            for team, board in zip(states[-1]["result"]["breakdown"], states[-1]["board"]):
                assert board["points"] == team["melds"] + team["bonuses"]
        record = httpx.get(f"{url}/api/tables/{table['id']}").json()
        assert record["deals"] == 1


# -------------------------------------------------------------- bad input
async def _bad_input_case(url: str, case: str) -> None:
    table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=0)
    other = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
    a_token, b_token = sit(url, table["id"], 0, "A"), sit(url, table["id"], 1, "B")
    c_token = sit(url, other["id"], 0, "C")
    async with (
        Player(url, table["id"], a_token) as a,
        Player(url, table["id"], b_token) as b,
        Player(url, other["id"], c_token) as c,
    ):

        def people_to_move(m: dict[str, Any]) -> bool:  # the bots have played up to a person's turn
            return m["type"] == "state" and m["view"] is not None and m["view"]["to_move"] in (0, 1)

        state = await a.until(people_to_move)
        assert (await b.until(people_to_move))["version"] == state["version"]
        await c.until(lambda m: m["type"] == "state" and m["view"] is not None)
        version = state["version"]
        to_move = state["view"]["to_move"]
        sender, waiting = (a, b) if to_move == 0 else (b, a)
        expected = {
            "malformed": ("not json {", "bad_message"),
            "no type": ({"action": "draw"}, "bad_message"),
            "unknown type": ({"type": "dance"}, "bad_message"),
            "binary": (b"\x00\x01", "bad_message"),
            "oversize": ({"type": "action", "action": "x" * 5000, "version": version}, "too_large"),
            "out of turn": ({"type": "action", "action": "draw", "version": version}, "not_your_turn"),
            "stale": ({"type": "action", "action": "draw", "version": version - 1}, "stale"),
            "illegal": ({"type": "action", "action": "discard 9C", "version": version}, "illegal"),
            "not notation": ({"type": "action", "action": "frobnicate", "version": version}, "illegal"),
            "missing field": ({"type": "action", "action": "draw"}, "bad_message"),
        }
        message, code = expected[case]
        actor = waiting if case == "out of turn" else sender
        await actor.send(message)
        error = await actor.until(lambda m: m["type"] == "error")
        assert error["code"] == code, error
        if code == "illegal" and case == "illegal":  # the rule, and the reason as data for the page's words
            assert error["rule"] == "R15" and error["reason"] == {"key": "draw_first", "params": {}}
            assert error["message"] == "R15: first draw from the stock or take the discard pile"
        # nothing changed: the table's version, and the others go on as before
        info = httpx.get(f"{url}/api/tables/{table['id']}").json()
        assert info["status"] == "playing"
        await sender.send({"type": "action", "action": "draw", "version": version})
        moved = await sender.until(lambda m: m["type"] == "state" and m["version"] > version)
        assert moved["version"] == version + 1  # the bad message moved nothing
        await c.send({"type": "ping"})
        assert (await c.until(lambda m: m["type"] == "pong"))["type"] == "pong"


BAD_CASES = ["malformed", "no type", "unknown type", "binary", "oversize", "out of turn", "stale", "illegal",
             "not notation", "missing field"]  # fmt: skip


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_input_gets_a_clear_error_and_changes_nothing(tmp_path: Any, case: str) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        asyncio.run(_bad_input_case(url, case))


def test_a_bad_or_missing_token_and_a_flood(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
        sit(url, table["id"], 0, "A")

        async def main() -> None:
            async with Player(url, table["id"], "forged-token") as forged:
                error = await forged.until(lambda m: m["type"] == "error")
                assert error["code"] == "bad_token"
                with pytest.raises(Exception):  # noqa: B017 - the server closed it
                    await forged.receive(5)
                assert forged.socket is not None and forged.socket.close_code == 4401
            async with Player(url, table["id"], None) as spectator:
                state = await spectator.until(lambda m: m["type"] == "state")
                assert state["seat"] is None and state["legal"] == []
                await spectator.send({"type": "action", "action": "draw", "version": state["version"]})
                assert (await spectator.until(lambda m: m["type"] == "error"))["code"] == "spectator"
                for _ in range(40):
                    await spectator.send({"type": "ping"})
                limited = await spectator.until(lambda m: m.get("code") == "rate_limited", timeout=10)
                assert "more than 20 messages" in limited["message"]
            async with Player(url, "no-such-table", None) as lost:
                with pytest.raises(Exception):  # noqa: B017
                    await lost.receive(5)
                assert lost.socket is not None and lost.socket.close_code == 4404

        asyncio.run(main())


# -------------------------------------------------------------- durability
def test_every_acknowledged_action_survives_kill_9(db_url: str) -> None:
    with server_process(db_url) as (url, process):
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0, deal_pause=0)
        token = sit(url, table["id"], 0, "Eleni")

        async def play_some() -> list[tuple[int, str]]:
            mine: list[tuple[int, str]] = []
            async with Player(url, table["id"], token) as me:
                rng = random.Random(3)
                while len(mine) < 12:
                    message = await me.until(lambda m: m["type"] == "state")
                    for event in message["events"]:
                        if event["kind"] == "action" and event["seat"] == 0:
                            mine.append((event["number"], event["action"]))  # acknowledged
                    if message["legal"]:
                        action = rng.choice(message["legal"])
                        await me.send({"type": "action", "action": action, "version": message["version"]})
            return mine

        acknowledged = asyncio.run(play_some())
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with server_process(db_url) as (url, _process):

        async def look() -> dict[str, Any]:
            async with Player(url, table["id"], token) as me:
                return await me.until(lambda m: m["type"] == "state")

        state = asyncio.run(look())
        seen = {(e["number"], e["action"]) for e in state["events"] if e["kind"] == "action" and e["seat"] == 0}
        assert set(acknowledged) <= seen
        assert state["seat"] == 0 and state["version"] >= max(n for n, _ in acknowledged) + 1


# ---------------------------------------------------------- the store away
async def refused_join(url: str, table_id: str) -> tuple[str, int | None]:
    """A watcher's join: the error it is told, and the code its connection is then closed with."""
    async with Player(url, table_id, None) as watcher:
        error = await watcher.receive(10)
        with pytest.raises(ConnectionClosed):
            await watcher.receive(10)
        assert watcher.socket is not None
        return error["code"], watcher.socket.close_code


async def watched(url: str, table_id: str) -> dict[str, Any]:
    async with Player(url, table_id, None) as watcher:
        return await watcher.until(lambda m: m["type"] == "state", timeout=10)


def assert_store_away(answer: httpx.Response) -> None:
    """The protocol's answer while the store is away: 503, code ``store``, and when to try again."""
    assert answer.status_code == 503 and answer.json()["code"] == "store", answer.text
    assert 1 <= int(answer.headers["retry-after"]) <= 60


def new_table(url: str) -> httpx.Response:
    return httpx.post(url + "/api/tables", json={"seats": [PERSON, GREEDY, GREEDY, GREEDY]}, timeout=15)


@pytest.mark.needs("postgresql-server")
def test_with_postgresql_stopped_the_server_says_so_at_once_and_the_first_request_after_its_return_goes_through() -> (
    None
):
    """Issue 49 item 11: a table made, or one not in memory asked for or joined, while the store is down is refused
    at once in the protocol's shape (503, code ``store``, ``Retry-After``; a WebSocket is told ``store`` and closed
    with 1013, try again later), as is ``/healthz``; once PostgreSQL is back the first request goes through."""
    with postgres_server() as postgres:
        with running_server(postgres.url) as url:
            tables = [create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])["id"] for _ in range(3)]
        with running_server(postgres.url) as url:  # the tables are in the store, none in memory but the last
            assert httpx.get(f"{url}/api/tables/{tables[2]}", timeout=15).status_code == 200
            postgres.stop("fast")
            started = time.monotonic()
            assert_store_away(new_table(url))
            assert_store_away(httpx.get(f"{url}/api/tables/{tables[0]}", timeout=15))
            assert_store_away(httpx.post(f"{url}/api/tables/{tables[2]}/seats/0", json={"name": "Eleni"}, timeout=15))
            assert_store_away(httpx.get(url + "/api/tables", timeout=15))
            assert_store_away(httpx.get(url + "/healthz", timeout=15))
            assert asyncio.run(refused_join(url, tables[1])) == ("store", 1013)
            assert time.monotonic() - started < 5  # each said at once, none waited out
            postgres.start()
            assert httpx.get(f"{url}/api/tables/{tables[0]}", timeout=15).status_code == 200
            assert asyncio.run(watched(url, tables[1]))["table"]["id"] == tables[1]
            assert new_table(url).status_code == 201
            assert httpx.get(url + "/healthz", timeout=15).status_code == 200


@pytest.mark.needs("postgresql-server")
def test_with_postgresql_frozen_the_server_says_so_within_a_second_once_it_has_seen_it() -> None:
    """A database that answers nothing (frozen, or cut off by the network): the request that finds out waits out
    the store's timeouts (seconds), every later one is refused within about a second (``PROBE_TIMEOUT``) while it
    stays so, and the first after its return goes through."""
    with postgres_server() as postgres:
        with running_server(postgres.url) as url:
            tables = [create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])["id"] for _ in range(3)]
        with running_server(postgres.url) as url:
            with postgres.frozen():
                assert_store_away(httpx.get(url + "/healthz", timeout=30))  # the one that finds out
                took = []
                started = time.monotonic()
                assert_store_away(httpx.get(f"{url}/api/tables/{tables[0]}", timeout=15))
                took.append(time.monotonic() - started)
                assert_store_away(new_table(url))
                took.append(time.monotonic() - started - sum(took))
                assert asyncio.run(refused_join(url, tables[1])) == ("store", 1013)
                took.append(time.monotonic() - started - sum(took))
                assert max(took) < PROBE_TIMEOUT + 2, took
            assert httpx.get(f"{url}/api/tables/{tables[2]}", timeout=15).status_code == 200


@pytest.mark.needs("postgresql-server")
def test_a_pooled_connection_whose_server_went_silent_is_replaced_not_waited_on() -> None:
    """PostgreSQL answers, but the connections the server pooled before are dead without a word (their server's
    host went away and came back: no FIN, no RST; here, their backends frozen): the first request after does not
    hang on one of them, it gets a new connection within seconds."""
    with postgres_server() as postgres:
        with running_server(postgres.url) as url:
            table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])["id"]
        with running_server(postgres.url) as url:
            assert httpx.get(url + "/healthz", timeout=15).status_code == 200  # a connection in the pool
            with postgres.frozen(postgres.backends()) as silent:
                assert silent
                started = time.monotonic()
                assert httpx.get(f"{url}/api/tables/{table}", timeout=30).status_code == 200
                assert time.monotonic() - started < 10


def test_with_its_sqlite_file_deleted_or_replaced_the_server_says_it_cannot_write_and_makes_no_table(
    tmp_path: Any,
) -> None:
    """SQLite goes on writing a file deleted while it is open (a restart would find none of it): ``/healthz`` and a
    new table are refused (503), not answered as if they were kept; so too with another file put in its place."""
    path = tmp_path / "t.sqlite3"
    with running_server(f"sqlite:///{path}") as url:
        assert httpx.get(url + "/healthz", timeout=15).status_code == 200
        path.unlink()
        health = httpx.get(url + "/healthz", timeout=15)
        assert_store_away(health)
        assert "deleted" in health.json()["error"]
        assert_store_away(new_table(url))
        path.write_bytes(b"")  # another file where the store was
        health = httpx.get(url + "/healthz", timeout=15)
        assert_store_away(health)
        assert "replaced" in health.json()["error"]


@pytest.mark.needs("postgresql")
def test_health_checks_that_the_store_can_write_not_only_that_it_answers(postgres_url: str) -> None:
    """A PostgreSQL that answers but refuses writes (a standby after a failover, a database made read-only): the
    health check writes, and says 503; a new table is refused the same way."""
    import asyncpg

    name = postgres_url.rpartition("/")[2]

    async def admin(*statements: str) -> None:
        connection = await asyncpg.connect(postgres_url.rpartition("/")[0] + "/test")
        try:
            for statement in statements:
                await connection.execute(statement)
        finally:
            await connection.close()

    with running_server(postgres_url) as url:
        assert new_table(url).status_code == 201
        asyncio.run(
            admin(
                f"ALTER DATABASE {name} SET default_transaction_read_only = on",
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
            )
        )
        health = httpx.get(url + "/healthz", timeout=15)
        assert_store_away(health)
        assert "read-only" in health.json()["error"]
        assert_store_away(new_table(url))


def test_bots_play_for_an_absent_person_while_others_wait_and_stop_when_they_return(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=0, absent_after=1)
        gone, staying = sit(url, table["id"], 0, "Eleni"), sit(url, table["id"], 1, "Nikos")

        async def main() -> None:
            async with Player(url, table["id"], staying) as nikos:  # Nikos stays and plays his turns
                playing = asyncio.create_task(nikos.play(random.Random(1), lambda m: False))
                async with Player(url, table["id"], gone) as me:
                    await me.until(lambda m: m["type"] == "state")
                await asyncio.sleep(3)  # Eleni away: after a second a stand-in plays her turns for Nikos' sake
                async with Player(url, table["id"], gone) as me:
                    state = await me.until(lambda m: m["type"] == "state")
                    mine = [e for e in state["events"] if e["kind"] == "action" and e["seat"] == 0]
                    assert mine and all(e["by"] == "absent" for e in mine), "nobody played for the absent seat"
                    if not state["legal"]:
                        state = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]), timeout=30)
                    await asyncio.sleep(2)  # back: the stand-in waits for me now
                    await me.send({"type": "action", "action": state["legal"][0], "version": state["version"]})
                    after = await me.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
                    played = [e for e in after["events"] if e["kind"] == "action"]
                    assert played and played[0]["seat"] == 0 and played[0]["action"] == state["legal"][0]
                    assert "by" not in played[0]
                playing.cancel()

        asyncio.run(main())


def seat_entry(message: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """A seat's entry in a presence message or a state's table info."""
    seats = message["seats"] if message["type"] == "presence" else message.get("table", {}).get("seats", [])
    return (
        next((entry for entry in seats if entry["seat"] == seat), None)
        if message["type"] in ("presence", "state")
        else None
    )


def test_an_away_players_seat_says_when_the_stand_in_will_play_it(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=0, absent_after=20)
        gone, staying = sit(url, table["id"], 0, "Eleni"), sit(url, table["id"], 1, "Nikos")

        def away(m: dict[str, Any]) -> bool:
            entry = seat_entry(m, 0)
            return entry is not None and not entry["connected"] and "stand_in_in" in entry

        def here(m: dict[str, Any]) -> bool:
            entry = seat_entry(m, 0)
            return entry is not None and entry["connected"]

        async def main() -> None:
            async with Player(url, table["id"], staying) as nikos:
                async with Player(url, table["id"], gone) as me:
                    await me.until(lambda m: m["type"] == "state")
                    await nikos.until(here)
                entry = seat_entry(await nikos.until(away), 0)
                assert entry is not None and 15 < entry["stand_in_in"] <= 20 and not entry["stand_in"]
                told = len(nikos.messages)
                with contextlib.suppress(TimeoutError):
                    await nikos.until(lambda m: False, timeout=3)
                again = [m for m in nikos.messages[told:] if m["type"] == "presence"]
                assert again == [], "a count that only runs down is told once, not every second"
                async with Player(url, table["id"], gone):
                    entry = seat_entry(await nikos.until(here), 0)
                    assert entry is not None and "stand_in_in" not in entry

        asyncio.run(main())


def test_with_nobody_left_at_the_table_the_stand_in_waits_too(tmp_path: Any) -> None:
    """A match nobody is at is not played away by bots: it is where its people left it when they come back."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0, absent_after=1)
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            async with Player(url, table["id"], token) as me:
                left = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]))
            await asyncio.sleep(3)
            async with Player(url, table["id"], token) as me:
                back = await me.until(lambda m: m["type"] == "state")
                assert back["version"] == left["version"] and back["legal"] == left["legal"]  # nothing was played

        asyncio.run(main())


def test_a_turn_clock_finishes_a_slow_turn(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0, turn_clock=1)
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            async with Player(url, table["id"], token) as me:
                first = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]))
                assert first["clock"] is not None and first["clock"] <= 1
                later = await me.until(
                    lambda m: (
                        m["type"] == "state" and any(e["kind"] == "action" and e["seat"] == 0 for e in m["events"])
                    ),
                    timeout=10,
                )
                assert later["version"] > first["version"]
                clocked = [e for e in later["events"] if e["kind"] == "action" and e["seat"] == 0]
                assert all(e["by"] == "clock" for e in clocked)  # the log says the clock played it
                others = [e for e in later["events"] if e["kind"] == "action" and e["seat"] != 0]
                assert all("by" not in e for e in others)

        asyncio.run(main())
        stored = httpx.get(f"{url}/api/tables/{table['id']}").json()
        assert stored["status"] == "playing"


@pytest.mark.slow  # seconds of real time: make check leaves it to make test
def test_an_absent_players_stand_in_waits_once_then_plays_each_turn_at_the_bots_pace(tmp_path: Any) -> None:
    """absent_after is the wait before the stand-in's first turn, not before each of them."""
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, PERSON, GREEDY, GREEDY], bot_delay=0.2, absent_after=3, deal_pause=0)
        gone, staying = sit(url, table["id"], 0, "Eleni"), sit(url, table["id"], 1, "Nikos")

        async def main() -> list[tuple[float, dict[str, Any]]]:
            async with Player(url, table["id"], gone) as me:
                await me.until(lambda m: m["type"] == "state")
            arrived: list[tuple[float, dict[str, Any]]] = []
            rng = random.Random(2)
            async with Player(url, table["id"], staying) as nikos:  # plays at once, and notes when each move comes
                end = time.monotonic() + 12
                while time.monotonic() < end:
                    with contextlib.suppress(TimeoutError):
                        message = await nikos.receive(timeout=max(0.01, end - time.monotonic()))
                        if message["type"] != "state":
                            continue
                        arrived += [(time.monotonic(), e) for e in message["events"] if e["kind"] == "action"]
                        if message["legal"]:
                            action = rng.choice(message["legal"])
                            await nikos.send({"type": "action", "action": action, "version": message["version"]})
                        elif message["result"] is not None:
                            await nikos.send({"type": "next"})
            return arrived

        arrived = asyncio.run(main())
        firsts = [i for i, (_t, e) in enumerate(arrived) if e["seat"] == 0 and i and arrived[i - 1][1]["seat"] != 0]
        assert len(firsts) >= 2, [e["action"] for _t, e in arrived]
        for i in firsts[1:]:  # every turn after the first comes at the bots' pace, not after absent_after again
            assert arrived[i][0] - arrived[i - 1][0] < 1.5, arrived[i][1]
        assert all(e["by"] == "absent" for _t, e in arrived if e["seat"] == 0)


def test_every_http_answer_carries_the_security_headers(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        for path in ("/", "/static/app.js", "/api/rules", "/api/tables/nope"):
            headers = httpx.get(url + path).headers
            csp = headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
            assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"


def test_a_websocket_from_another_sites_page_is_refused(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        token = sit(url, table["id"], 0, "Eleni")
        host = url.removeprefix("http://")

        async def main() -> None:
            with pytest.raises(InvalidStatus) as refused:
                await connect(ws_url(url, table["id"]), origin=Origin("https://evil.example"))
            assert refused.value.response.status_code == 403
            async with connect(ws_url(url, table["id"]), origin=Origin(f"http://{host}")) as ours:  # the page's own
                await ours.send(json.dumps({"type": "join", "token": token, "since": 0}))
                assert json.loads(await ours.recv())["type"] == "state"

        asyncio.run(main())


def test_health_and_metrics(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY], bot_delay=0)
        token = sit(url, table["id"], 0, "Eleni")
        health = httpx.get(url + "/healthz").json()
        node = health.pop("node")
        assert health == {"status": "ok", "store": "ok", "live_tables": 1}  # alone: no bus
        # the process's name in the store's leases: random, telling whoever asks neither its host nor its pid
        assert re.fullmatch(r"[0-9a-f]{16}", node), node

        async def one_move() -> None:
            async with Player(url, table["id"], token) as me:
                state = await me.until(lambda m: m["type"] == "state" and bool(m["legal"]))
                await me.send({"type": "action", "action": state["legal"][0], "version": state["version"]})
                await me.until(lambda m: m["type"] == "state" and m["version"] > state["version"])
                await me.send({"type": "warp"})
                await me.until(lambda m: m["type"] == "error")

        asyncio.run(one_move())
        text = httpx.get(url + "/metrics").text
        samples = [line.rpartition(" ") for line in text.splitlines() if line[:1] not in ("#", "")]
        metric = {name: float(value) for name, _space, value in samples}
        assert metric["biriba_live_tables"] == 1 and metric["biriba_round_trip_seconds_count"] >= 1
        assert metric['biriba_actions_total{by="person"}'] >= 1
        assert metric['biriba_refusals_total{code="bad_message"}'] >= 1
        assert "biriba_bot_queue" in metric and "biriba_engine_cache_total" in metric
        assert any(name.startswith('biriba_engine_cache_entries{cache="meld table"}') for name in metric)


def test_a_finished_match_gives_its_record_and_its_replay(tmp_path: Any) -> None:
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [GREEDY] * 4, bot_delay=0, options={"target": 300})

        async def wait_over() -> None:
            for _ in range(600):
                if httpx.get(f"{url}/api/tables/{table['id']}").json()["status"] == "over":
                    return
                await asyncio.sleep(0.1)
            raise AssertionError("the bots' match did not end")

        asyncio.run(wait_over())
        record = httpx.get(f"{url}/api/tables/{table['id']}/record").json()
        assert record["format"] == "biriba-record/1" and record["winners"]
        step = httpx.get(f"{url}/api/tables/{table['id']}/replay", params={"deal": 1, "step": 5}).json()
        assert step["actions"] == 5 and all(isinstance(h, list) for h in step["hands"])  # every hand open
        assert step["action"] == record["deals"][0]["actions"][4][1]
        end = httpx.get(f"{url}/api/tables/{table['id']}/replay", params={"deal": 1, "step": step["total"]}).json()
        assert end["over"] and end["result"]["team_scores"] == record["deals"][0]["result"]["team_scores"]
        for team, board in zip(end["result"]["breakdown"], end["board"]):
            assert board["points"] == team["melds"] + team["bonuses"]
        assert httpx.get(f"{url}/api/tables/{table['id']}/replay", params={"deal": 9}).status_code == 422
        assert json.dumps(record)  # the download is plain JSON


def wait_over(url: str, table_id: str) -> None:
    end = time.monotonic() + 60
    while httpx.get(f"{url}/api/tables/{table_id}", timeout=10).json()["status"] != "over":
        assert time.monotonic() < end, "the bots' match did not end"
        time.sleep(0.1)


def metrics_of(url: str) -> dict[str, float]:
    return read_metrics(httpx.get(url + "/metrics", timeout=10).text)


def read_metrics(text: str) -> dict[str, float]:
    samples = [line.rpartition(" ") for line in text.splitlines() if line[:1] not in ("#", "")]
    return {name: float(value) for name, _space, value in samples}


def test_a_finished_matchs_record_and_replay_are_computed_once_kept_and_limited_per_address(tmp_path: Any) -> None:
    """Issue 49 item 7: a finished match's record and replay positions never change, so each is computed once (even
    when asked for twice at the same moment), kept, and sent with an ETag (304 to a client that has it): a position
    immutable, the record to be asked again each time (it names the players, and a deleted account's are renamed);
    one address may have 2 requests under way and so many answers computed a minute (429 beyond), kept ones free."""
    db = tmp_path / "t.sqlite3"
    config = ServerConfig(bot_workers=1, replays_per_minute=4)
    with running_server(f"sqlite:///{db}", config) as url:
        table = create_table(url, [GREEDY] * 4, bot_delay=0, options={"target": 300})["id"]
        wait_over(url, table)
        base = f"{url}/api/tables/{table}"
        record = httpx.get(base + "/record", timeout=15)
        assert record.status_code == 200 and record.json()["format"] == "biriba-record/1"
        assert record.headers["cache-control"] == "public, no-cache"
        assert metrics_of(url)["biriba_replays_computed"] == 1
        again = httpx.get(base + "/record", headers={"if-none-match": record.headers["etag"]}, timeout=15)
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == record.headers["etag"]
        first, second = (httpx.get(base + "/replay", params={"deal": 1, "step": 5}, timeout=15) for _ in range(2))
        assert first.status_code == second.status_code == 200 and first.content == second.content
        assert "immutable" in first.headers["cache-control"]
        assert metrics_of(url)["biriba_replays_computed"] == 2  # the record was kept; the position computed once
        for step in (6, 7):
            assert httpx.get(base + "/replay", params={"deal": 1, "step": step}, timeout=15).status_code == 200
        over = httpx.get(base + "/replay", params={"deal": 1, "step": 8}, timeout=15)
        assert over.status_code == 429 and over.json()["code"] == "quota", over.text
        assert 1 <= int(over.headers["retry-after"]) <= 60
        kept = httpx.get(base + "/replay", params={"deal": 1, "step": 5}, timeout=15)
        assert kept.status_code == 200 and kept.content == first.content  # kept: not counted, not computed again
        assert metrics_of(url)["biriba_replays_computed"] == 4

    with running_server(f"sqlite:///{db}", config) as url:  # the table is not in memory, nothing is kept
        base = f"{url}/api/tables/{table}"
        writer = sqlite3.connect(db, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")  # the store's writes wait: loading the table (its lease) is one

        async def flood() -> tuple[httpx.Response, list[httpx.Response]]:
            async with httpx.AsyncClient(timeout=15) as client:
                waiting = [asyncio.create_task(client.get(base + "/record")) for _ in range(2)]
                end = time.monotonic() + 4  # within SQLite's busy timeout (5 s)
                while read_metrics((await client.get(url + "/metrics")).text).get("biriba_replays_under_way") != 2:
                    assert time.monotonic() < end, "the two requests are not under way"
                    await asyncio.sleep(0.02)
                third = await client.get(base + "/record")
                writer.execute("ROLLBACK")
                return third, list(await asyncio.gather(*waiting))

        try:
            third, answers = asyncio.run(flood())
        finally:
            if writer.in_transaction:
                writer.execute("ROLLBACK")
            writer.close()
        assert third.status_code == 429 and third.json()["code"] == "quota" and third.headers["retry-after"] == "1"
        assert [a.status_code for a in answers] == [200, 200] and answers[0].content == answers[1].content
        assert metrics_of(url)["biriba_replays_computed"] == 1  # the second waited for the first's


def test_a_web_tables_hard_bots_think_at_most_a_second() -> None:
    from biriba.server.live import LiveTable
    from biriba.server.store import SeatInfo, TableRow

    seats = [SeatInfo("person"), SeatInfo("bot", "hard"), SeatInfo("bot", "greedy"), SeatInfo("bot", "hard")]
    live = LiveTable(TableRow(id="t", rules="classic", settings={}, seats=seats, seed="s"), store=None)  # type: ignore[arg-type]
    assert [getattr(bot, "think_ms", None) for bot in live.table.agents] == [None, 1000, None, 1000]


def test_a_web_tables_hard_bot_never_takes_the_same_stock_out_draw_twice() -> None:
    """Its searches run in workers whose bots are new each time: the table's own bot remembers the draws
    it faced since the stock ran out, and settles a second one without a search (docs/bots.md)."""
    from biriba.bots import SearchBot
    from biriba.server.driver import Think
    from biriba.server.live import LiveTable
    from biriba.server.store import SeatInfo, TableRow
    from biriba.server.thinking import Thinkers
    from test_search import stock_out

    seats = [SeatInfo("bot", "hard"), SeatInfo("person"), SeatInfo("bot", "greedy"), SeatInfo("person")]
    row = TableRow(id="t", rules="classic", settings={}, seats=seats, seed="s")
    thinkers = Thinkers(workers=1, queue=10)  # its workers start at the first decision: none is asked here
    try:
        live = LiveTable(row, store=None, thinkers=thinkers)  # type: ignore[arg-type]
        bot = live.table.agents[0]
        assert isinstance(bot, SearchBot)
        deal = stock_out("8D 8S 5C KH 9S", "8H")  # seat 0 to draw; the pile's 8H makes a set
        first = live.driver.search_due(bot, deal, None)
        assert isinstance(first, Think) and first.seat == 0 and first.think_ms == 1000
        assert live.driver.search_due(bot, deal, None) is None  # the same draw again: no search
        assert bot.choose(deal.view_for(0), list(deal.legal_actions())).kind == "pass"  # what the table plays
    finally:
        thinkers.close()


def test_hard_bots_play_at_a_web_table(tmp_path: Any) -> None:
    """Issue 10, item 5: the levels are offered wherever bots are chosen; the hard bot thinks in a thread."""
    hard = {"kind": "bot", "bot": "hard"}
    with running_server(f"sqlite:///{tmp_path}/t.sqlite3") as url:
        table = create_table(url, [PERSON, hard, hard, hard], bot_delay=0)
        assert [s.get("bot") for s in table["seats"]] == [None, "hard", "hard", "hard"]
        token = sit(url, table["id"], 0, "Eleni")

        async def main() -> None:
            async with Player(url, table["id"], token) as me:
                rng = random.Random(3)
                seen: set[int] = set()

                def bots_have_played(state: dict[str, Any]) -> bool:
                    seen.update(e["seat"] for e in state["events"] if e["kind"] == "action")
                    return {1, 2, 3} <= seen

                await me.play(rng, bots_have_played)

        asyncio.run(main())


def test_serve_flags_set_the_limits_and_proxies_are_believed_only_when_named(tmp_path: Any) -> None:
    """Without --trusted-proxies a forged X-Forwarded-For changes nothing: the quota counts the real address."""
    db = f"sqlite:///{tmp_path}/t.sqlite3"
    body = {"seats": [PERSON, GREEDY, GREEDY, GREEDY]}
    with server_process(db, None, None, BIRIBA, "--tables-per-minute", "1") as (url, _process):
        assert httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.1"}).status_code == 201
        again = httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.2"})
        assert again.status_code == 429  # the same client, whatever it says it forwards
    with server_process(db, None, None, BIRIBA, "--tables-per-minute", "1", "--trusted-proxies", "127.0.0.1") as (
        url,
        _process,
    ):
        assert httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.3"}).status_code == 201
        other = httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.4"})
        assert other.status_code == 201  # behind a named proxy, each client is its own
        same = httpx.post(url + "/api/tables", json=body, headers={"x-forwarded-for": "10.0.0.4"})
        assert same.status_code == 429


def test_websocket_compression_is_off_unless_asked_for(tmp_path: Any) -> None:
    """A compressor per connection costs every client's message its own deflate, and memory (docs/operations.md):
    ``biriba serve`` accepts no permessage-deflate unless ``--ws-compression``."""

    async def extensions(url: str, table_id: str) -> str | None:
        async with connect(ws_url(url, table_id)) as ws:  # this client offers permessage-deflate
            assert ws.response is not None
            return ws.response.headers.get("sec-websocket-extensions")

    db = f"sqlite:///{tmp_path}/t.sqlite3"
    for flags, compressed in (((), False), (("--ws-compression",), True)):
        with server_process(db, None, None, BIRIBA, *flags) as (url, _process):
            table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
            offered = asyncio.run(extensions(url, table["id"]))
            assert ("permessage-deflate" in (offered or "")) is compressed, offered


def test_public_url_makes_the_invite_links(tmp_path: Any) -> None:
    flags = ("--public-url", "https://biriba.example")
    with server_process(f"sqlite:///{tmp_path}/t.sqlite3", None, None, BIRIBA, *flags) as (url, _process):
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        assert table["invite"] == f"https://biriba.example/t/{table['id']}"
    with running_server(f"sqlite:///{tmp_path}/u.sqlite3") as url:  # no public URL: the request's own host
        table = create_table(url, [PERSON, GREEDY, GREEDY, GREEDY])
        assert table["invite"] == f"{url}/t/{table['id']}"
        host = httpx.get(f"{url}/api/tables/{table['id']}", headers={"host": "friends.lan:8000"}).json()
        assert host["invite"] == f"http://friends.lan:8000/t/{table['id']}"  # each request's, not the first's


def test_one_process_serves_alone_without_redis(tmp_path: Any) -> None:
    """Without --redis a process serves alone, SQLite included: it owns every table, and after a restart it takes
    back the tables its earlier life held (their leases have not run out)."""
    db = f"sqlite:///{tmp_path}/t.sqlite3"
    with server_process(db) as (url, _process):
        table = create_table(url, [GREEDY, GREEDY, GREEDY, GREEDY], bot_delay=0)
        assert "bus" not in httpx.get(url + "/healthz", timeout=5).json()
    with server_process(db) as (url, _process):
        first = httpx.get(f"{url}/api/tables/{table['id']}", timeout=5).json()["deals"]
        end = time.time() + 20
        while time.time() < end and httpx.get(f"{url}/api/tables/{table['id']}", timeout=5).json()["deals"] == first:
            time.sleep(0.2)
        assert httpx.get(f"{url}/api/tables/{table['id']}", timeout=5).json()["deals"] > first
